import { base58Decode, base64UrlDecode, isCanonicalBase64Url } from '@anchor/common/encoding';
import { badRequest } from '@anchor/common/errors';
import { bls12_381 } from '@noble/curves/bls12-381.js';
import { ed448 } from '@noble/curves/ed448.js';
import { p256, p384, p521 } from '@noble/curves/nist.js';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import type { JsonObject } from '../json.js';
import { isEd25519Point } from './ed25519-point.js';

/**
 * At ingest every public key a patch adds must be a usable key: its JWK names a known key type and curve,
 * its coordinates are canonical base64url of the curve's exact length, and they decode to a point on the
 * curve (for the Edwards curves, a point that decompresses): an unusable key makes resolvers and
 * verifiers downstream fail on a DID that looked fine. Unknown key types pass only where the protocol allows them.
 */

type PointCheck = (bytes: Uint8Array) => void;

interface Curve {
  /** Coordinate length in bytes. */
  size: number;
  /** Throws when the encoded point is not on the curve (noble's decoders validate). */
  check?: PointCheck;
}

const sec1 =
  (decode: (bytes: Uint8Array) => unknown): PointCheck =>
  (bytes) =>
    void decode(bytes);

/** OKP keys: one coordinate `x`. X25519 and X448 accept every u-coordinate of their length. */
const OKP_CURVES: Readonly<Record<string, Curve>> = {
  Ed25519: {
    size: 32,
    check: (x) => {
      if (!isEd25519Point(x)) throw new Error('not an Ed25519 point');
    },
  },
  Ed448: { size: 57, check: (x) => void ed448.Point.fromBytes(x) },
  X25519: { size: 32 },
  X448: { size: 56 },
};

/** EC keys: affine `x` and `y`, checked as the uncompressed SEC1 point 04 || x || y. */
const EC_CURVES: Readonly<Record<string, Curve>> = {
  'P-256': { size: 32, check: sec1((b) => p256.Point.fromBytes(b)) },
  'P-384': { size: 48, check: sec1((b) => p384.Point.fromBytes(b)) },
  'P-521': { size: 66, check: sec1((b) => p521.Point.fromBytes(b)) },
  secp256k1: { size: 32, check: sec1((b) => secp256k1.Point.fromBytes(b)) },
  // The name early DID drafts and Orb's clients use for secp256k1.
  'P-256K': { size: 32, check: sec1((b) => secp256k1.Point.fromBytes(b)) },
};

/** BLS keys as Orb's Bls12381G2Key2020 JWKs carry them: compressed points in `x`. */
const BLS_CURVES: Readonly<Record<string, Curve>> = {
  BLS12381_G2: { size: 96, check: (x) => void bls12_381.G2.Point.fromBytes(x) },
  BLS12381_G1: { size: 48, check: (x) => void bls12_381.G1.Point.fromBytes(x) },
};

const RSA_MIN_MODULUS_BYTES = 256;
const RSA_MAX_MODULUS_BYTES = 1024;

function coordinate(jwk: JsonObject, member: 'x' | 'y' | 'n' | 'e', id: string): Uint8Array {
  const value = jwk[member];
  if (typeof value !== 'string' || value.length === 0)
    throw badRequest(`public key '${id}' publicKeyJwk.${member} is missing`);
  if (!isCanonicalBase64Url(value))
    throw badRequest(`public key '${id}' publicKeyJwk.${member} is not canonical base64url`);
  return base64UrlDecode(value);
}

function checkPoint(curve: Curve, bytes: Uint8Array, id: string, crv: string): void {
  try {
    curve.check?.(bytes);
  } catch {
    throw badRequest(`public key '${id}' publicKeyJwk is not a valid ${crv} point`);
  }
}

function sized(bytes: Uint8Array, size: number, id: string, member: string, crv: string): Uint8Array {
  if (bytes.length !== size)
    throw badRequest(`public key '${id}' publicKeyJwk.${member} must be ${size} bytes for ${crv}, not ${bytes.length}`);
  return bytes;
}

