import type { Jwk } from '@anchor/common/crypto';

/** The verification relationships a document key may serve (`purposes`). */
export type VerificationRelationship =
  'authentication' | 'assertionMethod' | 'keyAgreement' | 'capabilityDelegation' | 'capabilityInvocation';

export const VERIFICATION_RELATIONSHIPS: readonly VerificationRelationship[] = [
  'authentication',
  'assertionMethod',
  'keyAgreement',
  'capabilityDelegation',
  'capabilityInvocation',
];

/** A document public key as carried by patches and kept in the internal document (members exactly as sent). */
export interface PublicKeyEntry {
  id: string;
  type: string;
  purposes?: VerificationRelationship[];
  publicKeyJwk?: Jwk;
  publicKeyBase58?: string;
}

/** A service; members beyond id, type and serviceEndpoint (priority, recipientKeys, ...) pass through. */
export interface ServiceEntry {
  id: string;
  type: string;
  serviceEndpoint: unknown;
  [member: string]: unknown;
}

export interface ReplaceDocument {
  publicKeys?: PublicKeyEntry[];
  services?: ServiceEntry[];
}

export type Patch =
  | { action: 'add-public-keys'; publicKeys: PublicKeyEntry[] }
  | { action: 'remove-public-keys'; ids: string[] }
  | { action: 'add-services'; services: ServiceEntry[] }
  | { action: 'remove-services'; ids: string[] }
  | { action: 'add-also-known-as'; uris: string[] }
  | { action: 'remove-also-known-as'; uris: string[] }
  | { action: 'replace'; document: ReplaceDocument };

/** The internal DID document the patches build: what the resolver carries and the renderers read. */
export interface InternalDocument {
  readonly publicKeys: readonly PublicKeyEntry[];
  readonly services: readonly ServiceEntry[];
  readonly alsoKnownAs: readonly string[];
}

export const EMPTY_DOCUMENT: InternalDocument = Object.freeze({
  publicKeys: Object.freeze([]) as readonly PublicKeyEntry[],
  services: Object.freeze([]) as readonly ServiceEntry[],
  alsoKnownAs: Object.freeze([]) as readonly string[],
});
