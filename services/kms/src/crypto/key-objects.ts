import { createECDH, createPrivateKey, createPublicKey, type KeyObject } from 'node:crypto';
import { badInput } from './errors.js';
import type { EcCurve } from './key-types.js';

/**
 * node:crypto KeyObjects from raw key bytes and back. Keys move through node's JWK codec, which sets and reads
 * the raw bytes directly; the DER forms go through OpenSSL 3's encoder, many times slower (figures in
 * packages/common/src/crypto/README.md).
 */
export const OKP_KEY_LENGTH = 32;

export type OkpCurve = 'Ed25519' | 'X25519';

export function okpPrivateKey(curve: OkpCurve, seed: Uint8Array): KeyObject {
  // Node builds an OKP private key from `d` alone when `x` is a string; the public half is derived.
  return createPrivateKey({
    key: { kty: 'OKP', crv: curve, d: Buffer.from(seed).toString('base64url'), x: '' },
    format: 'jwk',
  });
}

export function okpPublicKey(curve: OkpCurve, raw: Uint8Array, field: string): KeyObject {
  if (raw.length !== OKP_KEY_LENGTH) throw badInput(`${field} must be ${OKP_KEY_LENGTH} bytes, got ${raw.length}`);
  return createPublicKey({ key: { kty: 'OKP', crv: curve, x: Buffer.from(raw).toString('base64url') }, format: 'jwk' });
}

/** The raw private seed (Ed25519, X25519) or scalar (EC, padded to the curve's size) of a private KeyObject. */
export function rawPrivateKey(key: KeyObject): Buffer {
  return Buffer.from(key.export({ format: 'jwk' }).d as string, 'base64url');
}

/** The raw 32-byte public key of an Ed25519 or X25519 KeyObject. */
export function okpRawPublicKey(key: KeyObject): Buffer {
  return Buffer.from(key.export({ format: 'jwk' }).x as string, 'base64url');
}

/** The uncompressed point `04 || X || Y` of an EC KeyObject (public or private). */
export function ecPublicPoint(key: KeyObject): Buffer {
  const { x, y } = key.export({ format: 'jwk' });
  return Buffer.concat([
    Buffer.from([0x04]),
    Buffer.from(x as string, 'base64url'),
    Buffer.from(y as string, 'base64url'),
  ]);
}

/**
 * An EC private key from its scalar. The public point is derived from the scalar (never taken from an
 * encoding that carries one), and a scalar outside [1, n-1] is refused.
 */
export function ecPrivateKey(curve: EcCurve, scalar: Uint8Array, field: string): KeyObject {
  if (scalar.length !== curve.size)
    throw badInput(`${field} must be a ${curve.size}-byte ${curve.name} scalar, got ${scalar.length} bytes`);
  const ecdh = createECDH(curve.opensslName);
  try {
    ecdh.setPrivateKey(scalar);
  } catch {
    throw badInput(`${field} is not a valid ${curve.name} private scalar`);
  }
  return ecPrivateKeyFromEcdh(curve, ecdh.getPublicKey(), ecdh.getPrivateKey());
}

/** A new EC private key, made through ECDH (no key-generation job: see packages/common/src/crypto/README.md). */
export function generateEcPrivateKey(curve: EcCurve): KeyObject {
  const ecdh = createECDH(curve.opensslName);
  const point = ecdh.generateKeys();
  return ecPrivateKeyFromEcdh(curve, point, ecdh.getPrivateKey());
}

function ecPrivateKeyFromEcdh(curve: EcCurve, point: Buffer, scalar: Buffer): KeyObject {
  const { size } = curve;
  return createPrivateKey({
    key: {
      kty: 'EC',
      crv: curve.name,
      x: point.subarray(1, 1 + size).toString('base64url'),
      y: point.subarray(1 + size).toString('base64url'),
      // A scalar with leading zero bytes comes back shorter; JWK wants the curve's full size.
      d: Buffer.concat([Buffer.alloc(size - scalar.length), scalar]).toString('base64url'),
    },
    format: 'jwk',
  });
}
