import { createPublicKey, verify as nodeVerify } from 'node:crypto';
import { isSecp256k1LowS } from '@anchor/common/crypto';
import { hmac } from '@noble/hashes/hmac.js';
import { sha256 } from '@noble/hashes/sha2.js';
import sodium from 'libsodium-wrappers';
import { describe, expect, it } from 'vitest';
import {
  KmsCryptoError,
  computeMac,
  decrypt,
  encrypt,
  exportPublicKey,
  generateKey,
  importPrivateKey,
  sign,
  verify,
  verifyMac,
  verifyWithPublicKey,
  type KmsKeyType,
} from './index.js';

function code(fn: () => unknown): string {
  try {
    fn();
  } catch (error) {
    if (error instanceof KmsCryptoError) return error.code;
    throw error;
  }
  throw new Error('expected a KmsCryptoError');
}

const message = Buffer.from('a message to sign');
const SIGNING: Array<[KmsKeyType, string | null, 'der' | 'ieee-p1363' | null]> = [
  ['ED25519', null, null],
  ['ECDSAP256DER', 'sha256', 'der'],
  ['ECDSAP384DER', 'sha384', 'der'],
  ['ECDSAP521DER', 'sha512', 'der'],
  ['ECDSAP256IEEEP1363', 'sha256', 'ieee-p1363'],
  ['ECDSAP384IEEEP1363', 'sha384', 'ieee-p1363'],
  ['ECDSAP521IEEEP1363', 'sha512', 'ieee-p1363'],
  ['ECDSASecp256k1DER', 'sha256', 'der'],
  ['ECDSASecp256k1IEEEP1363', 'sha256', 'ieee-p1363'],
];

describe('sign / verify', () => {
  it.each(SIGNING)('%s: verifies with its exported public key elsewhere (%s, %s)', (type, hash, encoding) => {
    const m = generateKey(type);
    const signature = sign(m, message);
    expect(verify(m, signature, message)).toBe(true);
    expect(verifyWithPublicKey(type, exportPublicKey(m), signature, message)).toBe(true);
    const exported = Buffer.from(exportPublicKey(m));
    if (type === 'ED25519') {
      const publicKey = createPublicKey({
        key: { kty: 'OKP', crv: 'Ed25519', x: exported.toString('base64url') },
        format: 'jwk',
      });
      expect(signature).toHaveLength(64);
      expect(nodeVerify(null, message, publicKey, signature)).toBe(true);
    } else if (encoding === 'der') {
      expect(signature[0]).toBe(0x30);
      const publicKey = createPublicKey({ key: exported, format: 'der', type: 'spki' });
      expect(nodeVerify(hash, message, { key: publicKey, dsaEncoding: 'der' }, signature)).toBe(true);
    } else {
      expect(signature).toHaveLength(exported.length - 1);
    }
  });

  it.each(SIGNING)(
    '%s: a wrong message, an altered, truncated, extended, empty or garbage signature is false, never an error',
    (type) => {
      const m = generateKey(type);
      const signature = Buffer.from(sign(m, message));
      expect(verify(m, signature, Buffer.from('another message'))).toBe(false);
      for (const index of [0, Math.floor(signature.length / 2), signature.length - 1]) {
        const altered = Buffer.from(signature);
        altered[index]! ^= 0x01;
        expect(verify(m, altered, message)).toBe(false);
      }
      expect(verify(m, signature.subarray(0, signature.length - 1), message)).toBe(false);
      expect(verify(m, Buffer.concat([signature, Buffer.from([0])]), message)).toBe(false);
      expect(verify(m, new Uint8Array(), message)).toBe(false);
      expect(verify(m, Buffer.alloc(signature.length, 0xff), message)).toBe(false);
      expect(verify(m, Buffer.alloc(4096, 0x30), message)).toBe(false);
      expect(verify(generateKey(type), signature, message)).toBe(false);
    },
  );

  it('secp256k1 signatures come out low-S (Bitcoin-lineage verifiers refuse high-S)', () => {
    const m = generateKey('ECDSASecp256k1IEEEP1363');
    for (let i = 0; i < 64; i++) expect(isSecp256k1LowS(sign(m, Buffer.from([i])))).toBe(true);
  });

  it('a key that cannot sign is wrong-key-kind; bytes that are not bytes are bad-input', () => {
    for (const type of ['AES256GCM', 'HMACSHA256Tag256', 'NISTP256ECDHKW', 'X25519ECDHKW'] as const) {
      const m = generateKey(type);
      expect(code(() => sign(m, message))).toBe('wrong-key-kind');
      expect(code(() => verify(m, Buffer.alloc(64), message))).toBe('wrong-key-kind');
    }
    expect(code(() => verifyWithPublicKey('AES256GCM', Buffer.alloc(32), Buffer.alloc(64), message))).toBe(
      'wrong-key-kind',
    );
    const m = generateKey('ED25519');
    expect(code(() => sign(m, 'text' as unknown as Uint8Array))).toBe('bad-input');
    expect(code(() => verify(m, 'sig' as unknown as Uint8Array, message))).toBe('bad-input');
  });

  it('verifyWithPublicKey refuses a public key of the wrong form or curve as bad-input', () => {
    const p256 = generateKey('ECDSAP256IEEEP1363');
    const point = Buffer.from(exportPublicKey(p256));
    const signature = sign(p256, message);
    expect(code(() => verifyWithPublicKey('ECDSAP384IEEEP1363', point, signature, message))).toBe('bad-input');
    expect(code(() => verifyWithPublicKey('ECDSAP256DER', point, signature, message))).toBe('bad-input');
    const offCurve = Buffer.from(point);
    offCurve[64]! ^= 1;
    expect(code(() => verifyWithPublicKey('ECDSAP256IEEEP1363', offCurve, signature, message))).toBe('bad-input');
    const spki = Buffer.from(exportPublicKey(generateKey('ECDSAP384DER')));
    expect(code(() => verifyWithPublicKey('ECDSAP256DER', spki, signature, message))).toBe('bad-input');
    expect(code(() => verifyWithPublicKey('ED25519', Buffer.alloc(31), Buffer.alloc(64), message))).toBe('bad-input');
  });
});

