import { base64UrlEncode, canonicalize, hashlinkMetadata, multibaseMultihash, SHA2_512 } from '@anchor/common/encoding';
import { describe, expect, it } from 'vitest';
import { hashCanonical } from '../hashing.js';
import { resolveNodeDid } from '../resolution/resolve-node-did.js';
import { expectBadRequest, expectNotFound } from '../testing/assertions.test-helpers.js';
import { TestLedger } from '../testing/ledger.test-helpers.js';
import { copy, requestFixture } from '../testing/requests.test-helpers.js';
import { canonicalDid, hashlinkDid, httpsDid, unpublishedDid } from './did-forms.js';
import { assertKnownAnchor, namesKnownAnchor } from './known-anchor.js';
import { encodeInitialState, longFormDid } from './long-form.js';
import { parseNodeDid } from './parse-node-did.js';

const fixture = requestFixture();
const suffix = fixture.didSuffix;
const anchor = multibaseMultihash('an anchor');
const earlier = multibaseMultihash('an earlier anchor');
const metadata = hashlinkMetadata([`https://node1.example.com/cas/${anchor}`]);

describe('did:node identifiers: building and parsing every form', () => {
  it('parses the unpublished, canonical, hashlink and https forms', () => {
    expect(parseNodeDid(unpublishedDid(suffix))).toMatchObject({
      suffix,
      hint: { kind: 'unpublished' },
      anchorHash: undefined,
      namespace: 'did:node',
    });
    expect(parseNodeDid(canonicalDid(anchor, suffix))).toMatchObject({
      suffix,
      hint: { kind: 'canonical', anchorHash: anchor },
      anchorHash: anchor,
    });
    const hashlinkForm = hashlinkDid(`hl:${anchor}:${metadata}`, suffix);
    expect(hashlinkForm).toBe(`did:node:hl:${anchor}:${metadata}:${suffix}`);
    expect(parseNodeDid(hashlinkForm)).toMatchObject({
      anchorHash: anchor,
      hint: {
        kind: 'hashlink',
        anchorHash: anchor,
        hashlink: `hl:${anchor}:${metadata}`,
        links: [`https://node1.example.com/cas/${anchor}`],
      },
    });
    expect(parseNodeDid(`did:node:hl:${anchor}:${suffix}`).hint).toMatchObject({ kind: 'hashlink', links: [] });
    expect(parseNodeDid(httpsDid('node1.example.com', anchor, suffix))).toMatchObject({
      anchorHash: anchor,
      hint: { kind: 'https', domain: 'node1.example.com' },
    });
    const withPort = httpsDid('localhost:8443', 'uAAA', suffix);
    expect(withPort).toBe(`did:node:https:localhost%3A8443:uAAA:${suffix}`);
    expect(parseNodeDid(withPort)).toMatchObject({
      anchorHash: undefined,
      hint: { kind: 'https', domain: 'localhost:8443', anchorHash: undefined },
    });
  });

  it('honours a configured namespace and aliases', () => {
    expect(parseNodeDid(`did:orb:uAAA:${suffix}`, { aliases: ['did:orb'] })).toMatchObject({
      namespace: 'did:node',
      suffix,
    });
    expect(parseNodeDid(`did:test:${anchor}:${suffix}`, { namespace: 'did:test' }).anchorHash).toBe(anchor);
    expectBadRequest(() => parseNodeDid(`did:orb:uAAA:${suffix}`), `'did:orb:uAAA:${suffix}' is not a did:node DID`);
  });

  it('rejects malformed identifiers with the reason', () => {
    expectBadRequest(() => parseNodeDid(`did:node:${suffix}`), 'needs an anchor hash (or uAAA) before the suffix');
    expectBadRequest(
      () => parseNodeDid('did:node:uAAA:notahash'),
      'has an invalid suffix: DID suffix is not a valid multihash',
    );
    expectBadRequest(
      () => parseNodeDid(`did:node:${multibaseMultihash('x', SHA2_512)}:${suffix}`),
      'has an invalid anchor hash',
    );
    expectBadRequest(() => parseNodeDid(`did:node:zQmHash:${suffix}`), "has an invalid anchor hash 'zQmHash'");
    expectBadRequest(
      () => parseNodeDid(`did:node:ipfs:${anchor}:${suffix}`),
      `has an unsupported hint 'ipfs:${anchor}'`,
    );
    expectBadRequest(() => parseNodeDid(`did:node:hl:${anchor}:uNotCbor:${suffix}`), 'has an invalid hashlink');
    expectBadRequest(() => parseNodeDid(`did:node:https::${anchor}:${suffix}`), 'has an empty https domain');
    expectBadRequest(() => parseNodeDid(`did:node:https:example.com:nope:${suffix}`), "invalid anchor hash 'nope'");
  });
});

