import { defineSchema } from '@anchor/common/schemas';
import { SIGNATURE_TYPES, type SignatureRepresentation, type SignatureType } from './signature-types.js';
import type { ProfileKeyType } from '../keys/signing-keys.js';

export type ProfileKind = 'issuer' | 'holder';
import { STATUS_PURPOSES, type StatusPurpose } from '../status-list-model/index.js';

export { STATUS_PURPOSES, type StatusPurpose };

/** `POST /profile` and `POST /holder/profile`: vc-rest's fields (holder profiles take no uri and no status). */
export interface ProfileRequest {
  name: string;
  uri?: string;
  signatureType: SignatureType;
  signatureRepresentation?: SignatureRepresentation;
  did?: string;
  didPrivateKey?: string;
  didKeyType?: 'Ed25519' | 'P256' | 'P-256';
  didKeyID?: string;
  /** vc-rest's API documents `creator` as an input; accepted as an alias of didKeyID. */
  creator?: string;
  disableVCStatus?: boolean;
  overwriteIssuer?: boolean;
  overwriteHolder?: boolean;
  credentialStatusPurposes?: StatusPurpose[];
}

const common = {
  name: {
    type: 'string',
    minLength: 1,
    maxLength: 100,
    pattern: '^[A-Za-z0-9._~-]+$',
    description: 'the profile id, used as the {profile} path segment (letters, digits, . _ ~ -)',
  },
  signatureType: { enum: [...SIGNATURE_TYPES], description: `one of ${SIGNATURE_TYPES.join(', ')}` },
  signatureRepresentation: { enum: [0, 1], description: '0 = proofValue, 1 = jws' },
  did: { type: 'string', pattern: '^did:[a-z0-9]+:.+', description: 'an existing DID to sign as' },
  didPrivateKey: {
    type: 'string',
    minLength: 1,
    description: 'base58 private key of didKeyID, imported into the key store',
  },
  didKeyType: { enum: ['Ed25519', 'P256', 'P-256'] },
  didKeyID: { type: 'string', pattern: '^did:[a-z0-9]+:[^#]+#.+', description: 'a DID URL: did#fragment' },
  creator: { type: 'string', pattern: '^did:[a-z0-9]+:[^#]+#.+', description: 'a DID URL: did#fragment' },
} as const;

export const ISSUER_PROFILE_REQUEST = defineSchema<ProfileRequest>({
  $id: 'urn:anchor:schema:vcs:issuer-profile',
  type: 'object',
  required: ['name', 'uri', 'signatureType'],
  properties: {
    ...common,
    uri: { type: 'string', format: 'uri', description: 'the issuer URI' },
    disableVCStatus: { type: 'boolean' },
    overwriteIssuer: { type: 'boolean' },
    credentialStatusPurposes: {
      type: 'array',
      minItems: 1,
      uniqueItems: true,
      items: { enum: [...STATUS_PURPOSES] },
      description: 'status entries issued credentials get (default revocation)',
    },
  },
});

export const HOLDER_PROFILE_REQUEST = defineSchema<ProfileRequest>({
  $id: 'urn:anchor:schema:vcs:holder-profile',
  type: 'object',
  required: ['name', 'signatureType'],
  properties: { ...common, overwriteHolder: { type: 'boolean' } },
});

/** A stored profile. `keyRef` and the DID's control keys never leave the service. */
export interface ProfileRecord {
  kind: ProfileKind;
  name: string;
  uri?: string;
  signatureType: SignatureType;
  signatureRepresentation: SignatureRepresentation;
  did: string;
  creator: string;
  created: string;
  didKeyType: ProfileKeyType;
  disableVCStatus?: boolean;
  overwriteIssuer?: boolean;
  overwriteHolder?: boolean;
  credentialStatusPurposes?: StatusPurpose[];
  keyRef: string;
  updateKeyRef?: string;
  recoveryKeyRef?: string;
}

/** The profile as the API shows it (vc-rest's `DataProfile`, plus didKeyType). */
export function publicProfile(record: ProfileRecord): Record<string, unknown> {
  const { keyRef: _k, updateKeyRef: _u, recoveryKeyRef: _r, kind, ...shown } = record;
  if (kind === 'holder') return shown;
  return {
    ...shown,
    disableVCStatus: record.disableVCStatus ?? false,
    overwriteIssuer: record.overwriteIssuer ?? false,
  };
}
