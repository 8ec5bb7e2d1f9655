import { isDeepStrictEqual } from 'node:util';
import { AppError, badRequest } from '../errors/index.js';
import { isDateTimeStamp } from './date-time.js';
import {
  CanonicalDocument,
  canonicalProofOptions,
  hashData,
  proofsNamedBy,
  type ProofCanonicalizeOptions,
} from './proof-data.js';
import {
  isProofType,
  type DataIntegrityProof,
  type ProofPurpose,
  type ProofType,
  type SecuredDocument,
} from './proof-types.js';
import { suiteFor, type Suite } from './suites.js';
import type { ResolvedVerificationMethod, VerificationMethodResolver } from './verification-method.js';

export interface VerifyOptions extends ProofCanonicalizeOptions {
  resolver: VerificationMethodResolver;
  /** The purpose every checked proof must claim, and that its key must be listed under. Default assertionMethod. */
  proofPurpose?: ProofPurpose;
  /** Which proofs to check: all of them (the default), or those whose domain is the given one (at least one). */
  proofs?: 'all' | { domain: string };
  /** When set, every checked proof must carry this domain (a Data Integrity proof may list several). */
  domain?: string;
  /** When set, every checked proof must carry exactly this challenge. */
  challenge?: string;
  /** The time a proof's `expires` is compared with; defaults to now. */
  now?: Date;
}

/** The check that failed, in the order they run. */
export type ProofCheck =
  | 'structure'
  | 'type'
  | 'created'
  | 'expires'
  | 'purpose'
  | 'domain'
  | 'challenge'
  | 'verification-method'
  | 'key-type'
  | 'relationship'
  | 'previous-proof'
  | 'canonicalization'
  | 'signature';

export interface ProofVerification {
  /** Position of the proof in the document's proof set. */
  index: number;
  type: unknown;
  verificationMethod: unknown;
  domain: unknown;
  /** The resolved key's controller, once resolution got that far. */
  controller?: string;
  verified: boolean;
  failure?: { check: ProofCheck; message: string };
}

export interface DocumentVerification {
  verified: boolean;
  proofs: ProofVerification[];
  /** Why nothing could be verified (no proof, or none matching the selection). */
  error?: string;
}

/**
 * Verifies the proofs of a document and reports, per proof, whether it holds and which check failed.
 * A malformed document (unknown context, undefined term, no @context) throws a `bad_request`; so does a
 * resolver failure that is worth retrying (it is rethrown as is). Verification with a resolver:
 *
 *     const resolver = controllerDocumentResolver([didDocument]);
 *     const { verified, proofs } = await verifyDocument(credential, { resolver });
 *     const witnessed = await verifyDocument(credential, { resolver, proofs: { domain: logUrl } });
 */
export async function verifyDocument(document: unknown, options: VerifyOptions): Promise<DocumentVerification> {
  const securedDocument = asSecuredDocument(document);
  const proofSet = proofsOf(securedDocument);
  const selection = options.proofs ?? 'all';
  const selected = proofSet
    .map((proof, index) => ({ proof, index }))
    .filter(({ proof }) => selection === 'all' || (isObject(proof) && hasDomain(proof.domain, selection.domain)));
  if (proofSet.length === 0) return { verified: false, proofs: [], error: 'the document carries no proof' };
  if (selected.length === 0) {
    return {
      verified: false,
      proofs: [],
      error: `the document carries no proof with domain ${JSON.stringify((selection as { domain: string }).domain)}`,
    };
  }

  // One canonicalisation of the document serves every proof of a set: each covers the document without any proof.
  // It runs first, before any key is resolved, so that a malformed document is a bad_request whatever its proofs.
  const canonical = new CanonicalDocument(securedDocument, options);
  if (selected.some(({ proof }) => !isObject(proof) || !String(proof.cryptosuite ?? '').includes('-jcs-')))
    await canonical.form('rdfc', 'sha256', { previousProofs: [], context: securedDocument['@context'] });
  const proofs = await Promise.all(
    selected.map(({ proof, index }) => verifyOneProof(proof, index, securedDocument, canonical, options)),
  );
  return { verified: proofs.every((proof) => proof.verified), proofs };
}

