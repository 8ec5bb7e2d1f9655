import { createECDH, createPrivateKey, createPublicKey, ECDH, randomBytes, type KeyObject } from 'node:crypto';
import { badRequest } from '../errors/index.js';
import { EC_CURVES, OKP_KEY_LENGTH, type EcKeyType, type OkpKeyType } from './key-types.js';

/**
 * Conversions between raw key bytes and node:crypto KeyObjects. Ed25519 and X25519 keys go through
 * node's JWK import and export, which set and read the raw bytes directly: the DER forms pass through
 * OpenSSL 3's encoder and decoder, ten to sixty times slower (figures in the module's README). EC points
 * go through OpenSSL's own point decoder, which rejects points off the curve.
 */
function requireLength(bytes: Uint8Array, length: number, what: string): void {
  if (bytes.length !== length) throw badRequest(`${what} must be ${length} bytes, got ${bytes.length}`);
}

export function okpPublicKeyFromRaw(type: OkpKeyType, raw: Uint8Array): KeyObject {
  requireLength(raw, OKP_KEY_LENGTH, `${type} public key`);
  return createPublicKey({ key: { kty: 'OKP', crv: type, x: Buffer.from(raw).toString('base64url') }, format: 'jwk' });
}

export function okpPrivateKeyFromSeed(type: OkpKeyType, seed: Uint8Array): KeyObject {
  requireLength(seed, OKP_KEY_LENGTH, `${type} private key seed`);
  // Node (20, 22) builds an OKP private key from `d` alone: x only has to be a string, the public half is derived.
  return createPrivateKey({
    key: { kty: 'OKP', crv: type, d: Buffer.from(seed).toString('base64url'), x: '' },
    format: 'jwk',
  });
}

/** The raw 32-byte public key. */
export function okpRawPublicKey(key: KeyObject): Buffer {
  return Buffer.from(key.export({ format: 'jwk' }).x as string, 'base64url');
}

/** The raw 32-byte private seed. */
export function okpRawSeed(key: KeyObject): Buffer {
  return Buffer.from(key.export({ format: 'jwk' }).d as string, 'base64url');
}

/**
 * A new key pair, made without node's key-generation jobs: on Node 20, exporting a key as JWK while the
 * garbage collector destroys a finished `generateKeyPairSync` job deadlocks the process (the job's
 * destructor takes the key's mutex, which the export holds), leaving it hung at 0% CPU. A random seed (Ed25519, X25519) or an ECDH-generated scalar (EC) imported as a key has no job.
 */
export function generateKeyObjects(type: OkpKeyType | EcKeyType): { publicKey: KeyObject; privateKey: KeyObject } {
  if (type === 'Ed25519' || type === 'X25519') {
    const privateKey = okpPrivateKeyFromSeed(type, randomBytes(OKP_KEY_LENGTH));
    return { privateKey, publicKey: createPublicKey(privateKey) };
  }
  const { size, opensslName } = EC_CURVES[type];
  const ecdh = createECDH(opensslName);
  const point = ecdh.generateKeys();
  const scalar = ecdh.getPrivateKey();
  const privateKey = createPrivateKey({
    key: {
      kty: 'EC',
      crv: type,
      x: point.subarray(1, 1 + size).toString('base64url'),
      y: point.subarray(1 + size).toString('base64url'),
      // A scalar with leading zero bytes comes back shorter; JWK wants the curve's full size.
      d: Buffer.concat([Buffer.alloc(size - scalar.length), scalar]).toString('base64url'),
    },
    format: 'jwk',
  });
  return { privateKey, publicKey: createPublicKey(privateKey) };
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
    throw badRequest(
      `${type} public key must be a ${size + 1}-byte compressed or ${2 * size + 1}-byte uncompressed point`,
    );
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
