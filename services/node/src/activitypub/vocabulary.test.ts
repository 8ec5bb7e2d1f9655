import { canonicalBytes, formatHashlink, multibaseMultihash } from '@anchor/common/encoding';
import { describe, expect, it } from 'vitest';
import { statusOf } from './activitypub.test-helpers.js';
import { pageId, pagingOf } from './collections.js';
import {
  activityTypeOf,
  anchorHashOf,
  derivedActivityId,
  hostOf,
  readAnchorEvent,
  readAnchorEventUrls,
} from './vocabulary.js';

describe('readAnchorEvent', () => {
  const linkset = { linkset: [{ anchor: 'hl:uEiAnchor', author: [{ href: 'https://a.example.com/services/node' }] }] };
  const hash = multibaseMultihash(canonicalBytes(linkset));

  it('reads the hashlink and an embedded linkset that hashes (JCS) to it', () => {
    expect(readAnchorEvent({ type: 'AnchorEvent', url: `hl:${hash}`, object: linkset })).toEqual({
      hashlink: `hl:${hash}`,
      anchorHash: hash,
      linkset,
    });
    const withLink = formatHashlink({ resourceHash: hash, links: ['https://a.example.com/cas/x'] });
    expect(readAnchorEvent({ type: 'AnchorEvent', url: [withLink] })).toMatchObject({
      hashlink: withLink,
      anchorHash: hash,
    });
  });

  it('refuses another type, a missing or ambiguous url, and a linkset that does not match its hash', () => {
    expect(statusOf(() => readAnchorEvent({ type: 'Note', url: `hl:${hash}` }))).toBe(400);
    expect(statusOf(() => readAnchorEvent({ type: 'AnchorEvent' }))).toBe(400);
    expect(statusOf(() => readAnchorEvent({ type: 'AnchorEvent', url: [`hl:${hash}`, `hl:${hash}`] }))).toBe(400);
    expect(statusOf(() => readAnchorEvent({ type: 'AnchorEvent', url: `hl:${hash}`, object: { linkset: [] } }))).toBe(
      400,
    );
  });
});

describe('readAnchorEventUrls', () => {
  const linkset = { linkset: [{ anchor: 'hl:uEiAnchor', author: [{ href: 'https://a.example.com/services/node' }] }] };
  const hash = multibaseMultihash(canonicalBytes(linkset));
  const other = multibaseMultihash(Buffer.from('other'));
  const at = (origin: string, resourceHash = hash) =>
    formatHashlink({ resourceHash, links: [`${origin}/cas/${resourceHash}`] });

  it('reads one hashlink or a list of them, each with its hash', () => {
    expect(readAnchorEventUrls({ type: 'AnchorEvent', url: `hl:${hash}` })).toEqual([
      { hashlink: `hl:${hash}`, anchorHash: hash },
    ]);
    expect(
      readAnchorEventUrls({
        type: 'AnchorEvent',
        url: [at('https://b.example.com'), at('https://c.example.com', other)],
      }),
    ).toEqual([
      { hashlink: at('https://b.example.com'), anchorHash: hash },
      { hashlink: at('https://c.example.com', other), anchorHash: other },
    ]);
    expect(
      readAnchorEventUrls({
        type: 'AnchorEvent',
        url: [at('https://b.example.com'), at('https://c.example.com')],
        object: linkset,
      }),
    ).toHaveLength(2);
  });

  it('refuses an empty list, a member that is no hashlink, and a linkset that does not hash to every member', () => {
    expect(statusOf(() => readAnchorEventUrls({ type: 'AnchorEvent', url: [] }))).toBe(400);
    expect(statusOf(() => readAnchorEventUrls({ type: 'AnchorEvent' }))).toBe(400);
    expect(statusOf(() => readAnchorEventUrls({ type: 'Note', url: `hl:${hash}` }))).toBe(400);
    expect(
      statusOf(() => readAnchorEventUrls({ type: 'AnchorEvent', url: [`hl:${hash}`, 'https://example.com/x'] })),
    ).toBe(400);
    expect(
      statusOf(() => readAnchorEventUrls({ type: 'AnchorEvent', url: [`hl:${hash}`, { href: `hl:${hash}` }] })),
    ).toBe(400);
    expect(
      statusOf(() => readAnchorEventUrls({ type: 'AnchorEvent', url: [`hl:${hash}`, `hl:${other}`], object: linkset })),
    ).toBe(400);
  });
});