/** As `verifyDocument`, but throws one `bad_request` naming the first failing proof and check. */
export async function assertDocumentVerified(document: unknown, options: VerifyOptions): Promise<DocumentVerification> {
  const result = await verifyDocument(document, options);
  if (result.verified) return result;
  const failed = result.proofs.find((proof) => !proof.verified);
  const reason = failed?.failure
    ? `proof ${failed.index} (${failed.failure.check}): ${failed.failure.message}`
    : (result.error ?? 'not verified');
  throw badRequest(`proof verification failed: ${reason}`, { details: { proofs: result.proofs } });
}

class ProofCheckFailure extends Error {
  constructor(
    readonly check: ProofCheck,
    message: string,
  ) {
    super(message);
  }
}

async function verifyOneProof(
  candidate: unknown,
  index: number,
  document: SecuredDocument,
  canonical: CanonicalDocument,
  options: VerifyOptions,
): Promise<ProofVerification> {
  const proof = isObject(candidate) ? candidate : {};
  const result: ProofVerification = {
    index,
    type: proof.type,
    verificationMethod: proof.verificationMethod,
    domain: proof.domain,
    verified: false,
  };
  try {
    if (!isObject(candidate)) throw new ProofCheckFailure('structure', 'a proof must be a JSON object');
    const { proof: checked, suite } = checkProofMembers(candidate, options);
    const context = proofContext(checked, document['@context']);
    const previousProofs = proofsNamedBy(document, checked.previousProof);
    if (!Array.isArray(previousProofs)) throw new ProofCheckFailure('previous-proof', previousProofs.error);
    const method = await resolveMethod(checked, options);
    result.controller = method.controller;
    if (!suite.keyTypes.includes(method.key.type)) {
      throw new ProofCheckFailure(
        'key-type',
        `${suite.name} needs a ${suite.keyTypes.join(' or ')} key, and ${method.id} is ${method.key.type}`,
      );
    }
    if (!method.purposes.includes(checked.proofPurpose)) {
      throw new ProofCheckFailure(
        'relationship',
        `${method.id} is not listed under ${checked.proofPurpose} by its controller ${method.controller}`,
      );
    }
    // A document that cannot be canonicalised is malformed as a whole: that throws (bad_request), as before.
    const hash = suite.hashFor(method.key.type);
    const documentText = await canonical.form(suite.canonicalization, hash, { previousProofs, context });
    let proofText: string;
    try {
      proofText = await canonicalProofOptions(checked, context, suite.canonicalization, hash, options);
    } catch (error) {
      throw new ProofCheckFailure('canonicalization', error instanceof AppError ? error.message : String(error));
    }
    const data = hashData(hash, proofText, documentText);
    if (!suite.verify(data, checked[suite.signatureMember], method.key)) {
      throw new ProofCheckFailure('signature', `the ${suite.signatureMember} does not verify with ${method.id}`);
    }
    result.verified = true;
  } catch (error) {
    if (!(error instanceof ProofCheckFailure)) throw error;
    result.failure = { check: error.check, message: error.message };
  }
  return result;
}

type CheckedProof = DataIntegrityProof & { type: ProofType };