describe('encrypt / decrypt', () => {
  const AEAD: Array<[KmsKeyType, number]> = [
    ['AES128GCM', 12],
    ['AES256GCM', 12],
    ['AES256GCMNoPrefix', 12],
    ['ChaCha20Poly1305', 12],
    ['XChaCha20Poly1305', 24],
  ];
  const plaintext = Buffer.from('the plaintext, a little longer than one block of sixteen bytes');
  const aad = Buffer.from('associated data');

  it.each(AEAD)(
    '%s: round trip with a fresh %i-byte nonce each call, ciphertext = body || 16-byte tag',
    (type, nonceLength) => {
      const m = generateKey(type);
      const first = encrypt(m, plaintext, aad);
      const second = encrypt(m, plaintext, aad);
      expect(first.nonce).toHaveLength(nonceLength);
      expect(first.ciphertext).toHaveLength(plaintext.length + 16);
      expect(Buffer.from(first.nonce).equals(Buffer.from(second.nonce))).toBe(false);
      expect(Buffer.from(decrypt(m, first.ciphertext, aad, first.nonce)).equals(plaintext)).toBe(true);
      const empty = encrypt(m, new Uint8Array(), new Uint8Array());
      expect(decrypt(m, empty.ciphertext, new Uint8Array(), empty.nonce)).toHaveLength(0);
    },
  );

  it.each(AEAD)('%s: another key, nonce or aad, or any altered byte, is decrypt-failed', (type) => {
    const m = generateKey(type);
    const { ciphertext, nonce } = encrypt(m, plaintext, aad);
    expect(code(() => decrypt(generateKey(type), ciphertext, aad, nonce))).toBe('decrypt-failed');
    expect(code(() => decrypt(m, ciphertext, Buffer.from('other aad'), nonce))).toBe('decrypt-failed');
    expect(code(() => decrypt(m, ciphertext, new Uint8Array(), nonce))).toBe('decrypt-failed');
    const otherNonce = Buffer.from(nonce);
    otherNonce[0]! ^= 1;
    expect(code(() => decrypt(m, ciphertext, aad, otherNonce))).toBe('decrypt-failed');
    for (const index of [0, ciphertext.length - 17, ciphertext.length - 1]) {
      const altered = Buffer.from(ciphertext);
      altered[index]! ^= 0x80;
      expect(code(() => decrypt(m, altered, aad, nonce))).toBe('decrypt-failed');
    }
    expect(code(() => decrypt(m, ciphertext.subarray(0, ciphertext.length - 1), aad, nonce))).toBe('decrypt-failed');
  });

  it.each(AEAD)(
    '%s: a nonce of another length or a ciphertext shorter than the tag is bad-input',
    (type, nonceLength) => {
      const m = generateKey(type);
      const { ciphertext } = encrypt(m, plaintext, aad);
      expect(code(() => decrypt(m, ciphertext, aad, Buffer.alloc(nonceLength - 1)))).toBe('bad-input');
      expect(code(() => decrypt(m, ciphertext, aad, Buffer.alloc(nonceLength + 1)))).toBe('bad-input');
      expect(code(() => decrypt(m, Buffer.alloc(15), aad, Buffer.alloc(nonceLength)))).toBe('bad-input');
      expect(code(() => encrypt(m, 'text' as unknown as Uint8Array, aad))).toBe('bad-input');
    },
  );

  it('ChaCha20-Poly1305 and XChaCha20-Poly1305 open in libsodium, and libsodium boxes open here', async () => {
    await sodium.ready;
    for (const type of ['ChaCha20Poly1305', 'XChaCha20Poly1305'] as const) {
      const key = sodium.randombytes_buf(32);
      const m = importPrivateKey(type, key);
      const { ciphertext, nonce } = encrypt(m, plaintext, aad);
      const open =
        type === 'ChaCha20Poly1305'
          ? sodium.crypto_aead_chacha20poly1305_ietf_decrypt
          : sodium.crypto_aead_xchacha20poly1305_ietf_decrypt;
      const seal =
        type === 'ChaCha20Poly1305'
          ? sodium.crypto_aead_chacha20poly1305_ietf_encrypt
          : sodium.crypto_aead_xchacha20poly1305_ietf_encrypt;
      expect(Buffer.from(open(null, ciphertext, aad, nonce, key)).equals(plaintext)).toBe(true);
      const theirNonce = sodium.randombytes_buf(nonce.length);
      const theirs = seal(plaintext, aad, null, theirNonce, key);
      expect(Buffer.from(decrypt(m, theirs, aad, theirNonce)).equals(plaintext)).toBe(true);
    }
  });

  it('a key that is not an AEAD key is wrong-key-kind', () => {
    for (const type of ['ED25519', 'HMACSHA256Tag256', 'X25519ECDHKW'] as const) {
      const m = generateKey(type);
      expect(code(() => encrypt(m, plaintext, aad))).toBe('wrong-key-kind');
      expect(code(() => decrypt(m, Buffer.alloc(32), aad, Buffer.alloc(12)))).toBe('wrong-key-kind');
    }
  });
});