describe('vocabulary helpers', () => {
  it('an array of types must name exactly one known activity type', () => {
    expect(activityTypeOf({ type: ['Follow'] })).toBe('Follow');
    expect(activityTypeOf({ type: ['Extension', 'Like'] })).toBe('Like');
    expect(statusOf(() => activityTypeOf({ type: ['Like', 'Follow'] }))).toBe(400);
  });

  it('derived activity ids are stable, UUID-shaped and under the service', () => {
    const id = derivedActivityId('https://a.example.com/services/node', 'Accept:x');
    expect(id).toBe(derivedActivityId('https://a.example.com/services/node', 'Accept:x'));
    expect(id).not.toBe(derivedActivityId('https://a.example.com/services/node', 'Accept:y'));
    expect(id).toMatch(
      /^https:\/\/a\.example\.com\/services\/node\/activities\/[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
    );
  });

  it('hosts of service URLs and did:web services', () => {
    expect(hostOf('http://127.0.0.1:8080/services/node')).toBe('127.0.0.1:8080');
    expect(hostOf('did:web:example.com%3A8443:services:node')).toBe('example.com:8443');
    expect(hostOf('not a url')).toBeUndefined();
  });

  it('the anchor hash of a hashlink or of a bare hash', () => {
    const hash = multibaseMultihash(Buffer.from('x'));
    expect(anchorHashOf(formatHashlink({ resourceHash: hash, links: ['https://a.example.com/cas/x'] }))).toBe(hash);
    expect(anchorHashOf(hash)).toBe(hash);
  });
});

describe('paging parameters', () => {
  it('no parameters: the collection; page=true: page 0 or page-num', () => {
    expect(pagingOf(new URLSearchParams({}))).toEqual({ page: undefined });
    expect(pagingOf(new URLSearchParams({ page: 'true' }))).toEqual({ page: 0 });
    expect(pagingOf(new URLSearchParams({ page: 'true', 'page-num': '3' }))).toEqual({ page: 3 });
    expect(pageId('https://a/followers', 0)).toBe('https://a/followers?page=true');
    expect(pageId('https://a/followers', 2)).toBe('https://a/followers?page=true&page-num=2');
  });

  it('anything malformed is a 400', () => {
    expect(statusOf(() => pagingOf(new URLSearchParams({ page: 'yes' })))).toBe(400);
    expect(statusOf(() => pagingOf(new URLSearchParams({ page: 'true', 'page-num': '-1' })))).toBe(400);
    expect(statusOf(() => pagingOf(new URLSearchParams({ 'page-num': '1' })))).toBe(400);
    expect(statusOf(() => pagingOf(new URLSearchParams('page=true&page=true')))).toBe(400);
    // Cursors: base64url only, with page=true, never with page-num.
    expect(pagingOf(new URLSearchParams({ page: 'true', after: 'WyJhIiwxXQ' }))).toEqual({
      page: undefined,
      after: 'WyJhIiwxXQ',
    });
    expect(statusOf(() => pagingOf(new URLSearchParams({ page: 'true', after: 'not a cursor!' })))).toBe(400);
    expect(statusOf(() => pagingOf(new URLSearchParams({ page: 'true', after: '' })))).toBe(400);
    expect(statusOf(() => pagingOf(new URLSearchParams({ page: 'true', after: 'x'.repeat(1025) })))).toBe(400);
    expect(statusOf(() => pagingOf(new URLSearchParams({ after: 'WyJhIiwxXQ' })))).toBe(400);
    expect(statusOf(() => pagingOf(new URLSearchParams({ page: 'true', 'page-num': '1', after: 'WyJhIiwxXQ' })))).toBe(
      400,
    );
    expect(statusOf(() => pagingOf(new URLSearchParams('page=true&after=a&after=b')))).toBe(400);
  });
});
