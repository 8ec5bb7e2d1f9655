import { describe, expect, it } from 'vitest';
import { AppError } from '../errors/index.js';
import {
  LOG_ADD_VC,
  VERIFIABLE_CREDENTIAL,
  defineSchema,
  firstProblem,
  isValid,
  precompileSchemas,
  registerSchemas,
  validate,
  type Schema,
} from './index.js';

/** The message validate() throws for the data, or undefined when it passes. */
function rejection(schema: Schema<unknown>, data: unknown): string | undefined {
  try {
    validate(schema, data);
    return undefined;
  } catch (error) {
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).code).toBe('bad_request');
    return (error as AppError).message;
  }
}

function expectAccepted(schema: Schema<unknown>, bodies: unknown[]): void {
  for (const body of bodies) expect(rejection(schema, body), JSON.stringify(body)).toBeUndefined();
}

function expectRejected(schema: Schema<unknown>, cases: [unknown, string][]): void {
  for (const [body, message] of cases)
    expect(rejection(schema, body), JSON.stringify(body)).toBe(`invalid request: ${message}`);
}

const SERVICE = 'https://orb.domain2.com/services/orb';

// Two small schemas of the shapes services declare (a closed list of tagged updates, a closed object),
// to exercise the validator on its own; the services' schemas are tested where they live.
const uriList = { type: 'array', items: { type: 'string', format: 'uri' } } as const;
const LIST_UPDATE = defineSchema<{ type: 'follow' | 'invite-witness'; add?: string[]; remove?: string[] }[]>({
  $id: 'urn:anchor:schema:test:list-update',
  type: 'array',
  items: {
    type: 'object',
    required: ['type'],
    additionalProperties: false,
    properties: { type: { enum: ['follow', 'invite-witness'] }, add: uriList, remove: uriList },
  },
});
const ORIGINS_UPDATE = defineSchema<{ add?: string[]; remove?: string[] }>({
  $id: 'urn:anchor:schema:test:origins-update',
  type: 'object',
  additionalProperties: false,
  properties: { add: uriList, remove: uriList },
});
registerSchemas(LIST_UPDATE, ORIGINS_UPDATE);

const anchorCredential = {
  '@context': [
    'https://www.w3.org/2018/credentials/v1',
    'https://w3id.org/activityanchors/v1',
    'https://w3id.org/security/suites/ed25519-2020/v1',
  ],
  id: 'https://orb.domain1.com/vc/1e8b1c46-0a3d-4f5a-9f1e-2f6f1b8d2a11',
  type: ['VerifiableCredential', 'AnchorCredential'],
  issuer: 'https://orb.domain1.com/services/orb',
  issuanceDate: '2022-03-15T21:21:54.621Z',
  credentialSubject: {
    href: 'hl:uEiCJ',
    anchor: 'hl:uEiBu',
    profile: 'https://w3id.org/orb#v0',
    rel: 'linkset',
    type: ['AnchorLink'],
  },
  proof: {
    type: 'Ed25519Signature2020',
    created: '2022-03-15T21:21:54.631Z',
    domain: 'https://orb.domain1.com',
    proofPurpose: 'assertionMethod',
    proofValue: 'z3FXQjecWufY46yg5abdVZsXqLhxhueuSoZgNSARiKBk9czhSePTFehP8c3PGfb6a22gkfUKods5D2UPh1kBzfmQ',
    verificationMethod: 'did:web:orb.domain1.com#8mQv1dRZXDxEg0QDn5iOJvGSUW4UnBKwPLDPS4H8b5U',
  },
};

