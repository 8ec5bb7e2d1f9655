import { AppError } from '@anchor/common/errors';
import { validate, type Schema } from '@anchor/common/schemas';
import { describe, expect, it } from 'vitest';
import { ACCEPT_LIST_UPDATE, ACTIVITY, ALLOWED_ORIGINS_UPDATE, INBOX_ACTIVITY } from './index.js';

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

describe('registration', () => {
  it('registers every node schema by $id', () => {
    expect(validate('urn:anchor:schema:node:allowed-origins-update', { add: [SERVICE] })).toEqual({ add: [SERVICE] });
    for (const schema of [ACCEPT_LIST_UPDATE, ALLOWED_ORIGINS_UPDATE, ACTIVITY, INBOX_ACTIVITY])
      expect(() => validate(schema.$id, null)).toThrow(/^invalid request: /);
  });
});

describe('ACCEPT_LIST_UPDATE (POST /services/node/acceptlist)', () => {
  it('accepts the shapes the spec shows', () => {
    expectAccepted(ACCEPT_LIST_UPDATE, [
      [],
      [{ type: 'follow', add: [SERVICE] }],
      [
        {
          type: 'invite-witness',
          add: [SERVICE, 'did:web:orb.domain3.com:services:orb'],
          remove: ['https://orb.domain4.com/services/orb'],
        },
      ],
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
    expectAccepted(ALLOWED_ORIGINS_UPDATE, [
      {},
      { add: ['https://orb.domain1.com'] },
      { remove: ['ipns://k51qzi5uqu5dgkmm1afrkmex5mzpu5r774jstpxjmro6mdsaullur27nfxle1q'] },
    ]);
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
  const follow = {
    '@context': 'https://www.w3.org/ns/activitystreams',
    id: `${SERVICE}/activities/1`,
    type: 'Follow',
    actor: SERVICE,
    to: 'https://orb.domain1.com/services/orb',
    object: 'https://orb.domain1.com/services/orb',
  };
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
    expectAccepted(ACTIVITY, [
      { type: 'Invite', object: 'https://w3id.org/activityanchors#AnchorWitness', target: SERVICE },
    ]);
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
