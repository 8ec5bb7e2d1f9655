import { createECDH, createPrivateKey, createPublicKey, timingSafeEqual, type KeyObject } from 'node:crypto';
import { base64UrlDecode, isCanonicalBase64Url } from '../encoding/index.js';
import { badRequest } from '../errors/index.js';
import { EC_CURVES, OKP_KEY_LENGTH, isEcKeyType, type EcKeyType, type KeyType, type OkpKeyType } from './key-types.js';
import { okpPrivateKeyFromSeed, okpPublicKeyFromRaw, okpRawPublicKey } from './raw-keys.js';

/** A JSON Web Key (RFC 7517) of one of the supported types; other members (kid, use, alg...) pass through. */
export interface Jwk {
  kty: string;
  crv?: string;
  x?: string;
  y?: string;
  d?: string;
  kid?: string;
  [member: string]: unknown;
}

/** The key type a JWK names through `kty` and `crv`; throws bad_request for anything unsupported. */
export function keyTypeOfJwk(jwk: Jwk): KeyType {
  if (typeof jwk !== 'object' || jwk === null || Array.isArray(jwk)) throw badRequest('JWK must be a JSON object');
  const { kty, crv } = jwk;
  if (typeof kty !== 'string') throw badRequest('JWK kty must be a string');
  if (kty === 'OKP') {
    if (crv === 'Ed25519' || crv === 'X25519') return crv;
    throw badRequest(`unsupported OKP JWK crv '${String(crv)}' (expected Ed25519 or X25519)`);
  }
  if (kty === 'EC') {
    if (crv === 'P-256' || crv === 'P-384' || crv === 'secp256k1') return crv;
    throw badRequest(`unsupported EC JWK crv '${String(crv)}' (expected P-256, P-384 or secp256k1)`);
  }
  throw badRequest(`unsupported JWK kty '${kty}' (expected EC or OKP)`);
}

/** Decodes one fixed-length JWK member, insisting on canonical unpadded base64url of exactly `length` bytes. */
function jwkBytes(jwk: Jwk, member: 'x' | 'y' | 'd', length: number): Buffer {
  const value = jwk[member];
  if (typeof value !== 'string') throw badRequest(`JWK ${member} must be a string`);
  const characters = Math.ceil((length * 4) / 3);
  if (value.length !== characters || !isCanonicalBase64Url(value)) {
    throw badRequest(`JWK ${member} must be ${characters} base64url characters (${length} bytes)`);
  }
  return base64UrlDecode(value);
}

export interface ImportedJwk {
  type: KeyType;
  publicKey: KeyObject;
  privateKey: KeyObject | undefined;
}

/**
 * Validates a JWK and imports it. Node's own JWK import keeps whatever public point it is given beside `d`
 * (a mismatched pair would sign with one key and advertise another), so private keys are imported from
 * `d` alone and the derived public key must equal `x`/`y`.
 */
export function importJwk(jwk: Jwk): ImportedJwk {
  const type = keyTypeOfJwk(jwk);
  return isEcKeyType(type) ? importEcJwk(type, jwk) : importOkpJwk(type, jwk);
}

function importOkpJwk(type: OkpKeyType, jwk: Jwk): ImportedJwk {
  const x = jwkBytes(jwk, 'x', OKP_KEY_LENGTH);
  // Go-built Sidetree clients always send `"y": ""` (a struct field without omitempty), so tolerate it.
  if (jwk.y !== undefined && jwk.y !== '') throw badRequest(`${type} JWK must not carry a y coordinate`);
  if (jwk.d === undefined) return { type, publicKey: okpPublicKeyFromRaw(type, x), privateKey: undefined };
  const privateKey = okpPrivateKeyFromSeed(type, jwkBytes(jwk, 'd', OKP_KEY_LENGTH));
  const publicKey = createPublicKey(privateKey);
  if (!timingSafeEqual(okpRawPublicKey(publicKey), x)) throw badRequest('JWK d does not match its public key x');
  return { type, publicKey, privateKey };
}

function importEcJwk(type: EcKeyType, jwk: Jwk): ImportedJwk {
  const { size, opensslName } = EC_CURVES[type];
  const x = jwkBytes(jwk, 'x', size);
  const y = jwkBytes(jwk, 'y', size);
  const members = { kty: 'EC', crv: type, x: jwk.x as string, y: jwk.y as string };
  if (jwk.d === undefined) {
    try {
      return { type, publicKey: createPublicKey({ key: members, format: 'jwk' }), privateKey: undefined };
    } catch {
      throw badRequest(`${type} JWK x/y is not a point on the curve`);
    }
  }
  const d = jwkBytes(jwk, 'd', size);
  const derived = createECDH(opensslName);
  try {
    derived.setPrivateKey(d);
  } catch {
    throw badRequest(`${type} JWK d is not a valid private scalar`);
  }
  if (!timingSafeEqual(derived.getPublicKey(), Buffer.concat([Buffer.from([0x04]), x, y]))) {
    throw badRequest('JWK d does not match its public key x/y');
  }
  const privateKey = createPrivateKey({ key: { ...members, d: jwk.d }, format: 'jwk' });
  return { type, publicKey: createPublicKey(privateKey), privateKey };
}

/** The public JWK in the member order the Sidetree vectors and Orb print: kty, crv, x(, y). */
export function publicJwkOf(type: KeyType, publicKey: KeyObject): Jwk {
  const exported = publicKey.export({ format: 'jwk' });
  if (isEcKeyType(type)) return { kty: 'EC', crv: type, x: exported.x as string, y: exported.y as string };
  return { kty: 'OKP', crv: type, x: exported.x as string };
}

export function privateJwkOf(type: KeyType, publicKey: KeyObject, privateKey: KeyObject): Jwk {
  return { ...publicJwkOf(type, publicKey), d: privateKey.export({ format: 'jwk' }).d as string };
}
