/** The Data Integrity (Linked Data) proof types this module creates and verifies. */
export const PROOF_TYPES = [
  'Ed25519Signature2020',
  'Ed25519Signature2018',
  'JsonWebSignature2020',
  'DataIntegrityProof',
] as const;
export type ProofType = (typeof PROOF_TYPES)[number];

/** The W3C Data Integrity cryptosuites a `DataIntegrityProof` may name (VC Data Model 2.0). */
export const CRYPTOSUITES = ['eddsa-rdfc-2022', 'eddsa-jcs-2022', 'ecdsa-rdfc-2019', 'ecdsa-jcs-2019'] as const;
export type Cryptosuite = (typeof CRYPTOSUITES)[number];

/** Verification relationships of a controller document that a proof may claim as its purpose. */
export const PROOF_PURPOSES = [
  'assertionMethod',
  'authentication',
  'capabilityInvocation',
  'capabilityDelegation',
  'keyAgreement',
] as const;
export type ProofPurpose = (typeof PROOF_PURPOSES)[number];

export function isProofType(value: unknown): value is ProofType {
  return typeof value === 'string' && (PROOF_TYPES as readonly string[]).includes(value);
}

export function isCryptosuite(value: unknown): value is Cryptosuite {
  return typeof value === 'string' && (CRYPTOSUITES as readonly string[]).includes(value);
}

export function isProofPurpose(value: unknown): value is ProofPurpose {
  return typeof value === 'string' && (PROOF_PURPOSES as readonly string[]).includes(value);
}

/** A proof as it appears in a document's `proof` member. Unknown members are kept (and signed). */
export interface DataIntegrityProof {
  type: string;
  created?: string;
  verificationMethod: string;
  proofPurpose: string;
  /** DataIntegrityProof: the cryptosuite that made the proof. */
  cryptosuite?: string;
  /** DataIntegrityProof: the proof's own id, which a later proof of a chain names in `previousProof`. */
  id?: string;
  /** DataIntegrityProof: the ids of the proofs this one also covers (a proof chain). */
  previousProof?: string | string[];
  /** DataIntegrityProof: the proof is invalid after this date-time. */
  expires?: string;
  /** A DataIntegrityProof may list several domains. */
  domain?: string | string[];
  challenge?: string;
  /** Ed25519Signature2020 and DataIntegrityProof: multibase base58btc signature. */
  proofValue?: string;
  /** Ed25519Signature2018 and JsonWebSignature2020: detached JWS (`<header>..<signature>`). */
  jws?: string;
  [member: string]: unknown;
}

/** A JSON-LD document that carries (or is about to carry) proofs. */
export type SecuredDocument = Record<string, unknown> & { proof?: DataIntegrityProof | DataIntegrityProof[] };
