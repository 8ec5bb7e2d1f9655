import { createPublicKey, diffieHellman, generateKeyPairSync, type KeyObject } from 'node:crypto';
import { badInput } from '../errors.js';
import { generateEcPrivateKey, okpPublicKey } from '../key-objects.js';
import { EC_CURVES, type EcCurve } from '../key-types.js';

export const WRAP_CURVES = ['P-256', 'P-384', 'P-521', 'X25519'] as const;
export type WrapCurve = (typeof WRAP_CURVES)[number];

/**
 * A public key in aries' wrap shape (aries `cryptoapi.PublicKey`): raw big-endian coordinates, `y`
 * empty for X25519, `curve` one of WRAP_CURVES (or an alias aries accepts), `type` "EC" or "OKP". The
 * service does the wire encoding.
 */
export interface WrapPublicKey {
  kid?: string;
  x: Uint8Array;
  y: Uint8Array;
  curve: string;
  type: string;
}

function ecCurve(curve: WrapCurve): EcCurve | undefined {
  return curve === 'X25519' ? undefined : EC_CURVES[curve];
}

export function isWrapCurve(value: unknown): value is WrapCurve {
  return typeof value === 'string' && (WRAP_CURVES as readonly string[]).includes(value);
}

/** Other spellings aries' parsers accept: Tink's (its own key export wrote these) and SEC 2's. */
const CURVE_ALIASES: Readonly<Record<string, WrapCurve>> = {
  NIST_P256: 'P-256',
  secp256r1: 'P-256',
  NIST_P384: 'P-384',
  secp384r1: 'P-384',
  NIST_P521: 'P-521',
  secp521r1: 'P-521',
};

function wrapCurveOf(value: unknown): WrapCurve | undefined {
  if (isWrapCurve(value)) return value;
  return typeof value === 'string' && Object.hasOwn(CURVE_ALIASES, value) ? CURVE_ALIASES[value] : undefined;
}

/** The node:crypto key of a public key in the wrap shape; a point off its curve, or bytes of the wrong size, are bad input. */
export function wrapPublicKey(key: WrapPublicKey, field: string): { curve: WrapCurve; key: KeyObject } {
  if (typeof key !== 'object' || key === null) throw badInput(`${field} is missing`);
  const { type, x, y } = key;
  const curve = wrapCurveOf(key.curve);
  if (!curve)
    throw badInput(
      `${field}.curve must be one of ${WRAP_CURVES.join(', ')} (or ${Object.keys(CURVE_ALIASES).join(', ')})`,
    );
  if (!(x instanceof Uint8Array) || !(y instanceof Uint8Array))
    throw badInput(`${field}.x and ${field}.y must be bytes`);
  const ec = ecCurve(curve);
  if (!ec) {
    if (type !== 'OKP') throw badInput(`${field}.type must be OKP for curve X25519`);
    if (y.length !== 0) throw badInput(`${field}.y must be empty for curve X25519`);
    return { curve, key: okpPublicKey('X25519', x, `${field}.x`) };
  }
  if (type !== 'EC') throw badInput(`${field}.type must be EC for curve ${curve}`);
  // Go's big.Int.Bytes() drops leading zero bytes, so aries clients send short coordinates: padded to size.
  const coordinate = (value: Uint8Array, name: string): string => {
    if (value.length === 0 || value.length > ec.size)
      throw badInput(`${field}.${name} must be 1 to ${ec.size} bytes for ${curve}, got ${value.length}`);
    return Buffer.concat([Buffer.alloc(ec.size - value.length), value]).toString('base64url');
  };
  const jwk = { kty: 'EC', crv: curve, x: coordinate(x, 'x'), y: coordinate(y, 'y') };
  try {
    return { curve, key: createPublicKey({ key: jwk, format: 'jwk' }) };
  } catch {
    throw badInput(`${field} is not a point on ${curve}`);
  }
}

/** The wrap shape of a public (or private) key object on `curve`. */
export function wrapShapeOf(key: KeyObject, curve: WrapCurve): WrapPublicKey {
  const jwk = key.export({ format: 'jwk' });
  const bytes = (value: unknown): Buffer => Buffer.from(value as string, 'base64url');
  return ecCurve(curve)
    ? { x: bytes(jwk.x), y: bytes(jwk.y), curve, type: 'EC' }
    : { x: bytes(jwk.x), y: new Uint8Array(0), curve, type: 'OKP' };
}

export function ephemeralPrivateKey(curve: WrapCurve): KeyObject {
  const ec = ecCurve(curve);
  return ec ? generateEcPrivateKey(ec) : generateKeyPairSync('x25519').privateKey;
}

/** ECDH; an X25519 peer key of small order (an all-zero shared secret) is refused by OpenSSL and is bad input. */
export function sharedSecret(privateKey: KeyObject, publicKey: KeyObject, field: string): Buffer {
  try {
    return diffieHellman({ privateKey, publicKey });
  } catch {
    throw badInput(`${field} gives no usable shared secret (a point of small order)`);
  }
}
