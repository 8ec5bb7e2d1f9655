import { describe, expect, it } from 'vitest';
import {
  base64Decode,
  base64UrlDecode,
  base64UrlEncode,
  base64UrlPaddedDecode,
  base64UrlPaddedEncode,
  canonicalize,
  createHashlink,
  decodeDataUri,
  decodeHashlinkMetadata,
  decodeMultibaseMultihash,
  encodeDataUri,
  encodedMultihash,
  hashlinkMatches,
  hashlinkMetadata,
  isCanonicalBase64Url,
  matchesEncodedMultihash,
  multibaseDecode,
  multibaseEncode,
  multibaseMultihash,
  parseHashlink,
  randomBase64UrlId,
  UNPUBLISHED_ANCHOR,
} from './index.js';

// Vectors: ../shared/reference/sidetree.md §5.6 (orb hashlink tests) and §1.3 (commitments).
describe('hashlinks', () => {
  it('hashes content as Orb does', () => {
    expect(createHashlink('Hello World!')).toBe('hl:uEiB_g7Flf_H8U7ktwYFIodZd_C1LH6PWdyhK3dIAEm2QaQ');
  });

  it('encodes one link as definite-length CBOR metadata', () => {
    expect(
      createHashlink('null', ['https://orb.domain1.com/cas/uEiB0I06Yr-dJj7Xa8fNqwteKzDOUZPlQcDuMAZiS-YK5Cw']),
    ).toBe(
      'hl:uEiB0I06Yr-dJj7Xa8fNqwteKzDOUZPlQcDuMAZiS-YK5Cw:uoQ-BeEtodHRwczovL29yYi5kb21haW4xLmNvbS9jYXMvdUVpQjBJMDZZci1kSmo3WGE4Zk5xd3RlS3pET1VaUGxRY0R1TUFaaVMtWUs1Q3c',
    );
    expect(hashlinkMetadata(['https://example.com'])).toBe('uoQ-Bc2h0dHBzOi8vZXhhbXBsZS5jb20');
  });

  it('round-trips a metadata segment with two URLs', () => {
    const links = [
      'https://example.com/cas/uEiAsiwjaXOYDmOHxmvDl3Mx0TfJ0uCar5YXqumjFJUNIBg',
      'ipfs://QmUB9Nr7RpqNYQpyh4W9r3RQNttiPQ6BQ9iQLkw9LztJFz',
    ];
    const expected =
      'hl:uEiB_g7Flf_H8U7ktwYFIodZd_C1LH6PWdyhK3dIAEm2QaQ:uoQ-CeEdodHRwczovL2V4YW1wbGUuY29tL2Nhcy91RWlBc2l3amFYT1lEbU9IeG12RGwzTXgwVGZKMHVDYXI1WVhxdW1qRkpVTklCZ3g1aXBmczovL1FtVUI5TnI3UnBxTllRcHloNFc5cjNSUU50dGlQUTZCUTlpUUxrdzlMenRKRno';
    expect(createHashlink('Hello World!', links)).toBe(expected);
    expect(parseHashlink(expected)).toEqual({ resourceHash: 'uEiB_g7Flf_H8U7ktwYFIodZd_C1LH6PWdyhK3dIAEm2QaQ', links });
    expect(decodeHashlinkMetadata(expected.split(':')[2]!)).toEqual(links);
    expect(hashlinkMatches(expected, 'Hello World!')).toBe(true);
    expect(hashlinkMatches(expected, 'Hello World?')).toBe(false);
  });

  it('rejects malformed hashlinks', () => {
    expect(() => parseHashlink('hx:uEiB_g7Flf_H8U7ktwYFIodZd_C1LH6PWdyhK3dIAEm2QaQ')).toThrow(/invalid hashlink/);
    expect(() => parseHashlink('hl:uAAA')).toThrow(/sha2-256/);
    expect(() => parseHashlink('hl:not-a-hash')).toThrow(/resource hash/);
    expect(() => parseHashlink('hl:uEiB_g7Flf_H8U7ktwYFIodZd_C1LH6PWdyhK3dIAEm2QaQ:uAAAA')).toThrow(/metadata/);
    expect(() => parseHashlink('hl:a:b:c')).toThrow();
  });
});

describe('multihash and multibase', () => {
  it('encodes the unpublished placeholder as the empty identity multihash', () => {
    expect(multibaseEncode(Buffer.from([0, 0]))).toBe(UNPUBLISHED_ANCHOR);
    expect(decodeMultibaseMultihash(UNPUBLISHED_ANCHOR)).toEqual({ code: 0, digest: Buffer.alloc(0) });
  });

  it('computes Sidetree reveal values over JCS bytes', () => {
    const jwk = {
      kty: 'EC',
      crv: 'secp256k1',
      x: 'nIqlRCx0eyBSXcQnqDpReSv4zuWhwCRWssoc9L_nj6A',
      y: 'iG29VK6l2U5sKBZUSJePvyFusXgSlK2dDFlWaCM8F7k',
    };
    expect(encodedMultihash(canonicalize(jwk))).toBe('EiAJ-97Is59is6FKAProwDo870nmwCeP8n5nRRFwPpUZVQ');
    expect(matchesEncodedMultihash('EiAJ-97Is59is6FKAProwDo870nmwCeP8n5nRRFwPpUZVQ', canonicalize(jwk))).toBe(true);
    expect(matchesEncodedMultihash('EiAJ-97Is59is6FKAProwDo870nmwCeP8n5nRRFwPpUZVR', canonicalize(jwk))).toBe(false);
    expect(matchesEncodedMultihash('not base64!', canonicalize(jwk))).toBe(false);
  });

  it('converts between multibase alphabets', () => {
    const bytes = Buffer.from('anchors all the way down');
    for (const encoding of ['base64url', 'base58btc', 'base32'] as const) {
      expect(multibaseDecode(multibaseEncode(bytes, encoding))).toEqual(bytes);
    }
    expect(multibaseMultihash('Hello World!')).toBe('uEiB_g7Flf_H8U7ktwYFIodZd_C1LH6PWdyhK3dIAEm2QaQ');
    expect(() => multibaseDecode('?abc')).toThrow(/prefix/);
  });
});

