import { KeyPair } from '@anchor/common/crypto';
import { base64UrlEncode, canonicalize, encodedMultihash, SHA2_512, wrapMultihash } from '@anchor/common/encoding';
import { describe, expect, it } from 'vitest';
import { checkEncodedMultihash, commitmentFromRevealValue, hashBytes, hashCanonical, hashMatches } from './hashing.js';
import { commitmentOf, revealValueOf } from './keys/signing-key.js';
import { DID_NODE_PROTOCOL } from './protocol.js';
import { expectBadRequest } from './testing/assertions.test-helpers.js';

describe('hashing', () => {
  it('hashes like the shared multihash encoding and starts SHA2-256 values with Ei', () => {
    expect(hashBytes('abc')).toBe(encodedMultihash('abc'));
    expect(hashCanonical({ b: 1, a: [true, null] })).toBe(encodedMultihash(canonicalize({ a: [true, null], b: 1 })));
    expect(hashBytes('abc')).toMatch(/^Ei[A-D][A-Za-z0-9_-]{43}$/);
  });

  it('derives the commitment from a reveal value (hash of the digest inside the multihash)', () => {
    const jwk = KeyPair.generate('P-256').publicJwk();
    expect(commitmentFromRevealValue(revealValueOf(jwk))).toBe(commitmentOf(jwk));
    expect(commitmentFromRevealValue(revealValueOf(jwk, SHA2_512))).toBe(commitmentOf(jwk, SHA2_512));
  });

  it('compares hashes as encoded strings: a variant with other spare bits does not match', () => {
    const hash = hashBytes('content');
    const last = hash.at(-1) as string;
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    // 34 bytes leave 4 spare bits in the last character: flipping one keeps the decoded bytes.
    const variant = hash.slice(0, -1) + alphabet[alphabet.indexOf(last) ^ 1];
    expect(Buffer.from(variant, 'base64url').equals(Buffer.from(hash, 'base64url'))).toBe(true);
    expect(hashMatches(hash, 'content')).toBe(true);
    expect(hashMatches(variant, 'content')).toBe(false);
    expect(hashMatches('not a hash', 'content')).toBe(false);
    expectBadRequest(
      () => checkEncodedMultihash(variant, 'deltaHash', DID_NODE_PROTOCOL),
      'deltaHash is not canonical base64url',
    );
  });

  it('checks the digest length the code implies and the codes the protocol allows', () => {
    const short = base64UrlEncode(wrapMultihash(0x12, Buffer.alloc(31)));
    expectBadRequest(
      () => checkEncodedMultihash(short, 'revealValue', DID_NODE_PROTOCOL),
      'revealValue has a 31-byte digest; multihash code 18 needs 32',
    );
    const sha512 = hashBytes('x', SHA2_512);
    expectBadRequest(() => checkEncodedMultihash(sha512, 'revealValue', DID_NODE_PROTOCOL), 'uses multihash code 19');
    expect(
      checkEncodedMultihash(sha512, 'revealValue', { ...DID_NODE_PROTOCOL, multihashAlgorithms: [0x12, 0x13] }).code,
    ).toBe(0x13);
    expectBadRequest(
      () => checkEncodedMultihash('', 'revealValue', DID_NODE_PROTOCOL),
      'revealValue must not be empty',
    );
  });
});