describe('did:node long form', () => {
  const short = unpublishedDid(suffix);
  const long = fixture.created.longFormDid;

  it('round-trips byte for byte and yields the create operation', () => {
    expect(long).toBe(`${short}:${encodeInitialState(fixture.created.request)}`);
    expect(longFormDid(short, fixture.created.request)).toBe(long);
    const parsed = parseNodeDid(long);
    expect(parsed.suffix).toBe(suffix);
    expect(parsed.shortForm).toBe(short);
    expect(parsed.hint.kind).toBe('unpublished');
    expect(parsed.longFormCreate?.didSuffix).toBe(suffix);
    expect(parsed.longFormCreate?.anchorOrigin).toBe(fixture.created.request.suffixData.anchorOrigin);
    expect(
      parseNodeDid(`${canonicalDid(anchor, suffix)}:${encodeInitialState(fixture.created.request)}`).anchorHash,
    ).toBe(anchor);
  });

  it('accepts an inner "type":"create" (ION tooling) and keeps its bytes', () => {
    const withType = base64UrlEncode(canonicalize({ ...fixture.created.request }));
    expect(parseNodeDid(`${short}:${withType}`).longFormCreate?.didSuffix).toBe(suffix);
  });

  it('rejects initial states that are not canonical, carry other members, or do not match the suffix', () => {
    const state = { delta: fixture.created.request.delta, suffixData: fixture.created.request.suffixData };
    const spaced = base64UrlEncode(JSON.stringify(state, null, 1));
    expectBadRequest(() => parseNodeDid(`${short}:${spaced}`), 'long-form DID initial state is not canonical');
    const reordered = base64UrlEncode(JSON.stringify({ suffixData: state.suffixData, delta: state.delta }));
    expectBadRequest(() => parseNodeDid(`${short}:${reordered}`), 'long-form DID initial state is not canonical');
    expectBadRequest(
      () => parseNodeDid(`${short}:${base64UrlEncode(canonicalize({ ...state, extra: 1 }))}`),
      "long-form DID initial state has unknown member 'extra'",
    );
    expectBadRequest(
      () => parseNodeDid(`${short}:${base64UrlEncode(canonicalize({ ...state, type: 'update' }))}`),
      "long-form DID initial state type must be 'create'",
    );
    const other = requestFixture();
    expectBadRequest(
      () => parseNodeDid(`${short}:${encodeInitialState(other.created.request)}`),
      `long-form DID suffix ${suffix} does not match its initial state (which hashes to ${other.didSuffix})`,
    );
    const tampered = copy(state);
    tampered.delta.updateCommitment = hashCanonical('other');
    expectBadRequest(
      () => parseNodeDid(`${short}:${encodeInitialState(tampered)}`),
      'delta does not match suffixData.deltaHash',
    );
  });

  it('treats a last segment that is not a JSON object as part of a short form', () => {
    // A base64url segment of a JSON array is not long-form data: it is read as the suffix, and refused as one.
    expectBadRequest(() => parseNodeDid(`${short}:${base64UrlEncode('[1,2]')}`), 'has an invalid suffix');
  });
});

describe('the CID check: requested anchor hashes must be known anchors of the suffix', () => {
  it('accepts uAAA, the canonical anchor and earlier anchors; refuses made-up ones as not found', () => {
    const history = [`hl:${earlier}:${metadata}`, anchor];
    expect(namesKnownAnchor(parseNodeDid(unpublishedDid(suffix)), anchor, [])).toBe(true);
    expect(namesKnownAnchor(parseNodeDid(canonicalDid(anchor, suffix)), anchor, [])).toBe(true);
    expect(namesKnownAnchor(parseNodeDid(canonicalDid(earlier, suffix)), anchor, history)).toBe(true);
    expect(namesKnownAnchor(parseNodeDid(`did:node:hl:${earlier}:${suffix}`), anchor, [earlier])).toBe(true);
    const madeUp = multibaseMultihash('made up');
    expect(namesKnownAnchor(parseNodeDid(canonicalDid(madeUp, suffix)), anchor, history)).toBe(false);
    expectNotFound(
      () => assertKnownAnchor(parseNodeDid(canonicalDid(madeUp, suffix)), anchor, history),
      `document not found: ${madeUp} is not an anchor of DID suffix ${suffix}`,
    );
    expect(() =>
      assertKnownAnchor(parseNodeDid(httpsDid('node1.example.com', earlier, suffix)), anchor, history),
    ).not.toThrow();
  });
});

describe('resolveNodeDid: the identifier endpoint flow', () => {
  it('resolves canonical, earlier and long-form identifiers and refuses made-up anchors as not found', () => {
    const ledger = new TestLedger();
    const first = ledger.anchor([fixture.created.request]);
    const second = ledger.anchor([fixture.recover()]);
    const input = { published: ledger.published };
    expect(resolveNodeDid(parseNodeDid(canonicalDid(second, suffix)), input).canonicalReference).toBe(second);
    expect(resolveNodeDid(parseNodeDid(canonicalDid(first, suffix)), input).canonicalReference).toBe(second);
    expect(resolveNodeDid(parseNodeDid(fixture.created.longFormDid), input).published).toBe(true);
    expect(resolveNodeDid(parseNodeDid(fixture.created.longFormDid), {}).published).toBe(false);
    expectNotFound(
      () => resolveNodeDid(parseNodeDid(canonicalDid(anchor, suffix)), input),
      `${anchor} is not an anchor of DID suffix ${suffix}`,
    );
    expectNotFound(() => resolveNodeDid(parseNodeDid(unpublishedDid(suffix)), {}), `DID ${suffix} not found`);
  });
});
