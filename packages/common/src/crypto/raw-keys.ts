import { createPrivateKey, createPublicKey, ECDH, type KeyObject } from 'node:crypto';
import { badRequest } from '../errors/index.js';
import { EC_CURVES, OKP_KEY_LENGTH, type EcKeyType, type OkpKeyType } from './key-types.js';

/**
 * Conversions between raw key bytes and node:crypto KeyObjects. Ed25519 and X25519 raw keys are wrapped in
 * their fixed DER prefixes (RFC 8410): importing DER is the fastest path node offers and needs no JWK
 * round trip. EC points go through OpenSSL's own point decoder, which rejects points off the curve.
 */
const SPKI_PREFIX: Readonly<Record<OkpKeyType, Buffer>> = {
  Ed25519: Buffer.from('302a300506032b6570032100', 'hex'),
  X25519: Buffer.from('302a300506032b656e032100', 'hex'),
};
const PKCS8_PREFIX: Readonly<Record<OkpKeyType, Buffer>> = {
  Ed25519: Buffer.from('302e020100300506032b657004220420', 'hex'),
  X25519: Buffer.from('302e020100300506032b656e04220420', 'hex'),
};

function requireLength(bytes: Uint8Array, length: number, what: string): void {
  if (bytes.length !== length) throw badRequest(`${what} must be ${length} bytes, got ${bytes.length}`);
}

export function okpPublicKeyFromRaw(type: OkpKeyType, raw: Uint8Array): KeyObject {
  requireLength(raw, OKP_KEY_LENGTH, `${type} public key`);
  return createPublicKey({ key: Buffer.concat([SPKI_PREFIX[type], raw]), format: 'der', type: 'spki' });
}

export function okpPrivateKeyFromSeed(type: OkpKeyType, seed: Uint8Array): KeyObject {
  requireLength(seed, OKP_KEY_LENGTH, `${type} private key seed`);
  return createPrivateKey({ key: Buffer.concat([PKCS8_PREFIX[type], seed]), format: 'der', type: 'pkcs8' });
}

/** The raw 32-byte public key, read from the tail of the fixed-size SPKI encoding. */
export function okpRawPublicKey(key: KeyObject): Buffer {
  return key.export({ format: 'der', type: 'spki' }).subarray(-OKP_KEY_LENGTH);
}

/** The raw 32-byte private seed, read from the tail of the fixed-size PKCS#8 encoding. */
export function okpRawSeed(key: KeyObject): Buffer {
  return key.export({ format: 'der', type: 'pkcs8' }).subarray(-OKP_KEY_LENGTH);
}

/**
 * Decodes an SEC1 point (compressed `02|03 || X` or uncompressed `04 || X || Y`) to its coordinates,
 * rejecting wrong lengths, unknown prefixes and points that are not on the curve.
 */
export function decodeEcPoint(type: EcKeyType, point: Uint8Array): { x: Buffer; y: Buffer } {
  const { size, opensslName } = EC_CURVES[type];
  const prefix = point[0];
  const compressed = point.length === size + 1 && (prefix === 0x02 || prefix === 0x03);
  const uncompressed = point.length === 2 * size + 1 && prefix === 0x04;
  if (!compressed && !uncompressed) {
    throw badRequest(`${type} public key must be a ${size + 1}-byte compressed or ${2 * size + 1}-byte uncompressed point`);
  }
  let full: Buffer;
  try {
    full = ECDH.convertKey(point, opensslName, undefined, undefined, 'uncompressed') as Buffer;
  } catch {
    throw badRequest(`${type} public key is not a point on the curve`);
  }
  return { x: full.subarray(1, 1 + size), y: full.subarray(1 + size) };
}

export function compressEcPoint(type: EcKeyType, uncompressed: Uint8Array): Buffer {
  return ECDH.convertKey(uncompressed, EC_CURVES[type].opensslName, undefined, undefined, 'compressed') as Buffer;
}
