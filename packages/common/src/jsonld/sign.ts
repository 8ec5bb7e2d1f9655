import type { KeyPair } from '../crypto/index.js';
import { badRequest } from '../errors/index.js';
import { formatDateTimeStamp, isDateTimeStamp } from './date-time.js';
import { documentDigest, proofOptionsDigest, verifyData, type ProofCanonicalizeOptions } from './proof-data.js';
import {
  isProofPurpose,
  isProofType,
  type DataIntegrityProof,
  type ProofPurpose,
  type ProofType,
  type SecuredDocument,
} from './proof-types.js';
import { suiteFor, type Suite } from './suites.js';

export interface ProofOptions extends ProofCanonicalizeOptions {
  /** Defaults to Ed25519Signature2020. */
  type?: ProofType;
  /** The private key; it must be of a type the suite signs with. */
  key: KeyPair;
  /** The DID URL of the key, e.g. `did:web:example.com#key-1`. */
  verificationMethod: string;
  /** Defaults to assertionMethod. */
  proofPurpose?: ProofPurpose;
  /** Defaults to now, in whole seconds. */
  created?: Date | string;
  domain?: string;
  challenge?: string;
}

/**
 * Signs a document: returns a copy with the proof appended to any proofs it already carries (an object
 * becomes an array), and the suite's context appended to `@context` when no context that defines the
 * suite's terms is there yet.
 *
 *     const signed = await signDocument(credential, { key, verificationMethod: 'did:web:example.com#key-1', domain });
 */
export async function signDocument<T extends object>(document: T, options: ProofOptions): Promise<T & SecuredDocument> {
  const proof = await createProof(document, options);
  return attachProof(document, proof);
}

/**
 * Creates a proof over the document without attaching it (a witness returns only its proof). The proof is
 * computed over the document as `attachProof` will leave it, i.e. with the suite context present.
 */
export async function createProof(document: object, options: ProofOptions): Promise<DataIntegrityProof> {
  const securedDocument = asSecuredDocument(document);
  const suite = suiteFor(checkedType(options.type));
  if (!suite.keyTypes.includes(options.key.type)) {
    throw badRequest(
      `${suite.type} cannot sign with a ${options.key.type} key (it takes ${suite.keyTypes.join(', ')})`,
    );
  }
  if (!options.key.isPrivate) throw badRequest('signing needs a private key');
  const proof = proofSkeleton(suite, options);
  const withContext = withSuiteContext(securedDocument, suite);
  const [proofHash, documentHash] = await Promise.all([
    proofOptionsDigest(proof, withContext['@context'], options),
    documentDigest(withContext, options),
  ]);
  return { ...proof, [suite.signatureMember]: suite.sign(verifyData(proofHash, documentHash), options.key) };
}

/** A copy of the document with the proof appended and the proof's suite context ensured. */
export function attachProof<T extends object>(document: T, proof: DataIntegrityProof): T & SecuredDocument {
  const securedDocument = asSecuredDocument(document);
  const withContext = withSuiteContext(securedDocument, suiteFor(checkedType(proof.type)));
  const existing = securedDocument.proof;
  const proofs = existing === undefined ? proof : [...(Array.isArray(existing) ? existing : [existing]), proof];
  return { ...withContext, proof: proofs } as T & SecuredDocument;
}

function proofSkeleton(suite: Suite, options: ProofOptions): DataIntegrityProof {
  const { verificationMethod, domain, challenge } = options;
  const proofPurpose = options.proofPurpose ?? 'assertionMethod';
  if (typeof verificationMethod !== 'string' || verificationMethod.length === 0)
    throw badRequest('verificationMethod must be a non-empty string');
  if (!isProofPurpose(proofPurpose)) throw badRequest(`unsupported proof purpose ${String(proofPurpose)}`);
  if (domain !== undefined && (typeof domain !== 'string' || domain.length === 0))
    throw badRequest('domain must be a non-empty string');
  if (challenge !== undefined && (typeof challenge !== 'string' || challenge.length === 0))
    throw badRequest('challenge must be a non-empty string');
  const proof: DataIntegrityProof = {
    type: suite.type,
    created: createdValue(options.created),
    verificationMethod,
    proofPurpose,
  };
  if (domain !== undefined) proof.domain = domain;
  if (challenge !== undefined) proof.challenge = challenge;
  return proof;
}

function createdValue(created: Date | string | undefined): string {
  if (created === undefined) return formatDateTimeStamp(new Date());
  if (created instanceof Date) {
    if (Number.isNaN(created.getTime())) throw badRequest('created is an invalid date');
    return formatDateTimeStamp(created);
  }
  if (!isDateTimeStamp(created))
    throw badRequest(`created must be an ISO 8601 date-time with a zone, not ${JSON.stringify(created)}`);
  return created;
}

function checkedType(type: unknown): ProofType {
  const proofType = type ?? 'Ed25519Signature2020';
  if (!isProofType(proofType)) throw badRequest(`unsupported proof type ${JSON.stringify(proofType)}`);
  return proofType;
}

/** The document with the suite context appended to `@context` unless a compatible context is already there. */
function withSuiteContext(document: SecuredDocument, suite: Suite): SecuredDocument {
  const context = document['@context'];
  if (context === undefined) throw badRequest('a document to sign needs an @context');
  const contexts = Array.isArray(context) ? context : [context];
  if (contexts.some((entry) => typeof entry === 'string' && suite.compatibleContexts.includes(entry))) return document;
  return { ...document, '@context': [...contexts, suite.contextUrl] };
}

function asSecuredDocument(document: unknown): SecuredDocument {
  if (typeof document !== 'object' || document === null || Array.isArray(document))
    throw badRequest('a document to sign must be a JSON object');
  const { proof } = document as SecuredDocument;
  if (proof !== undefined && (typeof proof !== 'object' || proof === null))
    throw badRequest('proof must be an object or an array of objects');
  return document as SecuredDocument;
}