function checkProofMembers(
  proof: Record<string, unknown>,
  options: VerifyOptions,
): { proof: CheckedProof; suite: Suite } {
  const { type, created, expires, verificationMethod, proofPurpose, domain, challenge } = proof;
  if (!isProofType(type)) throw new ProofCheckFailure('type', `unsupported proof type ${JSON.stringify(type)}`);
  const suite = suiteFor(type, proof.cryptosuite);
  if ('error' in suite) throw new ProofCheckFailure('type', suite.error);
  const signature = proof[suite.signatureMember];
  if (typeof signature !== 'string' || signature.length === 0) {
    throw new ProofCheckFailure('structure', `${suite.name} proof needs a string ${suite.signatureMember}`);
  }
  if (typeof verificationMethod !== 'string' || verificationMethod.length === 0) {
    throw new ProofCheckFailure('structure', 'verificationMethod must be a non-empty string');
  }
  if (created !== undefined && !isDateTimeStamp(created)) {
    throw new ProofCheckFailure(
      'created',
      `created must be an ISO 8601 date-time with a zone, not ${JSON.stringify(created)}`,
    );
  }
  if (expires !== undefined) {
    if (!isDateTimeStamp(expires))
      throw new ProofCheckFailure(
        'expires',
        `expires must be an ISO 8601 date-time with a zone, not ${JSON.stringify(expires)}`,
      );
    if (Date.parse(expires) <= (options.now ?? new Date()).getTime())
      throw new ProofCheckFailure('expires', `the proof expired at ${expires}`);
  }
  const expectedPurpose = options.proofPurpose ?? 'assertionMethod';
  if (proofPurpose !== expectedPurpose) {
    throw new ProofCheckFailure(
      'purpose',
      `proofPurpose is ${JSON.stringify(proofPurpose)}, expected ${expectedPurpose}`,
    );
  }
  if (options.domain !== undefined && !hasDomain(domain, options.domain)) {
    throw new ProofCheckFailure(
      'domain',
      `domain is ${JSON.stringify(domain)}, expected ${JSON.stringify(options.domain)}`,
    );
  }
  if (options.challenge !== undefined && challenge !== options.challenge) {
    throw new ProofCheckFailure(
      'challenge',
      `challenge is ${JSON.stringify(challenge)}, expected ${JSON.stringify(options.challenge)}`,
    );
  }
  return { proof: proof as CheckedProof, suite };
}

/**
 * The context a proof was made under. A proof that carries its own `@context` (Data Integrity allows it)
 * is checked and canonicalised under that context, which must be the start of the document's, in order.
 */
function proofContext(proof: CheckedProof, documentContext: unknown): unknown {
  const own = proof['@context'];
  if (own === undefined) return documentContext;
  const owned = Array.isArray(own) ? own : [own];
  const documents = Array.isArray(documentContext) ? documentContext : [documentContext];
  const prefix =
    owned.length <= documents.length && owned.every((entry, at) => isDeepStrictEqual(entry, documents[at]));
  if (!prefix)
    throw new ProofCheckFailure('structure', "the proof's @context is not the start of the document's @context");
  return own;
}

async function resolveMethod(proof: CheckedProof, options: VerifyOptions): Promise<ResolvedVerificationMethod> {
  let method: ResolvedVerificationMethod | undefined;
  try {
    method = await options.resolver(proof.verificationMethod);
  } catch (error) {
    // A resolver that could not reach a DID's host says nothing about the proof: let the caller retry.
    if (error instanceof AppError && error.retryable) throw error;
    throw new ProofCheckFailure(
      'verification-method',
      `cannot resolve ${proof.verificationMethod}: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  if (!method)
    throw new ProofCheckFailure('verification-method', `verification method ${proof.verificationMethod} not found`);
  if (method.id !== proof.verificationMethod) {
    throw new ProofCheckFailure(
      'verification-method',
      `resolver returned ${method.id} for ${proof.verificationMethod}`,
    );
  }
  return method;
}

function proofsOf(document: SecuredDocument): unknown[] {
  const { proof } = document;
  if (proof === undefined) return [];
  return Array.isArray(proof) ? proof : [proof];
}

function asSecuredDocument(document: unknown): SecuredDocument {
  if (!isObject(document)) throw badRequest('a document to verify must be a JSON object');
  if (document['@context'] === undefined) throw badRequest('a document to verify needs an @context');
  return document as SecuredDocument;
}

/** VC Data Integrity allows a proof's `domain` to be a list; the proof is for each domain listed. */
function hasDomain(domain: unknown, expected: string): boolean {
  return domain === expected || (Array.isArray(domain) && domain.includes(expected));
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
