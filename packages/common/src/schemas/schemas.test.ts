import { describe, expect, it } from 'vitest';
import { AppError } from '../errors/index.js';
import {
  ACCEPT_LIST_UPDATE,
  ACTIVITY,
  ALLOWED_ORIGINS_UPDATE,
  COMPOSE_AND_ISSUE_CREDENTIAL,
  INBOX_ACTIVITY,
  ISSUE_CREDENTIAL,
  LOG_ADD_VC,
  VERIFIABLE_CREDENTIAL,
  VERIFY_CREDENTIAL,
  defineSchema,
  firstProblem,
  isValid,
  precompileSchemas,
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
  for (const [body, message] of cases) expect(rejection(schema, body), JSON.stringify(body)).toBe(`invalid request: ${message}`);
}

const SERVICE = 'https://orb.domain2.com/services/orb';

const anchorCredential = {
  '@context': ['https://www.w3.org/2018/credentials/v1', 'https://w3id.org/activityanchors/v1', 'https://w3id.org/security/suites/ed25519-2020/v1'],
  id: 'https://orb.domain1.com/vc/1e8b1c46-0a3d-4f5a-9f1e-2f6f1b8d2a11',
  type: ['VerifiableCredential', 'AnchorCredential'],
  issuer: 'https://orb.domain1.com/services/orb',
  issuanceDate: '2022-03-15T21:21:54.621Z',
  credentialSubject: { href: 'hl:uEiCJ', anchor: 'hl:uEiBu', profile: 'https://w3id.org/orb#v0', rel: 'linkset', type: ['AnchorLink'] },
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
    const updates = validate(ACCEPT_LIST_UPDATE, body);
    expect(updates[0]?.type).toBe('follow');
  });

  it('throws ONE bad_request naming the first failing path and reason', () => {
    const error = (() => {
      try {
        validate(ACCEPT_LIST_UPDATE, [{ type: 'follow' }, { type: 'like', add: ['nope'] }]);
      } catch (e) {
        return e as AppError;
      }
    })();
    expect(error?.message).toBe('invalid request: /1/type must be one of follow, invite-witness');
    expect(error?.details).toEqual({ path: '/1/type' });
  });

  it('names what was validated when told', () => {
    expect(() => validate(ALLOWED_ORIGINS_UPDATE, [], { what: 'allowed-origins update' })).toThrow('invalid allowed-origins update: / must be an object');
  });

  it('validates by registered $id as well', () => {
    expect(validate('urn:anchor:schema:node:allowed-origins-update', { add: [SERVICE] })).toEqual({ add: [SERVICE] });
    expect(() => validate('urn:anchor:schema:nothing', {})).toThrow(/no JSON schema registered as urn:anchor:schema:nothing/);
  });

  it('offers a type guard and a non-throwing probe', () => {
    const body: unknown = { add: [SERVICE] };
    expect(isValid(ALLOWED_ORIGINS_UPDATE, body)).toBe(true);
    if (isValid(ALLOWED_ORIGINS_UPDATE, body)) expect(body.add).toEqual([SERVICE]);
    expect(isValid(ALLOWED_ORIGINS_UPDATE, { add: 'x' })).toBe(false);
    expect(firstProblem(ALLOWED_ORIGINS_UPDATE, { add: 'x' })).toBe('/add must be an array');
    expect(firstProblem(ALLOWED_ORIGINS_UPDATE, {})).toBeUndefined();
  });

  it('compiles an ad-hoc schema once and reuses it', () => {
    const schema = defineSchema<{ n: number }>({ $id: 'urn:anchor:schema:test:number', type: 'object', required: ['n'], properties: { n: { type: 'integer', minimum: 1 } } });
    expect(validate(schema, { n: 2 })).toEqual({ n: 2 });
    expect(rejection(schema, { n: 0 })).toBe('invalid request: /n must be >= 1');
    expect(rejection(schema, { n: 'two' })).toBe('invalid request: /n must be an integer');
    expect(rejection(schema, {})).toBe('invalid request: /n is required');
  });
});

describe('ACCEPT_LIST_UPDATE (POST /services/node/acceptlist)', () => {
  it('accepts the shapes the spec shows', () => {
    expectAccepted(ACCEPT_LIST_UPDATE, [
      [],
      [{ type: 'follow', add: [SERVICE] }],
      [{ type: 'invite-witness', add: [SERVICE, 'did:web:orb.domain3.com:services:orb'], remove: ['https://orb.domain4.com/services/orb'] }],
      [{ type: 'follow' }],
    ]);
  });

  it('rejects everything else with the failing path', () => {
    expectRejected(ACCEPT_LIST_UPDATE, [
      [{ type: 'follow' }, '/ must be an array'],
      [[{ add: [SERVICE] }], '/0/type is required'],
      [[{ type: 'Follow' }], '/0/type must be one of follow, invite-witness'],
      [[{ type: 'follow', add: SERVICE }], '/0/add must be an array'],
      [[{ type: 'follow', add: ['not a uri'] }], '/0/add/0 must be a valid uri'],
      [[{ type: 'follow', remove: [42] }], '/0/remove/0 must be a string'],
      [[{ type: 'follow', url: [SERVICE] }], '/0/url is not allowed'],
      [[null], '/0 must be an object'],
    ]);
  });
});

