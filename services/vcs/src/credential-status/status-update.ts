import { badRequest } from '@anchor/common/errors';
import { defineSchema, validate } from '@anchor/common/schemas';
import { STATUS_PURPOSES, type StatusPurpose } from '../profiles/profile-model.js';

interface StatusChange {
  type: string;
  status: string | boolean;
  statusPurpose?: StatusPurpose;
}

const CHANGE = {
  type: 'object',
  required: ['type', 'status'],
  properties: {
    type: {
      enum: [
        'StatusList2021Entry',
        'BitstringStatusListEntry',
        'StatusList2021Credential',
        'BitstringStatusListCredential',
        'RevocationList2020Status',
      ],
      description: 'the status entry type (the list credential types of the VC-API are accepted too)',
    },
    status: {
      enum: [true, false, 'true', 'false', 'revoked', 'suspended', 'unsuspended'],
      description: 'true sets the bit, false clears it',
    },
    statusPurpose: { enum: [...STATUS_PURPOSES] },
  },
} as const;

/** `POST /{profile}/credentials/status` (vc-rest's 2021 body) and the VC-API's `POST /credentials/status`. */
export const STATUS_UPDATE_REQUEST = defineSchema<{
  credentialId: string;
  credentialStatus: StatusChange | StatusChange[];
}>({
  $id: 'urn:anchor:schema:vcs:status-update',
  type: 'object',
  required: ['credentialId', 'credentialStatus'],
  properties: {
    credentialId: { type: 'string', minLength: 1 },
    credentialStatus: {
      anyOf: [CHANGE, { type: 'array', minItems: 1, items: CHANGE }],
      description: 'a change or a list of changes',
    },
  },
});

export interface StatusUpdate {
  credentialId: string;
  changes: Array<{ purpose: StatusPurpose; value: boolean }>;
}

/** The changes a request asks for; `revoked` / `suspended` / `unsuspended` name their purpose, true/false take statusPurpose (default revocation). */
export function parseStatusUpdate(body: unknown): StatusUpdate {
  const request = validate(STATUS_UPDATE_REQUEST, body, { what: 'status request' });
  const changes = (Array.isArray(request.credentialStatus) ? request.credentialStatus : [request.credentialStatus]).map(
    (change) => {
      switch (change.status) {
        case 'revoked':
          return { purpose: 'revocation' as const, value: true };
        case 'suspended':
          return { purpose: 'suspension' as const, value: true };
        case 'unsuspended':
          return { purpose: 'suspension' as const, value: false };
        default:
          return {
            purpose: change.statusPurpose ?? 'revocation',
            value: change.status === true || change.status === 'true',
          };
      }
    },
  );
  if (new Set(changes.map((change) => change.purpose)).size !== changes.length)
    throw badRequest('credentialStatus changes one purpose twice');
  return { credentialId: request.credentialId, changes };
}
