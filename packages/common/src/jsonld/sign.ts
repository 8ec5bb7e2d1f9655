import { localSigner, type KeyPair, type Signer } from '../crypto/index.js';
import { badRequest } from '../errors/index.js';
import { formatDateTimeStamp, isDateTimeStamp } from './date-time.js';
import {
  CanonicalDocument,
  canonicalProofOptions,
  hashData,
  proofsNamedBy,
  type ProofCanonicalizeOptions,
} from './proof-data.js';
import {
  isProofPurpose,
  isProofType,
  type Cryptosuite,
  type DataIntegrityProof,
  type ProofPurpose,
  type ProofType,
  type SecuredDocument,
} from './proof-types.js';
import { suiteFor, type Suite } from './suites.js';

export interface ProofOptions extends ProofCanonicalizeOptions {
  /**
   * Who signs: a `Signer` (a local key or a key in the kms). Its key type must be one the suite signs with.
   * Callers that hold a private key in this process may pass it as `key` instead (signed through
   * `localSigner`); exactly one of the two.
   */
  signer?: Signer;
  key?: KeyPair;
  /** Defaults to Ed25519Signature2020, or to DataIntegrityProof when a cryptosuite is given. */
  type?: ProofType;
  /** The W3C cryptosuite of a DataIntegrityProof (VC Data Model 2.0), e.g. eddsa-rdfc-2022. */
  cryptosuite?: Cryptosuite;
  /** DataIntegrityProof: the proof's id, for later proofs of a chain to name. */
  id?: string;
  /** DataIntegrityProof: ids of proofs the document already carries that this proof also covers (a chain). */
  previousProof?: string | string[];
  /** DataIntegrityProof: when the proof stops being valid. */
  expires?: Date | string;
  /** The DID URL of the key, e.g. `did:web:example.com#key-1`. */
  verificationMethod: string;
  /** Defaults to assertionMethod. */
  proofPurpose?: ProofPurpose;
  /** Defaults to now, in whole seconds. */
  created?: Date | string;
  /** A list of domains only in a DataIntegrityProof. */
  domain?: string | string[];
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
  const suite = checkedSuite(
    options.type ?? (options.cryptosuite ? 'DataIntegrityProof' : undefined),
    options.cryptosuite,
  );
  const signer = signerOf(options);
  if (!suite.keyTypes.includes(signer.type)) {
    throw badRequest(`${suite.name} cannot sign with a ${signer.type} key (it takes ${suite.keyTypes.join(', ')})`);
  }
  const proof = proofSkeleton(suite, options);
  const withContext = withSuiteContext(securedDocument, suite);
  const previousProofs = proofsNamedBy(securedDocument, proof.previousProof);
  if (!Array.isArray(previousProofs)) throw badRequest(previousProofs.error);
  const context = withContext['@context'];
  // The JCS suites put the document's context into the proof, so the proof keeps its meaning in a set or chain.
  if (suite.canonicalization === 'jcs') proof['@context'] = context;
  const hash = suite.hashFor(signer.type);
  const [proofText, documentText] = await Promise.all([
    canonicalProofOptions(proof, context, suite.canonicalization, hash, options),
    new CanonicalDocument(withContext, options).form(suite.canonicalization, hash, { previousProofs, context }),
  ]);
  const data = hashData(hash, proofText, documentText);
  return { ...proof, [suite.signatureMember]: await suite.sign(data, signer) };
}

/** A copy of the document with the proof appended and the proof's suite context ensured. */
export function attachProof<T extends object>(document: T, proof: DataIntegrityProof): T & SecuredDocument {
  const securedDocument = asSecuredDocument(document);
  const withContext = withSuiteContext(securedDocument, checkedSuite(proof.type, proof.cryptosuite));
  const existing = securedDocument.proof;
  const proofs = existing === undefined ? proof : [...(Array.isArray(existing) ? existing : [existing]), proof];
  return { ...withContext, proof: proofs } as T & SecuredDocument;
}

function signerOf(options: ProofOptions): Signer {
  if (options.signer !== undefined) {
    if (options.key !== undefined) throw badRequest('a proof takes a signer or a key, not both');
    return options.signer;
  }
  if (options.key === undefined) throw badRequest('a proof needs a signer (or a private key)');
  if (!options.key.isPrivate) throw badRequest('signing needs a private key');
  return localSigner(options.key);
}

function proofSkeleton(suite: Suite, options: ProofOptions): DataIntegrityProof {
  const { verificationMethod, domain, challenge, id, previousProof } = options;
  const proofPurpose = options.proofPurpose ?? 'assertionMethod';
  if (typeof verificationMethod !== 'string' || verificationMethod.length === 0)
    throw badRequest('verificationMethod must be a non-empty string');
  if (!isProofPurpose(proofPurpose)) throw badRequest(`unsupported proof purpose ${String(proofPurpose)}`);
  const domains = Array.isArray(domain) ? domain : [domain];
  if (domain !== undefined && (domains.length === 0 || !domains.every((d) => typeof d === 'string' && d.length > 0)))
    throw badRequest('domain must be a non-empty string or list of them');
  if (Array.isArray(domain) && suite.type !== 'DataIntegrityProof')
    throw badRequest(`a list of domains is a DataIntegrityProof member, not ${suite.type}`);
  if (challenge !== undefined && (typeof challenge !== 'string' || challenge.length === 0))
    throw badRequest('challenge must be a non-empty string');
  const chained = id !== undefined || previousProof !== undefined || options.expires !== undefined;
  if (chained && suite.type !== 'DataIntegrityProof')
    throw badRequest(`id, previousProof and expires are DataIntegrityProof members, not ${suite.type}`);
  if (id !== undefined && (typeof id !== 'string' || id.length === 0))
    throw badRequest('id must be a non-empty string');
  const proof = { type: suite.type } as DataIntegrityProof;
  if (id !== undefined) proof.id = id;
  if (suite.cryptosuite !== undefined) proof.cryptosuite = suite.cryptosuite;
  proof.created = dateTimeValue('created', options.created ?? new Date());
  if (options.expires !== undefined) proof.expires = dateTimeValue('expires', options.expires);
  proof.verificationMethod = verificationMethod;
  proof.proofPurpose = proofPurpose;
  if (previousProof !== undefined) proof.previousProof = previousProof;
  if (domain !== undefined) proof.domain = domain;
  if (challenge !== undefined) proof.challenge = challenge;
  return proof;
}

function dateTimeValue(member: string, value: Date | string): string {
  if (value instanceof Date) {
    if (Number.isNaN(value.getTime())) throw badRequest(`${member} is an invalid date`);
    return formatDateTimeStamp(value);
  }
  if (!isDateTimeStamp(value))
    throw badRequest(`${member} must be an ISO 8601 date-time with a zone, not ${JSON.stringify(value)}`);
  return value;
}

function checkedSuite(type: unknown, cryptosuite: unknown): Suite {
  const proofType = type ?? 'Ed25519Signature2020';
  if (!isProofType(proofType)) throw badRequest(`unsupported proof type ${JSON.stringify(proofType)}`);
  const suite = suiteFor(proofType, cryptosuite);
  if ('error' in suite) throw badRequest(suite.error);
  return suite;
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
