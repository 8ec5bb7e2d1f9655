import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { AppError } from '../errors/index.js';
import { buildDidUrl, isDid, isDidUrl, parseDid, parseDidUrl } from './index.js';

const SIDETREE_LONG_FORM = (
  JSON.parse(readFileSync('/work/shared/vectors/sidetree-dif/resolution/longFormResponseDidDocument.json', 'utf8')) as {
    didDocument: { id: string };
  }
).didDocument.id;

function badRequestMessage(fn: () => unknown): string {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).code).toBe('bad_request');
    return (error as AppError).message;
  }
  throw new Error('expected a bad_request AppError');
}

describe('parseDid', () => {
  it.each([
    ['did:example:123456789abcdefghi', 'example', '123456789abcdefghi'],
    ['did:web:w3c-ccg.github.io', 'web', 'w3c-ccg.github.io'],
    ['did:web:example.com%3A3000:user:alice', 'web', 'example.com%3A3000:user:alice'],
    [
      'did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK',
      'key',
      'z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK',
    ],
    [
      'did:orb:uAAA:EiDyOQbbZAa3aiRzeCkV7LOx3SERjjH93EXoIM3UoN4oWg',
      'orb',
      'uAAA:EiDyOQbbZAa3aiRzeCkV7LOx3SERjjH93EXoIM3UoN4oWg',
    ],
    [
      'did:orb:https:orb.domain1.com:uEiB0I06Yr-dJj7Xa8fNqwteKzDOUZPlQcDuMAZiS-YK5Cw:EiD',
      'orb',
      'https:orb.domain1.com:uEiB0I06Yr-dJj7Xa8fNqwteKzDOUZPlQcDuMAZiS-YK5Cw:EiD',
    ],
    ['did:example::a', 'example', ':a'],
    ['did:a1:_', 'a1', '_'],
  ])('parses %s', (did, method, id) => {
    expect(parseDid(did)).toEqual({ did, method, id });
    expect(isDid(did)).toBe(true);
  });

  it('parses the DIF Sidetree long-form DID (base64url with a ":" separated initial state)', () => {
    const parsed = parseDid(SIDETREE_LONG_FORM);
    expect(parsed.method).toBe('sidetree');
    expect(parsed.id.split(':')[0]).toBe('EiDyOQbbZAa3aiRzeCkV7LOx3SERjjH93EXoIM3UoN4oWg');
  });

  it.each([
    ['example:123', 'must start with "did:"'],
    ['DID:example:123', 'must start with "did:"'],
    ['did:Example:123', 'the method name must be lowercase letters and digits'],
    ['did:ex-ample:123', 'the method name must be lowercase letters and digits'],
    ['did::123', 'the method name must be lowercase'],
    ['did:example', 'the method-specific id is missing'],
    ['did:example:', 'the method-specific id is missing'],
    ['did:example:123:', 'may not end with ":"'],
    ['did:example:12 3', 'allows only letters'],
    ['did:example:%zz', 'allows only letters'],
    ['did:example:%4', 'allows only letters'],
    ['did:example:123#key', 'allows only letters'],
    ['did:example:123/path', 'allows only letters'],
  ])('rejects %s', (text, reason) => {
    expect(badRequestMessage(() => parseDid(text))).toContain(reason);
    expect(isDid(text)).toBe(false);
  });

  it('rejects values that are not strings without crashing', () => {
    expect(badRequestMessage(() => parseDid(undefined as unknown as string))).toBe(
      'invalid DID (a undefined, not a string)',
    );
    expect(badRequestMessage(() => parseDid(null as unknown as string))).toBe('invalid DID (a null, not a string)');
    expect(isDid(42)).toBe(false);
    expect(badRequestMessage(() => parseDid(`did:example:${'x'.repeat(500)} `))).toMatch(/…'/);
  });
});

describe('parseDidUrl', () => {
  it('splits path, query, fragment and decodes the query parameters', () => {
    expect(parseDidUrl('did:example:123/path/to%20x?service=files&relativeRef=%2Fa%2Fb&versionId=3#key-1')).toEqual({
      did: 'did:example:123',
      method: 'example',
      id: '123',
      didUrl: 'did:example:123/path/to%20x?service=files&relativeRef=%2Fa%2Fb&versionId=3#key-1',
      path: '/path/to%20x',
      query: 'service=files&relativeRef=%2Fa%2Fb&versionId=3',
      fragment: 'key-1',
      params: { service: 'files', relativeRef: '/a/b', versionId: '3' },
    });
  });

  it('distinguishes an absent query or fragment from an empty one', () => {
    expect(parseDidUrl('did:example:123')).toMatchObject({
      path: '',
      query: undefined,
      fragment: undefined,
      params: {},
    });
    expect(parseDidUrl('did:example:123?#')).toMatchObject({ query: '', fragment: '' });
    expect(parseDidUrl('did:example:123#z6Mk?a/b')).toMatchObject({ fragment: 'z6Mk?a/b', query: undefined });
    expect(parseDidUrl('did:example:123/')).toMatchObject({ path: '/' });
  });

  it('rejects malformed DID URLs naming the faulty part', () => {
    expect(badRequestMessage(() => parseDidUrl('did:example:123#key 1'))).toContain(
      'its path, query or fragment has characters a URL does not allow',
    );
    expect(badRequestMessage(() => parseDidUrl('did:example:123?a=%G0'))).toContain('path, query or fragment');
    expect(badRequestMessage(() => parseDidUrl('did:example:123#a#b'))).toContain('path, query or fragment');
    expect(badRequestMessage(() => parseDidUrl('did:EX:123#a'))).toContain('the method name must be lowercase');
    expect(badRequestMessage(() => parseDidUrl('https://example.com#a'))).toContain('must start with "did:"');
    expect(isDidUrl('did:example:123#key-1')).toBe(true);
    expect(isDidUrl('did:example:123#key 1')).toBe(false);
  });
});

describe('buildDidUrl', () => {
  it('assembles path, query and fragment, encoding query parameters', () => {
    expect(buildDidUrl('did:example:123', { fragment: 'key-1' })).toBe('did:example:123#key-1');
    expect(buildDidUrl('did:example:123', { path: 'a/b', query: { service: 'agent', relativeRef: '/x y' } })).toBe(
      'did:example:123/a/b?service=agent&relativeRef=%2Fx+y',
    );
    expect(buildDidUrl('did:example:123', { query: 'versionId=1', fragment: '' })).toBe('did:example:123?versionId=1#');
    const built = buildDidUrl('did:example:123', { path: '/p', query: { hl: 'zQm' }, fragment: 'f' });
    expect(parseDidUrl(built)).toMatchObject({
      did: 'did:example:123',
      path: '/p',
      params: { hl: 'zQm' },
      fragment: 'f',
    });
  });

  it('refuses a malformed DID or parts that cannot appear in a DID URL', () => {
    expect(badRequestMessage(() => buildDidUrl('did:example:123#x', { fragment: 'y' }))).toContain('invalid DID');
    expect(badRequestMessage(() => buildDidUrl('did:example:123', { fragment: 'a b' }))).toContain('invalid DID URL');
  });
});