describe('ALLOWED_ORIGINS_UPDATE (POST /allowedorigins)', () => {
  it('accepts add and remove lists of URIs, each optional', () => {
    expectAccepted(ALLOWED_ORIGINS_UPDATE, [{}, { add: ['https://orb.domain1.com'] }, { remove: ['ipns://k51qzi5uqu5dgkmm1afrkmex5mzpu5r774jstpxjmro6mdsaullur27nfxle1q'] }]);
  });

  it('accepts "*" (any origin), as --allowed-origins does', () => {
    expectAccepted(ALLOWED_ORIGINS_UPDATE, [{ add: ['*'] }, { remove: ['*', 'https://orb.domain1.com'] }]);
  });

  it('rejects anything else', () => {
    expectRejected(ALLOWED_ORIGINS_UPDATE, [
      [['https://orb.domain1.com'], '/ must be an object'],
      [{ add: 'https://orb.domain1.com' }, '/add must be an array'],
      [{ add: ['orb.domain1.com'] }, '/add/0 must be a URI or "*"'],
      [{ add: ['**'] }, '/add/0 must be a URI or "*"'],
      [{ replace: [] }, '/replace is not allowed'],
    ]);
  });
});

describe('ACTIVITY and INBOX_ACTIVITY (POST outbox / inbox)', () => {
  const offer = {
    '@context': ['https://www.w3.org/ns/activitystreams', 'https://w3id.org/activityanchors/v1'],
    id: 'https://orb.domain1.com/services/orb/activities/77bcd005-abb6-433d-a889-18cc1ab1e8a6',
    type: 'Offer',
    actor: 'https://orb.domain1.com/services/orb',
    to: [SERVICE, 'https://www.w3.org/ns/activitystreams#Public'],
    object: { linkset: [{ anchor: 'hl:uEiBu' }] },
    target: 'https://w3id.org/activityanchors#AnchorWitness',
    startTime: '2022-03-15T21:21:54.621Z',
    endTime: '2022-03-15T21:22:54.621Z',
  };
  const follow = { '@context': 'https://www.w3.org/ns/activitystreams', id: `${SERVICE}/activities/1`, type: 'Follow', actor: SERVICE, to: 'https://orb.domain1.com/services/orb', object: 'https://orb.domain1.com/services/orb' };
  const accept = {
    '@context': 'https://www.w3.org/ns/activitystreams',
    id: `${SERVICE}/activities/2`,
    type: 'Accept',
    actor: SERVICE,
    to: ['https://orb.domain1.com/services/orb'],
    object: offer,
    result: { type: 'AnchorReceipt', inReplyTo: 'hl:uEiBu', attachment: [{ proof: {} }] },
    extension: 'open: unknown members pass',
  };

  it('accepts the activities the federation exchanges', () => {
    expectAccepted(INBOX_ACTIVITY, [offer, follow, accept, { ...follow, type: ['Follow'] }]);
    expectAccepted(ACTIVITY, [{ type: 'Invite', object: 'https://w3id.org/activityanchors#AnchorWitness', target: SERVICE }]);
  });

  it('rejects a malformed envelope', () => {
    expectRejected(INBOX_ACTIVITY, [
      [{ ...follow, actor: undefined }, '/actor is required'],
      [{ ...follow, id: undefined }, '/id is required'],
      [{ ...follow, type: '' }, '/type must be an activity type or a non-empty array of them'],
      [{ ...follow, type: [] }, '/type must be an activity type or a non-empty array of them'],
      [{ ...follow, to: 42 }, '/to must be a URI or an array of URIs'],
      [{ ...follow, object: 7 }, '/object must be a URI or an object'],
      [{ ...offer, startTime: 'yesterday' }, '/startTime must be a valid date-time'],
      [{ ...follow, actor: 'orb.domain2.com' }, '/actor must be a valid uri'],
      [{ ...follow, '@context': 5 }, '/@context must be a context URL, a context object or an array of them'],
      ['Follow', '/ must be an object'],
    ]);
    expectRejected(ACTIVITY, [[{ actor: SERVICE }, '/type is required']]);
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
      [{ ...anchorCredential, '@context': [] }, '/@context must be a context URL or a non-empty array of context URLs and objects'],
      [{ ...anchorCredential, type: ['AnchorCredential'] }, '/type must be a type or an array of types that includes VerifiableCredential'],
      [{ ...anchorCredential, issuer: { name: 'no id' } }, '/issuer must be a URI or an object with a URI id'],
      [{ ...anchorCredential, issuer: 42 }, '/issuer must be a URI or an object with a URI id'],
      [{ ...anchorCredential, issuanceDate: '15/03/2022' }, '/issuanceDate must be a valid date-time'],
      [{ ...anchorCredential, credentialSubject: 42 }, '/credentialSubject must be an object, an array of objects or a URI'],
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

describe('credential service requests', () => {
  const credential = {
    '@context': ['https://www.w3.org/2018/credentials/v1', 'https://www.w3.org/2018/credentials/examples/v1'],
    id: 'http://example.gov/credentials/3732',
    type: ['VerifiableCredential', 'UniversityDegreeCredential'],
    credentialSubject: { id: 'did:example:ebfeb1f712ebc6f1c276e12ec21' },
    issuer: { id: 'did:example:76e12ec712ebc6f1c221ebfeb1f', name: 'Example University' },
    issuanceDate: '2020-03-16T22:37:26.544Z',
    credentialStatus: { id: 'http://issuer.vc.rest.example.com:8070/status/1', type: 'CredentialStatusList2017' },
  };

  it('ISSUE_CREDENTIAL accepts the spec body and rejects a broken one', () => {
    expectAccepted(ISSUE_CREDENTIAL, [{ credential, options: { assertionMethod: 'did:example:76e12ec712ebc6f1c221ebfeb1f#key-1' } }, { credential }]);
    expectRejected(ISSUE_CREDENTIAL, [
      [{}, '/credential is required'],
      [{ credential: { ...credential, credentialSubject: undefined } }, '/credential/credentialSubject is required'],
      [{ credential: { ...credential, credentialStatus: { id: 'x:1' } } }, '/credential/credentialStatus/type is required'],
      [{ credential, options: { assertionMethod: 7 } }, '/options/assertionMethod must be a string'],
    ]);
  });

  it('COMPOSE_AND_ISSUE_CREDENTIAL accepts the spec body and rejects a broken one', () => {
    const body = {
      issuer: 'did:example:76e12ec712ebc6f1c221ebfeb1f',
      subject: 'did:example:ebfeb1f712ebc6f1c276e12ec21',
      types: ['UniversityDegreeCredential'],
      issuanceDate: '2020-03-16T22:37:26.544Z',
      expirationDate: '2030-03-16T22:37:26.544Z',
      claims: { name: 'John Smith', degree: 'Bachelor' },
      evidence: { id: 'https://example.edu/evidence/f2aeec97', type: 'DocumentVerification' },
      termsOfUse: { id: 'https://example.com/policies/credential/4', type: 'IssuerPolicy' },
      proofFormat: 'jws',
      proofFormatOptions: { kid: 'did:example:76e12ec712ebc6f1c221ebfeb1f#key-1' },
    };
    expectAccepted(COMPOSE_AND_ISSUE_CREDENTIAL, [body, {}]);
    expectRejected(COMPOSE_AND_ISSUE_CREDENTIAL, [
      [{ ...body, proofFormat: 'jwt' }, '/proofFormat must be one of jws, ldp'],
      [{ ...body, types: 'UniversityDegreeCredential' }, '/types must be an array'],
      [{ ...body, expirationDate: 'never' }, '/expirationDate must be a valid date-time'],
      [{ ...body, evidence: { type: 'DocumentVerification' } }, '/evidence/id is required'],
      [{ ...body, claims: ['a'] }, '/claims must be an object'],
    ]);
  });

  it('VERIFY_CREDENTIAL needs a credential that carries a proof', () => {
    const proof = { created: '2020-04-02T18:28:08Z', jws: 'eyJhbGciOiJFZERTQSIsImI2NCI6ZmFsc2UsImNyaXQiOlsiYjY0Il19..YtqjEYnFENT7', proofPurpose: 'assertionMethod', type: 'Ed25519Signature2018', verificationMethod: 'did:example:123#z6MksHh7qHWvybLg5QTPPdG2DgEjjduBDArV9EF9mRiRzMBN' };
    expectAccepted(VERIFY_CREDENTIAL, [{ verifiableCredential: { ...credential, proof }, options: { checks: ['proof'] } }]);
    expectRejected(VERIFY_CREDENTIAL, [
      [{ verifiableCredential: credential }, '/verifiableCredential/proof is required'],
      [{ verifiableCredential: { ...credential, proof }, options: { checks: ['signature'] } }, '/options/checks/0 must be one of proof, status'],
      [{ options: {} }, '/verifiableCredential is required'],
    ]);
  });
});

describe('precompileSchemas', () => {
  it('registers and compiles a schema at once, so it can be used by id before any validation by object', () => {
    const LATER = defineSchema<{ n: number }>({ $id: 'urn:anchor:schema:test:precompiled', type: 'object', required: ['n'], properties: { n: { type: 'integer' } } });
    expect(() => validate('urn:anchor:schema:test:precompiled', { n: 1 })).toThrow(/no JSON schema registered/);
    precompileSchemas(LATER);
    expect(validate('urn:anchor:schema:test:precompiled', { n: 1 })).toEqual({ n: 1 });
    expect(() => validate('urn:anchor:schema:test:precompiled', { n: 'x' })).toThrow(/invalid request: \/n must be an integer/);
  });
});