describe('base64', () => {
  it('is strict about the alphabet and padding', () => {
    expect(base64UrlEncode('hi?')).toBe('aGk_');
    expect(base64UrlDecode('aGk_').toString()).toBe('hi?');
    expect(() => base64UrlDecode('aGk/')).toThrow();
    expect(() => base64UrlDecode('aGk=')).toThrow();
    expect(() => base64UrlDecode('a')).toThrow();
    expect(isCanonicalBase64Url('aGk_')).toBe(true);
    expect(isCanonicalBase64Url('aGk')).toBe(true);
    expect(isCanonicalBase64Url('aGl')).toBe(false); // spare bits set: decodes to the same bytes as aGk
    expect(base64Decode('aGk/').toString()).toBe('hi?');
    expect(() => base64Decode('aGk_')).toThrow();
  });

  it('reads and writes padded base64url (the kms wire form) strictly', () => {
    expect(base64UrlPaddedEncode('h')).toBe('aA==');
    expect(base64UrlPaddedEncode('hi?')).toBe('aGk_');
    expect(base64UrlPaddedEncode(new Uint8Array([0xfb, 0xff]))).toBe('-_8=');
    expect(base64UrlPaddedDecode('-_8=')).toEqual(Buffer.from([0xfb, 0xff]));
    expect(base64UrlPaddedDecode('')).toEqual(Buffer.alloc(0));
    for (const bad of ['aA', 'aA=', '+/8=', 'aA===', 'aB==', 'a', 'aGk_=', ' aA=='])
      expect(() => base64UrlPaddedDecode(bad), bad).toThrow(TypeError);
  });

  it('makes random ids that never start with a dash (one in 64 would, and read as an option on a command line)', () => {
    const ids = Array.from({ length: 2_000 }, () => randomBase64UrlId(15));
    expect(ids.filter((id) => id.startsWith('-'))).toEqual([]);
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids.slice(0, 50)) expect(base64UrlDecode(id)).toHaveLength(15);
  });
});

describe('JCS', () => {
  it('sorts keys and formats numbers as RFC 8785 requires', () => {
    expect(canonicalize({ beta: 'beta', alpha: 'alpha' })).toBe('{"alpha":"alpha","beta":"beta"}');
    expect(canonicalize({ n: 1e21, m: 0.000001, s: 'é\u000f', a: [true, null] })).toBe(
      '{"a":[true,null],"m":0.000001,"n":1e+21,"s":"é\\u000f"}',
    );
  });
});

describe('data URIs', () => {
  const linkset = JSON.stringify({
    linkset: [{ anchor: 'hl:uEiB_g7Flf_H8U7ktwYFIodZd_C1LH6PWdyhK3dIAEm2QaQ', note: "a b,c!'()*~" }],
  });

  it('round-trips gzip+base64', () => {
    const uri = encodeDataUri(linkset, 'gzip');
    expect(uri.startsWith('data:application/gzip;base64,H4sI')).toBe(true);
    expect(decodeDataUri(uri).toString()).toBe(linkset);
  });

  it('round-trips percent-encoded JSON the way Go escapes queries', () => {
    const uri = encodeDataUri(linkset, 'json');
    expect(uri).toMatch(/^data:application\/json,%7B%22linkset%22/);
    expect(uri).not.toMatch(/[ !'()*]/);
    expect(uri.slice('data:application/json,'.length)).not.toContain(',');
    expect(decodeDataUri(uri).toString()).toBe(linkset);
    expect(decodeDataUri('data:application/json,%7B%22a%22%3A%22b+c%22%7D').toString()).toBe('{"a":"b c"}');
  });

  it('rejects unsupported, malformed and oversized content', () => {
    expect(() => decodeDataUri('data:text/plain,hello')).toThrow(/unsupported/);
    expect(() => decodeDataUri('http://x')).toThrow(/not a data URI/);
    expect(() => decodeDataUri('data:application/gzip;base64,!!!!')).toThrow(/gzip/);
    expect(() => decodeDataUri('data:application/json,%E0%A4%A')).toThrow(/percent/);
    const bomb = encodeDataUri(Buffer.alloc(1024 * 1024), 'gzip');
    expect(() => decodeDataUri(bomb, 1024)).toThrow(/gzip/);
  });
});
