import { defineSchema } from './validator.js';

/**
 * Verifiable credentials as JSON (the data model's shape, not its JSON-LD meaning, which the proof
 * verification checks through canonicalisation). Open: credentials carry whatever claims they like.
 */
export interface VerifiableCredential {
  '@context': string | (string | Record<string, unknown>)[];
  id?: string;
  type: string | string[];
  issuer?: string | { id: string; [member: string]: unknown };
  issuanceDate?: string;
  expirationDate?: string;
  credentialSubject: string | Record<string, unknown> | Record<string, unknown>[];
  credentialStatus?: { id: string; type: string; [member: string]: unknown };
  proof?: Record<string, unknown> | Record<string, unknown>[];
  [member: string]: unknown;
}

const credentialProperties = {
  '@context': {
    description: 'a context URL or a non-empty array of context URLs and objects',
    anyOf: [
      { type: 'string', format: 'uri' },
      { type: 'array', minItems: 1, items: { type: ['string', 'object'] } },
    ],
  },
  id: { type: 'string', format: 'uri' },
  type: {
    description: 'a type or an array of types that includes VerifiableCredential',
    anyOf: [
      { const: 'VerifiableCredential' },
      { type: 'array', items: { type: 'string' }, contains: { const: 'VerifiableCredential' } },
    ],
  },
  issuer: {
    description: 'a URI or an object with a URI id',
    anyOf: [
      { type: 'string', format: 'uri' },
      { type: 'object', required: ['id'], properties: { id: { type: 'string', format: 'uri' } } },
    ],
  },
  issuanceDate: { type: 'string', format: 'date-time' },
  expirationDate: { type: 'string', format: 'date-time' },
  credentialSubject: {
    // On the log's add-vc input the subject of an anchor credential is a bare hashlink string.
    description: 'an object, an array of objects or a URI',
    anyOf: [
      { type: 'object' },
      { type: 'array', minItems: 1, items: { type: 'object' } },
      { type: 'string', format: 'uri' },
    ],
  },
  credentialStatus: {
    type: 'object',
    required: ['id', 'type'],
    properties: { id: { type: 'string', format: 'uri' }, type: { type: 'string', minLength: 1 } },
  },
  proof: {
    description: 'an object or an array of objects',
    anyOf: [{ type: 'object' }, { type: 'array', items: { type: 'object' } }],
  },
} as const;

/** Any credential: what the credential service accepts before it fills in issuer and dates. */
export const VERIFIABLE_CREDENTIAL = defineSchema<VerifiableCredential>({
  $id: 'urn:anchor:schema:verifiable-credential',
  type: 'object',
  required: ['@context', 'type', 'credentialSubject'],
  properties: credentialProperties,
});

export type IssuedCredential = VerifiableCredential & Required<Pick<VerifiableCredential, 'issuer' | 'issuanceDate'>>;

/** POST /<alias>/v1/add-vc: a credential as issued (issuer and issuanceDate present); proofs optional. */
export const LOG_ADD_VC = defineSchema<IssuedCredential>({
  $id: 'urn:anchor:schema:vct:add-vc',
  type: 'object',
  required: ['@context', 'type', 'issuer', 'issuanceDate', 'credentialSubject'],
  properties: credentialProperties,
});
