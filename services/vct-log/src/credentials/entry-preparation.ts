import { canonicalize as jcs, describeJsonDefect, findJsonDefect } from '@anchor/common/encoding';
import { AppError, badRequest } from '@anchor/common/errors';
import { canonicalize, type DocumentLoader } from '@anchor/common/jsonld';
import type { WorkerContextsSetup } from '@anchor/common/jsonld-contexts';
import { firstProblem, LOG_ADD_VC, type IssuedCredential } from '@anchor/common/schemas';
import { buildLeafInput, leafHashOf, vcEntryOf, vcTimestampSignaturePayload } from '@anchor/common/vct';
import { identityHashOf } from '../merkle-log/leaf-identity.js';
import type { LogSigner, LogSignerSetup } from '../signing/log-signer.js';

/**
 * Terms a credential's contexts may leave undefined (they are dropped from the N-Quads, hence from the
 * leaf): a list of names, or `'any'` to drop whatever is undefined silently, as trustbloc/vct's processor
 * does.
 */
export type UndefinedTermsPolicy = readonly string[] | 'any';

/**
 * The N-Quads of a log entry, as trustbloc/vct builds them: the credential without `proof` (set to null,
 * which JSON-LD drops, so no proof is ever part of an entry), canonicalised with URDNA2015.
 */
export function canonicalizeCredential(
  credential: object,
  policy: UndefinedTermsPolicy,
  documentLoader: DocumentLoader,
): Promise<string> {
  const { proof: _proof, ...withoutProof } = credential as Record<string, unknown>;
  return canonicalize(withoutProof, { allowUndefinedTerms: policy === 'any' ? 'any' : [...policy], documentLoader });
}

/** A credential turned into a log entry, ready to be stored and acknowledged. */
export interface PreparedEntry {
  /** Dedupe identity: base64url SHA-256 of the N-Quads. */
  identity: string;
  timestamp: number;
  /** JCS text of the MerkleTreeLeaf. */
  leafInput: string;
  /** base64 of the Merkle leaf hash, SHA-256(0x00 || leafInput). */
  leafHash: string;
  /** The add-vc signature over this leaf's VCTimestampSignature (valid when the entry is new). */
  signature: string;
}

export interface PreparedCredential {
  issuer: string;
  entry: PreparedEntry;
  /** base64 of the JCS of the proofs array (trustbloc/vct's `extra_data`), or null when it has none. */
  extraData: string | null;
  /** The credential carries proofs, which the caller must verify before accepting it. */
  hasProofs: boolean;
}

/**
 * Everything add-vc computes from the body alone, in trustbloc/vct's terms: the JSON, the credential's
 * shape (issuer and issuanceDate required), the alias's issuer allow-list (checked before the JSON-LD
 * work, so a restricted log spends nothing on other issuers), then N-Quads, identity, leaf and signature.
 * It runs on the worker threads, so the HTTP thread only routes, stores and answers. Failures are 400
 * `parse credential: ...`, except the issuer list's own `bad request: issuer ... is not in a list`.
 */
export async function prepareCredential(
  body: string | undefined,
  timestamp: number,
  allowedIssuers: readonly string[] | undefined,
  policy: UndefinedTermsPolicy,
  signer: LogSigner,
  documentLoader: DocumentLoader,
): Promise<PreparedCredential> {
  if (body === undefined || body === '') throw parseFailure('the request body must be a verifiable credential in JSON');
  let credential: IssuedCredential;
  try {
    credential = JSON.parse(body) as IssuedCredential;
  } catch (error) {
    throw parseFailure(`malformed JSON: ${(error as Error).message}`);
  }
  // The kit's strict reader's rules: what is logged must have one reading and one canonical form.
  const defect = findJsonDefect(body);
  if (defect) throw parseFailure(describeJsonDefect(defect, 'credential'));
  const problem = firstProblem(LOG_ADD_VC, credential);
  if (problem !== undefined) throw parseFailure(`invalid credential: ${problem}`);
  const issuer = typeof credential.issuer === 'string' ? credential.issuer : credential.issuer.id;
  if (allowedIssuers && allowedIssuers.length > 0 && !allowedIssuers.includes(issuer))
    throw badRequest(`bad request: issuer ${issuer} is not in a list`);

  let nquads: string;
  try {
    nquads = await canonicalizeCredential(credential, policy, documentLoader);
  } catch (error) {
    throw asParseFailure(error);
  }
  const vcEntry = vcEntryOf(nquads);
  const leafInput = buildLeafInput(timestamp, vcEntry);
  const proofs =
    credential.proof === undefined ? [] : Array.isArray(credential.proof) ? credential.proof : [credential.proof];
  return {
    issuer,
    entry: {
      identity: identityHashOf(nquads),
      timestamp,
      leafInput,
      leafHash: leafHashOf(leafInput).toString('base64'),
      signature: await signer.signEnvelope(vcTimestampSignaturePayload(timestamp, vcEntry)),
    },
    extraData: proofs.length > 0 ? Buffer.from(jcs(proofs), 'utf8').toString('base64') : null,
    hasProofs: proofs.length > 0,
  };
}

export function parseFailure(reason: string): AppError {
  return badRequest(`parse credential: ${reason}`);
}

/** Keeps the status of AppErrors (a did:web host that cannot be reached is a retryable 503, not the client's fault). */
export function asParseFailure(error: unknown): AppError {
  if (error instanceof AppError)
    return new AppError(error.code, `parse credential: ${error.message}`, { cause: error, retryable: error.retryable });
  return parseFailure(error instanceof Error ? error.message : String(error));
}

/** One add-vc body for the entry workers. */
export interface PrepareTask {
  body: string | undefined;
  timestamp: number;
  allowedIssuers: readonly string[] | undefined;
  /** The operator contexts' version the body was accepted under: the worker waits until it has it. */
  contextsVersion: number;
}

export interface WorkerSetup {
  allowUndefinedTerms: UndefinedTermsPolicy;
  /** The log key (its PEM, or where it is in the kms): the workers sign the timestamps of new entries. */
  signing: LogSignerSetup;
  contexts: WorkerContextsSetup;
}