/** Checks a JWK's key material (kty, crv, coordinates, point); `allowUnknown` lets other kty/crv pass unchecked. */
export function checkJwkMaterial(jwk: JsonObject, id: string, allowUnknown: boolean): void {
  const { kty, crv } = jwk;
  const unknown = (what: string): void => {
    if (!allowUnknown) throw badRequest(`public key '${id}' publicKeyJwk ${what} is not supported`);
  };
  if (kty === 'RSA') {
    const n = coordinate(jwk, 'n', id);
    const e = coordinate(jwk, 'e', id);
    if (n.length < RSA_MIN_MODULUS_BYTES || n.length > RSA_MAX_MODULUS_BYTES || n[0] === 0) {
      throw badRequest(`public key '${id}' RSA modulus must be 2048 to 8192 bits without leading zeros`);
    }
    if (e.length === 0 || e.length > 4 || e[0] === 0 || (e[e.length - 1]! & 1) === 0 || (e.length === 1 && e[0]! < 3)) {
      throw badRequest(`public key '${id}' RSA exponent must be an odd integer from 3 to 2^32-1 without leading zeros`);
    }
    return;
  }
  if (typeof crv !== 'string') return unknown(`crv ${JSON.stringify(crv)}`);
  const table = kty === 'OKP' ? OKP_CURVES : kty === 'EC' ? { ...EC_CURVES, ...BLS_CURVES } : undefined;
  if (!table) return unknown(`kty ${JSON.stringify(kty)}`);
  const curve = Object.hasOwn(table, crv) ? table[crv] : undefined;
  if (!curve) return unknown(`${String(kty)} curve ${JSON.stringify(crv)}`);
  const x = sized(coordinate(jwk, 'x', id), curve.size, id, 'x', crv);
  if (kty === 'EC' && Object.hasOwn(EC_CURVES, crv)) {
    const y = sized(coordinate(jwk, 'y', id), curve.size, id, 'y', crv);
    const point = new Uint8Array(1 + 2 * curve.size);
    point[0] = 4;
    point.set(x, 1);
    point.set(y, 1 + curve.size);
    checkPoint(curve, point, id, crv);
    return;
  }
  checkPoint(curve, x, id, crv);
}

/** Raw key lengths (and point checks) of the key types that carry a publicKeyBase58. */
const BASE58_KEYS: Readonly<Record<string, { sizes: readonly number[]; check?: PointCheck; what: string }>> = {
  Ed25519VerificationKey2018: { sizes: [32], check: OKP_CURVES.Ed25519!.check!, what: 'Ed25519' },
  Ed25519VerificationKey2020: { sizes: [32], check: OKP_CURVES.Ed25519!.check!, what: 'Ed25519' },
  X25519KeyAgreementKey2019: { sizes: [32], what: 'X25519' },
  EcdsaSecp256k1VerificationKey2019: {
    sizes: [33, 65],
    check: sec1((b) => secp256k1.Point.fromBytes(b)),
    what: 'secp256k1',
  },
  Bls12381G2Key2020: { sizes: [96], check: BLS_CURVES.BLS12381_G2!.check!, what: 'BLS12-381 G2' },
};

/** Checks a publicKeyBase58 against its key type: canonical base58, exact length, a point on the curve. */
export function checkBase58Material(base58: string, type: string, id: string, allowUnknown: boolean): void {
  let bytes: Uint8Array;
  try {
    bytes = base58Decode(base58);
  } catch {
    throw badRequest(`public key '${id}' publicKeyBase58 is not valid base58`);
  }
  const spec = Object.hasOwn(BASE58_KEYS, type) ? BASE58_KEYS[type] : undefined;
  if (!spec) {
    if (!allowUnknown) throw badRequest(`public key '${id}' of type ${type} cannot carry a publicKeyBase58`);
    return;
  }
  if (!spec.sizes.includes(bytes.length))
    throw badRequest(
      `public key '${id}' publicKeyBase58 must decode to ${spec.sizes.join(' or ')} bytes for ${type}, not ${bytes.length}`,
    );
  try {
    spec.check?.(bytes);
  } catch {
    throw badRequest(`public key '${id}' publicKeyBase58 is not a valid ${spec.what} point`);
  }
}
