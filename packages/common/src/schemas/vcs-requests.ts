import type { VerifiableCredential } from './credentials.js';
import { defineSchema } from './validator.js';

/**
 * Request bodies of the credential service. Its clients are other people's software, so bodies stay open
 * to members the spec does not name (the original ignores them too); the named ones are checked.
 */

const CREDENTIAL_REF = { $ref: 'urn:anchor:schema:verifiable-credential' } as const;
const idAndType = { type: 'object', required: ['id', 'type'], properties: { id: { type: 'string', format: 'uri' }, type: { type: 'string', minLength: 1 } } } as const;

export interface IssueCredentialRequest {
  credential: VerifiableCredential;
  options?: { assertionMethod?: string; [option: string]: unknown };
}

/** POST /{profile}/credentials/issueCredential. */
export const ISSUE_CREDENTIAL = defineSchema<IssueCredentialRequest>({
  $id: 'urn:anchor:schema:vcs:issue-credential',
  type: 'object',
  required: ['credential'],
  properties: {
    credential: CREDENTIAL_REF,
    options: { type: 'object', properties: { assertionMethod: { type: 'string', format: 'uri' } } },
  },
});

export interface ComposeAndIssueCredentialRequest {
  issuer?: string;
  subject?: string;
  types?: string[];
  issuanceDate?: string;
  expirationDate?: string;
  claims?: Record<string, unknown>;
  evidence?: { id: string; type: string; [member: string]: unknown };
  termsOfUse?: { id: string; type: string; [member: string]: unknown };
  proofFormat?: 'jws' | 'ldp';
  proofFormatOptions?: { kid?: string; [option: string]: unknown };
  [member: string]: unknown;
}

/** POST /{profile}/credentials/composeAndIssueCredential. */
export const COMPOSE_AND_ISSUE_CREDENTIAL = defineSchema<ComposeAndIssueCredentialRequest>({
  $id: 'urn:anchor:schema:vcs:compose-and-issue-credential',
  type: 'object',
  properties: {
    issuer: { type: 'string', format: 'uri' },
    subject: { type: 'string', format: 'uri' },
    types: { type: 'array', items: { type: 'string', minLength: 1 } },
    issuanceDate: { type: 'string', format: 'date-time' },
    expirationDate: { type: 'string', format: 'date-time' },
    claims: { type: 'object' },
    evidence: idAndType,
    termsOfUse: idAndType,
    proofFormat: { enum: ['jws', 'ldp'] },
    proofFormatOptions: { type: 'object', properties: { kid: { type: 'string', minLength: 1 } } },
  },
});

export interface VerifyCredentialRequest {
  verifiableCredential: VerifiableCredential & { proof: Record<string, unknown> | Record<string, unknown>[] };
  options?: { checks?: string[]; domain?: string; challenge?: string; [option: string]: unknown };
}

/** POST /verifier/credentials: a credential that carries a proof, and which checks to run. */
export const VERIFY_CREDENTIAL = defineSchema<VerifyCredentialRequest>({
  $id: 'urn:anchor:schema:vcs:verify-credential',
  type: 'object',
  required: ['verifiableCredential'],
  properties: {
    verifiableCredential: { allOf: [CREDENTIAL_REF, { type: 'object', required: ['proof'] }] },
    options: {
      type: 'object',
      properties: {
        checks: { type: 'array', items: { enum: ['proof', 'status'] } },
        domain: { type: 'string' },
        challenge: { type: 'string' },
      },
    },
  },
});
