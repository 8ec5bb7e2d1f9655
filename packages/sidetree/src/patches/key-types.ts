import type { VerificationRelationship } from './types.js';

/**
 * Which document key types may serve which verification relationship (Orb's table), and the
 * JSON-LD suite context each type brings into a rendered did:node document.
 */
const SIGNING_TYPES = [
  'Bls12381G2Key2020',
  'JsonWebKey2020',
  'EcdsaSecp256k1VerificationKey2019',
  'Ed25519VerificationKey2018',
  'Ed25519VerificationKey2020',
] as const;
const KEY_AGREEMENT_TYPES = [
  'Bls12381G2Key2020',
  'JsonWebKey2020',
  'EcdsaSecp256k1VerificationKey2019',
  'X25519KeyAgreementKey2019',
] as const;

export const KEY_TYPES_FOR_RELATIONSHIP: Readonly<Record<VerificationRelationship, ReadonlySet<string>>> = {
  authentication: new Set(SIGNING_TYPES),
  assertionMethod: new Set(SIGNING_TYPES),
  capabilityDelegation: new Set(SIGNING_TYPES),
  capabilityInvocation: new Set(SIGNING_TYPES),
  keyAgreement: new Set(KEY_AGREEMENT_TYPES),
};

/** Types allowed for a key without `purposes` (listed in verificationMethod only). */
export const GENERAL_KEY_TYPES: ReadonlySet<string> = new Set([...SIGNING_TYPES, ...KEY_AGREEMENT_TYPES]);

export const SUITE_CONTEXT_OF_KEY_TYPE: Readonly<Record<string, string>> = {
  JsonWebKey2020: 'https://w3id.org/security/suites/jws-2020/v1',
  Ed25519VerificationKey2018: 'https://w3id.org/security/suites/ed25519-2018/v1',
  Ed25519VerificationKey2020: 'https://w3id.org/security/suites/ed25519-2020/v1',
  EcdsaSecp256k1VerificationKey2019: 'https://w3id.org/security/suites/secp256k1-2019/v1',
  X25519KeyAgreementKey2019: 'https://w3id.org/security/suites/x25519-2019/v1',
  Bls12381G2Key2020: 'https://w3id.org/security/suites/bls12381-2020/v1',
};

/** Key types whose JWK the renderer turns into raw Ed25519 key encodings. */
export const ED25519_KEY_TYPES: ReadonlySet<string> = new Set([
  'Ed25519VerificationKey2018',
  'Ed25519VerificationKey2020',
]);
