import type { Jwk } from '../crypto/index.js';

/** The verification relationships of DID Core §5.3. */
export type VerificationRelationship =
  'authentication' | 'assertionMethod' | 'keyAgreement' | 'capabilityInvocation' | 'capabilityDelegation';

export const VERIFICATION_RELATIONSHIPS: readonly VerificationRelationship[] = [
  'authentication',
  'assertionMethod',
  'keyAgreement',
  'capabilityInvocation',
  'capabilityDelegation',
];

export interface VerificationMethod {
  id: string;
  type: string;
  controller: string;
  publicKeyJwk?: Jwk;
  publicKeyMultibase?: string;
  publicKeyBase58?: string;
  [member: string]: unknown;
}

export interface Service {
  id: string;
  type: string | string[];
  serviceEndpoint: unknown;
  [member: string]: unknown;
}

/** A DID document. Relationship entries are references (absolute or `#relative`) or embedded methods. */
export interface DidDocument {
  '@context'?: unknown;
  id: string;
  controller?: string | string[];
  alsoKnownAs?: string[];
  verificationMethod?: VerificationMethod[];
  authentication?: (string | VerificationMethod)[];
  assertionMethod?: (string | VerificationMethod)[];
  keyAgreement?: (string | VerificationMethod)[];
  capabilityInvocation?: (string | VerificationMethod)[];
  capabilityDelegation?: (string | VerificationMethod)[];
  service?: Service[];
  [member: string]: unknown;
}

/** What a method resolver returns: the document and the metadata DID Core §7.1.3 describes. */
export interface DidResolutionResult {
  didDocument: DidDocument;
  didDocumentMetadata?: {
    deactivated?: boolean;
    canonicalId?: string;
    equivalentId?: string[];
    [member: string]: unknown;
  };
}
