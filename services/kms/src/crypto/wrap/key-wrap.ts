import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { xchacha20poly1305 } from '@noble/ciphers/chacha.js';
import { badInput, decryptFailed } from '../errors.js';

/** RFC 3394 §2.2.3.1's default initial value. */
const RFC3394_IV = Buffer.from('a6a6a6a6a6a6a6a6', 'hex');
const XC20P_NONCE_LENGTH = 24;
const XC20P_TAG_LENGTH = 16;

function aesWrapCipher(kek: Uint8Array): string {
  if (kek.length !== 16 && kek.length !== 24 && kek.length !== 32)
    throw new Error(`an AES key-wrapping key is 16, 24 or 32 bytes, not ${kek.length}`);
  return `id-aes${kek.length * 8}-wrap`;
}

/** RFC 3394 AES key wrap (JOSE's A128KW/A256KW): the key is at least 16 bytes, a multiple of 8. */
export function aesKeyWrap(kek: Uint8Array, key: Uint8Array): Buffer {
  if (key.length < 16 || key.length % 8 !== 0)
    throw badInput(`cek must be at least 16 bytes and a multiple of 8 for AES key wrap, got ${key.length}`);
  const cipher = createCipheriv(aesWrapCipher(kek), kek, RFC3394_IV);
  return Buffer.concat([cipher.update(key), cipher.final()]);
}

export function aesKeyUnwrap(kek: Uint8Array, wrapped: Uint8Array): Buffer {
  if (wrapped.length < 24 || wrapped.length % 8 !== 0)
    throw badInput(`wrappedKey.encryptedCEK must be at least 24 bytes and a multiple of 8, got ${wrapped.length}`);
  const decipher = createDecipheriv(aesWrapCipher(kek), kek, RFC3394_IV);
  try {
    return Buffer.concat([decipher.update(wrapped), decipher.final()]);
  } catch {
    throw decryptFailed('wrappedKey: the key does not unwrap (wrong key, or tampered)');
  }
}

/** aries' XC20P key wrap: XChaCha20-Poly1305 of the key under the KEK, no associated data; nonce ‖ ciphertext ‖ tag. */
export function xc20pKeyWrap(kek: Uint8Array, key: Uint8Array): Buffer {
  if (key.length === 0) throw badInput('cek must not be empty');
  const nonce = randomBytes(XC20P_NONCE_LENGTH);
  return Buffer.concat([nonce, xchacha20poly1305(kek, nonce).encrypt(key)]);
}

export function xc20pKeyUnwrap(kek: Uint8Array, wrapped: Uint8Array): Buffer {
  if (wrapped.length <= XC20P_NONCE_LENGTH + XC20P_TAG_LENGTH)
    throw badInput(
      `wrappedKey.encryptedCEK must be longer than ${XC20P_NONCE_LENGTH + XC20P_TAG_LENGTH} bytes, got ${wrapped.length}`,
    );
  try {
    return Buffer.from(
      xchacha20poly1305(kek, wrapped.subarray(0, XC20P_NONCE_LENGTH)).decrypt(wrapped.subarray(XC20P_NONCE_LENGTH)),
    );
  } catch {
    throw decryptFailed('wrappedKey: the key does not unwrap (wrong key, or tampered)');
  }
}