describe('validate', () => {
  it('returns the data, typed, when it is valid', () => {
    const body: unknown = [{ type: 'follow', add: [SERVICE] }];
    const updates = validate(LIST_UPDATE, body);
    expect(updates[0]?.type).toBe('follow');
  });

  it('throws ONE bad_request naming the first failing path and reason', () => {
    const error = (() => {
      try {
        validate(LIST_UPDATE, [{ type: 'follow' }, { type: 'like', add: ['nope'] }]);
      } catch (e) {
        return e as AppError;
      }
    })();
    expect(error?.message).toBe('invalid request: /1/type must be one of follow, invite-witness');
    expect(error?.details).toEqual({ path: '/1/type' });
  });

  it('names what was validated when told', () => {
    expect(() => validate(ORIGINS_UPDATE, [], { what: 'allowed-origins update' })).toThrow(
      'invalid allowed-origins update: / must be an object',
    );
  });

  it('validates by registered $id as well', () => {
    expect(validate('urn:anchor:schema:test:origins-update', { add: [SERVICE] })).toEqual({ add: [SERVICE] });
    expect(() => validate('urn:anchor:schema:nothing', {})).toThrow(
      /no JSON schema registered as urn:anchor:schema:nothing/,
    );
  });

  it('offers a type guard and a non-throwing probe', () => {
    const body: unknown = { add: [SERVICE] };
    expect(isValid(ORIGINS_UPDATE, body)).toBe(true);
    if (isValid(ORIGINS_UPDATE, body)) expect(body.add).toEqual([SERVICE]);
    expect(isValid(ORIGINS_UPDATE, { add: 'x' })).toBe(false);
    expect(firstProblem(ORIGINS_UPDATE, { add: 'x' })).toBe('/add must be an array');
    expect(firstProblem(ORIGINS_UPDATE, {})).toBeUndefined();
  });

  it('compiles an ad-hoc schema once and reuses it', () => {
    const schema = defineSchema<{ n: number }>({
      $id: 'urn:anchor:schema:test:number',
      type: 'object',
      required: ['n'],
      properties: { n: { type: 'integer', minimum: 1 } },
    });
    expect(validate(schema, { n: 2 })).toEqual({ n: 2 });
    expect(rejection(schema, { n: 0 })).toBe('invalid request: /n must be >= 1');
    expect(rejection(schema, { n: 'two' })).toBe('invalid request: /n must be an integer');
    expect(rejection(schema, {})).toBe('invalid request: /n is required');
  });
});

describe('LOG_ADD_VC (POST /<alias>/v1/add-vc)', () => {
  it('accepts an anchor credential, with or without proofs, and a hashlink subject', () => {
    const { proof: _proof, ...unsigned } = anchorCredential;
    expectAccepted(LOG_ADD_VC, [
      anchorCredential,
      unsigned,
      { ...anchorCredential, proof: [anchorCredential.proof, anchorCredential.proof] },
      { ...anchorCredential, credentialSubject: 'hl:uEiBu8Hq9v0OVhYV0mRN3pSvVTeSa8qqV2rh0sGmfxJ8-FQ' },
      { ...anchorCredential, issuer: { id: 'did:web:orb.domain1.com', name: 'Domain 1' } },
    ]);
  });

  it('rejects a body that is not an issued credential', () => {
    const { issuanceDate: _date, ...undated } = anchorCredential;
    expectRejected(LOG_ADD_VC, [
      [undated, '/issuanceDate is required'],
      [
        { ...anchorCredential, '@context': [] },
        '/@context must be a context URL or a non-empty array of context URLs and objects',
      ],
      [
        { ...anchorCredential, type: ['AnchorCredential'] },
        '/type must be a type or an array of types that includes VerifiableCredential',
      ],
      [{ ...anchorCredential, issuer: { name: 'no id' } }, '/issuer must be a URI or an object with a URI id'],
      [{ ...anchorCredential, issuer: 42 }, '/issuer must be a URI or an object with a URI id'],
      [{ ...anchorCredential, issuanceDate: '15/03/2022' }, '/issuanceDate must be a valid date-time'],
      [
        { ...anchorCredential, credentialSubject: 42 },
        '/credentialSubject must be an object, an array of objects or a URI',
      ],
      [{ ...anchorCredential, proof: 'signed' }, '/proof must be an object or an array of objects'],
      [[], '/ must be an object'],
    ]);
  });

  it('is stricter than the general credential schema only about issuer and date', () => {
    const { issuer: _issuer, issuanceDate: _date, ...draft } = anchorCredential;
    expect(isValid(VERIFIABLE_CREDENTIAL, draft)).toBe(true);
    expect(isValid(LOG_ADD_VC, draft)).toBe(false);
  });
});

describe('precompileSchemas', () => {
  it('registers and compiles a schema at once, so it can be used by id before any validation by object', () => {
    const LATER = defineSchema<{ n: number }>({
      $id: 'urn:anchor:schema:test:precompiled',
      type: 'object',
      required: ['n'],
      properties: { n: { type: 'integer' } },
    });
    expect(() => validate('urn:anchor:schema:test:precompiled', { n: 1 })).toThrow(/no JSON schema registered/);
    precompileSchemas(LATER);
    expect(validate('urn:anchor:schema:test:precompiled', { n: 1 })).toEqual({ n: 1 });
    expect(() => validate('urn:anchor:schema:test:precompiled', { n: 'x' })).toThrow(
      /invalid request: \/n must be an integer/,
    );
  });
});
