import { createPrivateKey, sign as opensslSign } from 'node:crypto';
import { ed25519 } from '@noble/curves/ed25519.js';
import { p256, p384 } from '@noble/curves/nist.js';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { describe, expect, it } from 'vitest';
import { KeyPair, isSecp256k1LowS, signJws, verifyJws } from './index.js';

/**
 * Cross-checks against @noble/curves, an independent pure-JS implementation: what we sign, it verifies;
 * what it signs, we verify; both derive the same public keys and shared secrets.
 */
const messages = Array.from({ length: 50 }, (_, i) => Buffer.from(`interop message ${i}`));
const secretOf = (key: KeyPair): Uint8Array => Buffer.from(key.privateJwk().d!, 'base64url');

describe('secp256k1 against @noble/curves', () => {
  const key = KeyPair.generate('secp256k1');

  it('derives the same public key in both point forms', () => {
    expect(Buffer.from(secp256k1.getPublicKey(secretOf(key), false)).equals(key.publicKeyBytes())).toBe(true);
    const compressed = secp256k1.getPublicKey(secretOf(key), true);
    expect(KeyPair.fromPublicKeyBytes('secp256k1', compressed).publicKey.equals(key.publicKey)).toBe(true);
  });

  it('emits low-S signatures that noble accepts with its strict default', () => {
    for (const message of messages) {
      const signature = key.sign(message);
      expect(isSecp256k1LowS(signature)).toBe(true);
      expect(secp256k1.verify(signature, message, key.publicKeyBytes())).toBe(true);
    }
  });

  it('accepts the high-S signatures OpenSSL produces, as Orb does', () => {
    const privateKey = createPrivateKey({ key: key.privateJwk(), format: 'jwk' });
    let highS = 0;
    for (const message of messages) {
      const raw = opensslSign('sha256', message, { key: privateKey, dsaEncoding: 'ieee-p1363' });
      expect(key.verify(message, raw)).toBe(true);
      expect(secp256k1.verify(raw, message, key.publicKeyBytes(), { lowS: false })).toBe(true);
      if (!isSecp256k1LowS(raw)) {
        highS++;
        expect(secp256k1.verify(raw, message, key.publicKeyBytes())).toBe(false);
      }
    }
    // Half of OpenSSL's signatures are high-S; 50 messages without one would be a 2^-50 event.
    expect(highS).toBeGreaterThan(0);
  });

  it('verifies signatures noble makes, and a JWS signed with a noble signature', () => {
    for (const message of messages) expect(key.verify(message, secp256k1.sign(message, secretOf(key)))).toBe(true);
    const input = `${Buffer.from('{"alg":"ES256K"}').toString('base64url')}.${Buffer.from('{}').toString('base64url')}`;
    const signature = Buffer.from(secp256k1.sign(Buffer.from(input), secretOf(key))).toString('base64url');
    expect(verifyJws(`${input}.${signature}`, key.publicJwk()).payload.toString()).toBe('{}');
  });

  it('verifies a JWS we sign with noble', () => {
    const [header, payload, signature] = signJws('{"a":1}', key).split('.') as [string, string, string];
    expect(
      secp256k1.verify(Buffer.from(signature, 'base64url'), Buffer.from(`${header}.${payload}`), key.publicKeyBytes()),
    ).toBe(true);
  });
});

describe('P-256 and P-384 against @noble/curves', () => {
  it('P-256 signatures verify both ways and keys agree', () => {
    const key = KeyPair.generate('P-256');
    expect(Buffer.from(p256.getPublicKey(secretOf(key), false)).equals(key.publicKeyBytes())).toBe(true);
    for (const message of messages.slice(0, 20)) {
      expect(p256.verify(key.sign(message), message, key.publicKeyBytes(), { lowS: false })).toBe(true);
      expect(key.verify(message, p256.sign(message, secretOf(key)))).toBe(true);
    }
    const peer = KeyPair.generate('P-256');
    const nobleShared = p256.getSharedSecret(secretOf(key), peer.publicKeyBytes()).subarray(1);
    expect(key.ecdh(peer.toPublic()).equals(Buffer.from(nobleShared))).toBe(true);
  });

  it('P-384 uses SHA-384 (noble prehashes with SHA-384 for this curve)', () => {
    const key = KeyPair.generate('P-384');
    for (const message of messages.slice(0, 5)) {
      expect(p384.verify(key.sign(message), message, key.publicKeyBytes(), { lowS: false })).toBe(true);
      expect(key.verify(message, p384.sign(message, secretOf(key)))).toBe(true);
    }
  });
});

describe('Ed25519 against @noble/curves', () => {
  it('signs identically (deterministic) and verifies both ways', () => {
    const key = KeyPair.generate('Ed25519');
    const seed = secretOf(key);
    expect(Buffer.from(ed25519.getPublicKey(seed)).equals(key.publicKeyBytes())).toBe(true);
    for (const message of messages.slice(0, 10)) {
      expect(Buffer.from(ed25519.sign(message, seed)).equals(key.sign(message))).toBe(true);
      expect(ed25519.verify(key.sign(message), message, key.publicKeyBytes())).toBe(true);
    }
  });
});