describe('computeMac / verifyMac', () => {
  const data = Buffer.from('data to authenticate');

  it('a 32-byte HMAC-SHA256 tag that verifies; @noble/hashes computes the same tag', () => {
    const key = Buffer.alloc(32, 3);
    const m = importPrivateKey('HMACSHA256Tag256', key);
    const mac = computeMac(m, data);
    expect(mac).toHaveLength(32);
    expect(verifyMac(m, mac, data)).toBe(true);
    expect(Buffer.from(hmac(sha256, key, data)).equals(Buffer.from(mac))).toBe(true);
  });

  it('another key or data, an altered, truncated, extended or empty tag is false, never an error', () => {
    const m = generateKey('HMACSHA256Tag256');
    const mac = Buffer.from(computeMac(m, data));
    expect(verifyMac(generateKey('HMACSHA256Tag256'), mac, data)).toBe(false);
    expect(verifyMac(m, mac, Buffer.from('other data'))).toBe(false);
    const altered = Buffer.from(mac);
    altered[31]! ^= 1;
    expect(verifyMac(m, altered, data)).toBe(false);
    expect(verifyMac(m, mac.subarray(0, 16), data)).toBe(false);
    expect(verifyMac(m, Buffer.concat([mac, Buffer.from([0])]), data)).toBe(false);
    expect(verifyMac(m, new Uint8Array(), data)).toBe(false);
  });

  it('a key that is not a MAC key is wrong-key-kind', () => {
    for (const type of ['ED25519', 'AES256GCM'] as const) {
      const m = generateKey(type);
      expect(code(() => computeMac(m, data))).toBe('wrong-key-kind');
      expect(code(() => verifyMac(m, Buffer.alloc(32), data))).toBe('wrong-key-kind');
    }
  });
});
