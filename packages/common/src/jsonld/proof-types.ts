/** The Data Integrity (Linked Data) proof suites this module creates and verifies. */
export const PROOF_TYPES = ['Ed25519Signature2020', 'Ed25519Signature2018', 'JsonWebSignature2020'] as const;
export type ProofType = (typeof PROOF_TYPES)[number];

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

export function isProofPurpose(value: unknown): value is ProofPurpose {
  return typeof value === 'string' && (PROOF_PURPOSES as readonly string[]).includes(value);
}

/** A proof as it appears in a document's `proof` member. Unknown members are kept (and signed). */
export interface DataIntegrityProof {
  type: string;
  created?: string;
  verificationMethod: string;
  proofPurpose: string;
  domain?: string;
  challenge?: string;
  /** Ed25519Signature2020: multibase base58btc signature. */
  proofValue?: string;
  /** Ed25519Signature2018 and JsonWebSignature2020: detached JWS (`<header>..<signature>`). */
  jws?: string;
  [member: string]: unknown;
}

/** A JSON-LD document that carries (or is about to carry) proofs. */
export type SecuredDocument = Record<string, unknown> & { proof?: DataIntegrityProof | DataIntegrityProof[] };
