import { describe, expect, it } from 'vitest';
import { expectBadRequest } from '../testing/assertions.test-helpers.js';
import { requestFixture } from '../testing/requests.test-helpers.js';
import { parseOperation } from './parse-operation.js';

/**
 * Requests JSON.parse accepts but no signed or hashed request may be: a member twice (two parsers could read
 * two operations from one request; JSON.parse keeps the last copy) and lone surrogate escapes (no UTF-8 form,
 * so no canonical form: the canonicaliser used to throw a 500 before any check).
 */
const fixture = requestFixture('Ed25519');
const create = JSON.stringify(fixture.created.request);
const ingest = (text: string) => parseOperation(text, { now: 1_700_000_000 });

describe('operation requests are read one way only', () => {
  it('refuses a duplicate member anywhere, naming it', () => {
    expect(ingest(create).type).toBe('create');
    expectBadRequest(
      () => ingest(create.replace('"suffixData":', '"type":"update","suffixData":')),
      'operation request has the member type more than once',
    );
    expectBadRequest(
      () => ingest(create.replace('"suffixData":{', '"suffixData":{"deltaHash":"x",')),
      'has the member suffixData.deltaHash more than once',
    );
    expectBadRequest(
      () => ingest(create.replace('"action":"add-public-keys"', '"action":"add-public-keys","action":"add-services"')),
      'member delta.patches[0].action more than once',
    );
  });

  it('refuses a lone surrogate escape with 400 naming the member', () => {
    const withCrv = create.replace(/"crv":"Ed25519"/, '"crv":"\\ud800"');
    expect(withCrv).not.toBe(create);
    expectBadRequest(
      () => ingest(withCrv),
      'operation request member delta.patches[0].publicKeys[0].publicKeyJwk.crv contains a lone UTF-16 surrogate escape',
    );
    expectBadRequest(
      () => ingest(create.replace('"type":"create"', '"type":"create","\\udc00":1')),
      'lone UTF-16 surrogate',
    );
  });
});
