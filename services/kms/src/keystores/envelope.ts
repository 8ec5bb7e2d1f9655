import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

/** AES-256-GCM output as stored: both parts in base64 (records are JSON). */
export interface Sealed {
  nonce: string;
  /** Ciphertext followed by the 16-byte tag. */
  data: string;
}

const NONCE_BYTES = 12;
const TAG_BYTES = 16;

/**
 * Envelope encryption at rest, one primitive for both layers: the master key seals each keystore's data key,
 * a keystore's data key seals each key version's secret. The AAD is the record's identity, so a sealed value
 * copied into another record (another keystore, key or version) does not open.
 */
export function seal(key: Uint8Array, plaintext: Uint8Array, aad: string): Sealed {
  const nonce = randomBytes(NONCE_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, nonce);
  cipher.setAAD(Buffer.from(aad, 'utf8'));
  const data = Buffer.concat([cipher.update(plaintext), cipher.final(), cipher.getAuthTag()]);
  return { nonce: nonce.toString('base64'), data: data.toString('base64') };
}

/** The plaintext, or undefined when the key, the AAD or the stored bytes do not match. */
export function open(key: Uint8Array, sealed: Sealed, aad: string): Buffer | undefined {
  const nonce = Buffer.from(sealed.nonce, 'base64');
  const data = Buffer.from(sealed.data, 'base64');
  if (nonce.length !== NONCE_BYTES || data.length < TAG_BYTES) return undefined;
  const decipher = createDecipheriv('aes-256-gcm', key, nonce);
  decipher.setAAD(Buffer.from(aad, 'utf8'));
  decipher.setAuthTag(data.subarray(data.length - TAG_BYTES));
  try {
    return Buffer.concat([decipher.update(data.subarray(0, data.length - TAG_BYTES)), decipher.final()]);
  } catch {
    return undefined;
  }
}
