import type { Cryptosuite } from '@anchor/common/jsonld';
import type { ProfileKeyType } from '../keys/signing-keys.js';

/**
 * The proof suites a profile signs with (`signatureType`): the Linked Data suites by their proof type, the W3C
 * Data Integrity cryptosuites (proof type DataIntegrityProof) by their cryptosuite name.
 */
export const SIGNATURE_TYPES = [
  'Ed25519Signature2018',
  'Ed25519Signature2020',
  'JsonWebSignature2020',
  'eddsa-rdfc-2022',
  'ecdsa-rdfc-2019',
] as const;
export type SignatureType = (typeof SIGNATURE_TYPES)[number];

/** vc-rest's `signatureRepresentation`: 0 = proofValue, 1 = jws. */
export type SignatureRepresentation = 0 | 1;
export const PROOF_VALUE = 0;
export const JWS = 1;

interface SuiteFacts {
  keyTypes: readonly ProfileKeyType[];
  /** The one representation the suite writes: a detached JWS (`jws`) or a multibase `proofValue`. */
  representation: SignatureRepresentation;
}

const SUITES: Readonly<Record<SignatureType, SuiteFacts>> = {
  Ed25519Signature2018: { keyTypes: ['Ed25519'], representation: JWS },
  Ed25519Signature2020: { keyTypes: ['Ed25519'], representation: PROOF_VALUE },
  JsonWebSignature2020: { keyTypes: ['Ed25519', 'P-256'], representation: JWS },
  'eddsa-rdfc-2022': { keyTypes: ['Ed25519'], representation: PROOF_VALUE },
  'ecdsa-rdfc-2019': { keyTypes: ['P-256'], representation: PROOF_VALUE },
};

export function isSignatureType(value: unknown): value is SignatureType {
  return typeof value === 'string' && (SIGNATURE_TYPES as readonly string[]).includes(value);
}

export function suiteFacts(type: SignatureType): SuiteFacts {
  return SUITES[type];
}

/** The JSON-LD proof options for a suite: the proof type, and the cryptosuite of a Data Integrity proof. */
export function proofTypeOf(type: SignatureType): { type: string; cryptosuite?: Cryptosuite } {
  return type === 'eddsa-rdfc-2022' || type === 'ecdsa-rdfc-2019'
    ? { type: 'DataIntegrityProof', cryptosuite: type }
    : { type };
}

export function representationName(value: SignatureRepresentation): 'proofValue' | 'jws' {
  return value === JWS ? 'jws' : 'proofValue';
}
