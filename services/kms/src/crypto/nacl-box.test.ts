import sodium from 'libsodium-wrappers';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  KmsCryptoError,
  easy,
  easyOpen,
  exportPublicKey,
  generateKey,
  importPrivateKey,
  sealOpen,
  type KeyMaterial,
} from './index.js';

/**
 * NaCl box and sealed box against libsodium (libsodium-wrappers, an independent implementation): the kms
 * side holds an Ed25519 key and boxes with its X25519 conversion, as aries does; the other side is
 * plain libsodium, which converts the kms key's exported Ed25519 public key with
 * crypto_sign_ed25519_pk_to_curve25519.
 */
function code(fn: () => unknown): string {
  try {
    fn();
  } catch (error) {
    if (error instanceof KmsCryptoError) return error.code;
    throw error;
  }
  throw new Error('expected a KmsCryptoError');
}

const payload = Buffer.from('a payload for the box');
let ours: KeyMaterial;
let ourX25519: Uint8Array;
let theirs: { publicKey: Uint8Array; privateKey: Uint8Array };

beforeAll(async () => {
  await sodium.ready;
  const seed = sodium.randombytes_buf(32);
  ours = importPrivateKey('ED25519', { kty: 'OKP', crv: 'Ed25519', d: Buffer.from(seed).toString('base64url') });
  ourX25519 = sodium.crypto_sign_ed25519_pk_to_curve25519(exportPublicKey(ours));
  // The same conversion from the private side, as libsodium does it, lands on the same public key.
  const fromSecret = sodium.crypto_sign_ed25519_sk_to_curve25519(sodium.crypto_sign_seed_keypair(seed).privateKey);
  expect(Buffer.from(sodium.crypto_scalarmult_base(fromSecret)).equals(Buffer.from(ourX25519))).toBe(true);
  theirs = sodium.crypto_box_keypair();
});

describe('easy / easyOpen (crypto_box_easy)', () => {
  it('a box made here opens in libsodium (tag || ciphertext)', () => {
    const nonce = sodium.randombytes_buf(24);
    const box = easy(ours, payload, nonce, theirs.publicKey);
    expect(box).toHaveLength(payload.length + 16);
    expect(Buffer.from(sodium.crypto_box_open_easy(box, nonce, ourX25519, theirs.privateKey)).equals(payload)).toBe(
      true,
    );
  });

  it('a box made in libsodium opens here', () => {
    const nonce = sodium.randombytes_buf(24);
    const box = sodium.crypto_box_easy(payload, nonce, ourX25519, theirs.privateKey);
    expect(Buffer.from(easyOpen(ours, box, nonce, theirs.publicKey)).equals(payload)).toBe(true);
    expect(
      easyOpen(
        ours,
        sodium.crypto_box_easy(new Uint8Array(), nonce, ourX25519, theirs.privateKey),
        nonce,
        theirs.publicKey,
      ),
    ).toHaveLength(0);
  });

  it('another nonce, sender, recipient or an altered byte is decrypt-failed', () => {
    const nonce = sodium.randombytes_buf(24);
    const box = sodium.crypto_box_easy(payload, nonce, ourX25519, theirs.privateKey);
    const otherNonce = Buffer.from(nonce);
    otherNonce[0]! ^= 1;
    expect(code(() => easyOpen(ours, box, otherNonce, theirs.publicKey))).toBe('decrypt-failed');
    expect(code(() => easyOpen(ours, box, nonce, sodium.crypto_box_keypair().publicKey))).toBe('decrypt-failed');
    expect(code(() => easyOpen(generateKey('ED25519'), box, nonce, theirs.publicKey))).toBe('decrypt-failed');
    for (const index of [0, 15, 16, box.length - 1]) {
      const altered = Buffer.from(box);
      altered[index]! ^= 0x40;
      expect(code(() => easyOpen(ours, altered, nonce, theirs.publicKey))).toBe('decrypt-failed');
    }
  });

  it('a nonce or public key of the wrong length, a box shorter than its tag, or a low-order key is bad-input', () => {
    const nonce = sodium.randombytes_buf(24);
    expect(code(() => easy(ours, payload, nonce.subarray(0, 12), theirs.publicKey))).toBe('bad-input');
    expect(code(() => easy(ours, payload, nonce, theirs.publicKey.subarray(0, 31)))).toBe('bad-input');
    expect(code(() => easyOpen(ours, Buffer.alloc(15), nonce, theirs.publicKey))).toBe('bad-input');
    // All-zero and the other small-order points give an all-zero secret, which libsodium refuses too.
    expect(code(() => easy(ours, payload, nonce, Buffer.alloc(32)))).toBe('bad-input');
    expect(
      code(() => easyOpen(ours, Buffer.alloc(32), nonce, Buffer.concat([Buffer.from([1]), Buffer.alloc(31)]))),
    ).toBe('bad-input');
  });

  it('only ED25519 keys box (wrong-key-kind otherwise)', () => {
    const nonce = sodium.randombytes_buf(24);
    for (const type of ['ECDSAP256DER', 'X25519ECDHKW', 'AES256GCM'] as const) {
      expect(code(() => easy(generateKey(type), payload, nonce, theirs.publicKey))).toBe('wrong-key-kind');
      expect(code(() => easyOpen(generateKey(type), Buffer.alloc(32), nonce, theirs.publicKey))).toBe('wrong-key-kind');
      expect(code(() => sealOpen(generateKey(type), Buffer.alloc(64)))).toBe('wrong-key-kind');
    }
  });
});

describe('sealOpen (crypto_box_seal_open)', () => {
  it('opens what libsodium seals to the converted public key', () => {
    for (const message of [payload, new Uint8Array(), Buffer.alloc(4096, 7)]) {
      const sealed = sodium.crypto_box_seal(message, ourX25519);
      expect(Buffer.from(sealOpen(ours, sealed)).equals(Buffer.from(message))).toBe(true);
    }
  });

  it('a box sealed to another key, or altered anywhere (ephemeral key included), is decrypt-failed', () => {
    const sealed = sodium.crypto_box_seal(payload, ourX25519);
    expect(code(() => sealOpen(generateKey('ED25519'), sealed))).toBe('decrypt-failed');
    for (const index of [0, 31, 32, 47, sealed.length - 1]) {
      const altered = Buffer.from(sealed);
      altered[index]! ^= 0x01;
      expect(code(() => sealOpen(ours, altered))).toBe('decrypt-failed');
    }
    expect(code(() => sealOpen(ours, Buffer.concat([Buffer.alloc(32), sealed.subarray(32)])))).toBe('decrypt-failed');
  });

  it('shorter than an ephemeral key and a tag (48 bytes) is bad-input', () => {
    expect(code(() => sealOpen(ours, Buffer.alloc(47)))).toBe('bad-input');
    expect(code(() => sealOpen(ours, new Uint8Array()))).toBe('bad-input');
  });
});
