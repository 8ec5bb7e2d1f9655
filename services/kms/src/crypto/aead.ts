import {
  createCipheriv,
  createDecipheriv,
  randomBytes,
  type CipherChaCha20Poly1305,
  type CipherGCM,
  type DecipherChaCha20Poly1305,
  type DecipherGCM,
} from 'node:crypto';
import { xchacha20poly1305 } from '@noble/ciphers/chacha.js';
import { badInput, decryptFailed } from './errors.js';
import { rawSecret, requireBytes, requireKind, type KeyMaterial } from './key-material.js';
import type { AeadCipher } from './key-types.js';

const TAG_LENGTH = 16;

/**
 * AEAD encryption with a fresh random nonce per call (12 bytes; 24 for XChaCha20-Poly1305), returned beside
 * `ciphertext || tag` as trustbloc/kms's REST layer returns them. Random 96-bit nonces bound an AES-GCM or
 * ChaCha20-Poly1305 key to about 2^32 messages (NIST SP 800-38D §8.3); XChaCha20's 192-bit nonce has no
 * practical bound.
 */
export function encrypt(
  m: KeyMaterial,
  plaintext: Uint8Array,
  aad: Uint8Array,
): { ciphertext: Uint8Array; nonce: Uint8Array } {
  const spec = requireKind(m, ['aead'], 'encrypt');
  const nonce = randomBytes(spec.nonceLength);
  return { ciphertext: encryptWithNonce(m, plaintext, aad, nonce), nonce };
}

/**
 * The encryption under a given nonce, for known-answer tests only: the service never chooses a nonce, since
 * a repeated (key, nonce) pair gives away the plaintexts' XOR and the authentication key.
 */
export function encryptWithNonce(
  m: KeyMaterial,
  plaintext: Uint8Array,
  aad: Uint8Array,
  nonce: Uint8Array,
): Uint8Array {
  const spec = requireKind(m, ['aead'], 'encrypt');
  requireBytes(plaintext, 'plaintext');
  requireBytes(aad, 'aad');
  requireBytes(nonce, 'nonce');
  if (nonce.length !== spec.nonceLength)
    throw badInput(`nonce must be ${spec.nonceLength} bytes for a ${m.type} key, got ${nonce.length}`);
  const key = rawSecret(m);
  if (spec.cipher === 'xchacha20-poly1305') return xchacha20poly1305(key, nonce, aad).encrypt(plaintext);
  const cipher = nodeCipher(spec.cipher, key, nonce);
  cipher.setAAD(aad, { plaintextLength: plaintext.length });
  return Buffer.concat([cipher.update(plaintext), cipher.final(), cipher.getAuthTag()]);
}

/** Opens `ciphertext || tag`; a wrong key, nonce, aad or any altered byte gives `decrypt-failed`. */
export function decrypt(m: KeyMaterial, ciphertext: Uint8Array, aad: Uint8Array, nonce: Uint8Array): Uint8Array {
  const spec = requireKind(m, ['aead'], 'decrypt');
  requireBytes(ciphertext, 'ciphertext');
  requireBytes(aad, 'aad');
  requireBytes(nonce, 'nonce');
  if (nonce.length !== spec.nonceLength)
    throw badInput(`nonce must be ${spec.nonceLength} bytes for a ${m.type} key, got ${nonce.length}`);
  if (ciphertext.length < TAG_LENGTH)
    throw badInput(`ciphertext must be at least ${TAG_LENGTH} bytes (the tag), got ${ciphertext.length}`);
  const key = rawSecret(m);
  if (spec.cipher === 'xchacha20-poly1305') {
    try {
      return xchacha20poly1305(key, nonce, aad).decrypt(ciphertext);
    } catch {
      throw decryptFailed('ciphertext could not be decrypted: wrong key, nonce or aad, or altered');
    }
  }
  const body = ciphertext.subarray(0, ciphertext.length - TAG_LENGTH);
  const decipher = nodeDecipher(spec.cipher, key, nonce);
  decipher.setAuthTag(ciphertext.subarray(ciphertext.length - TAG_LENGTH));
  decipher.setAAD(aad, { plaintextLength: body.length });
  const plaintext = decipher.update(body);
  try {
    return Buffer.concat([plaintext, decipher.final()]);
  } catch {
    plaintext.fill(0);
    throw decryptFailed('ciphertext could not be decrypted: wrong key, nonce or aad, or altered');
  }
}

type NodeAeadCipher = Exclude<AeadCipher, 'xchacha20-poly1305'>;

function nodeCipher(cipher: NodeAeadCipher, key: Uint8Array, nonce: Uint8Array): CipherGCM | CipherChaCha20Poly1305 {
  const options = { authTagLength: TAG_LENGTH };
  return cipher === 'chacha20-poly1305'
    ? createCipheriv(cipher, key, nonce, options)
    : createCipheriv(cipher, key, nonce, options);
}

function nodeDecipher(
  cipher: NodeAeadCipher,
  key: Uint8Array,
  nonce: Uint8Array,
): DecipherGCM | DecipherChaCha20Poly1305 {
  const options = { authTagLength: TAG_LENGTH };
  return cipher === 'chacha20-poly1305'
    ? createDecipheriv(cipher, key, nonce, options)
    : createDecipheriv(cipher, key, nonce, options);
}
