import { createPrivateKey, createPublicKey, randomBytes, timingSafeEqual, type KeyObject } from 'node:crypto';
import { bbsPublicKey, generateBbsKey, importBbsKey } from './bbs/index.js';
import { badInput, wrongKeyKind } from './errors.js';
import {
  HMAC_KEY_LENGTH_MAX,
  HMAC_KEY_LENGTH_MIN,
  asymmetricKeys,
  keyMaterial,
  type KeyMaterial,
} from './key-material.js';
import {
  OKP_KEY_LENGTH,
  ecPrivateKey,
  ecPublicPoint,
  generateEcPrivateKey,
  okpPrivateKey,
  okpRawPublicKey,
  rawPrivateKey,
} from './key-objects.js';
import { KEY_SPECS, isKmsKeyType, type EcCurve, type KeySpec, type KmsKeyType } from './key-types.js';

type AsymmetricSpec = Extract<KeySpec, { kind: 'signing' | 'ecdh' }>;

/** A new key of `type`, from node:crypto's CSPRNG. */
export function generateKey(type: KmsKeyType): KeyMaterial {
  const spec = specOf(type);
  switch (spec.kind) {
    case 'aead':
      return keyMaterial(type, randomBytes(spec.keyLength));
    case 'mac':
      return keyMaterial(type, randomBytes(spec.keyLength));
    case 'bbs':
      return generateBbsKey();
    default: {
      const curve = curveOf(spec);
      if (curve === 'Ed25519' || curve === 'X25519') return keyMaterial(type, randomBytes(OKP_KEY_LENGTH));
      return keyMaterial(type, rawPrivateKey(generateEcPrivateKey(curve)));
    }
  }
}

/**
 * A key of `type` from its private key as a client holds it: PKCS#8 DER bytes (ED25519, ECDSA, secp256k1,
 * NIST ECDH and X25519 keys) or a private JWK for the asymmetric
 * types; the raw key bytes, or an `oct` JWK, for the AEAD and MAC types; the raw 32-byte scalar for BLS12381G2.
 * The public half is always derived from the private key, never taken from the input.
 */
export function importPrivateKey(type: KmsKeyType, key: Uint8Array | object): KeyMaterial {
  const spec = specOf(type);
  if (spec.kind === 'bbs') return importBbsKey(key as Uint8Array);
  if (spec.kind === 'aead' || spec.kind === 'mac') return importSymmetric(type, spec, key);
  const privateKey = key instanceof Uint8Array ? fromPkcs8(type, spec, key) : fromJwk(type, spec, key);
  return keyMaterial(type, rawPrivateKey(privateKey));
}

/**
 * The public key in aries' encoding for the type: raw 32 bytes (ED25519), SubjectPublicKeyInfo DER
 * (the DER ECDSA types), the uncompressed point `04 || X || Y` (the IEEE P1363 types), the JSON
 * `{"kid","x","y","curve","type"}` with standard base64 coordinates (the ECDH key-wrap types, `kid` as the
 * service names the key), and the 96-byte compressed G2 point (BLS12381G2). AEAD and MAC keys have none.
 */
export function exportPublicKey(m: KeyMaterial, kid?: string): Uint8Array {
  const spec = specOf(m.type);
  if (spec.kind === 'bbs') return bbsPublicKey(m);
  if (spec.kind === 'aead' || spec.kind === 'mac')
    throw wrongKeyKind(`a ${m.type} key is symmetric and has no public key`);
  const { publicKey } = asymmetricKeys(m);
  if (spec.kind === 'ecdh') return Buffer.from(JSON.stringify(ecdhPublicKeyJson(spec, publicKey, kid)));
  if (spec.algorithm === 'ed25519') return okpRawPublicKey(publicKey);
  return spec.encoding === 'der' ? publicKey.export({ format: 'der', type: 'spki' }) : ecPublicPoint(publicKey);
}

/** aries' `cryptoapi.PublicKey` JSON (Go field order, `[]byte` as standard base64, empty fields left out). */
function ecdhPublicKeyJson(
  spec: Extract<KeySpec, { kind: 'ecdh' }>,
  publicKey: KeyObject,
  kid: string | undefined,
): object {
  const head = kid ? { kid } : {};
  if (spec.curve === 'X25519')
    return { ...head, x: okpRawPublicKey(publicKey).toString('base64'), curve: 'X25519', type: 'OKP' };
  const point = ecPublicPoint(publicKey);
  const size = spec.curve.size;
  return {
    ...head,
    x: point.subarray(1, 1 + size).toString('base64'),
    y: point.subarray(1 + size).toString('base64'),
    curve: spec.curve.name,
    type: 'EC',
  };
}

function specOf(type: KmsKeyType): KeySpec {
  if (!isKmsKeyType(type)) throw badInput(`unknown key type '${String(type)}'`);
  return KEY_SPECS[type];
}

function curveOf(spec: AsymmetricSpec): EcCurve | 'Ed25519' | 'X25519' {
  if (spec.kind === 'ecdh') return spec.curve;
  return spec.algorithm === 'ed25519' ? 'Ed25519' : spec.curve;
}

function importSymmetric(
  type: KmsKeyType,
  spec: Extract<KeySpec, { kind: 'aead' | 'mac' }>,
  key: Uint8Array | object,
): KeyMaterial {
  const raw = key instanceof Uint8Array ? key : octJwkBytes(key);
  const fits =
    spec.kind === 'mac'
      ? raw.length >= HMAC_KEY_LENGTH_MIN && raw.length <= HMAC_KEY_LENGTH_MAX
      : raw.length === spec.keyLength;
  if (!fits) {
    const wanted = spec.kind === 'mac' ? `${HMAC_KEY_LENGTH_MIN} to ${HMAC_KEY_LENGTH_MAX}` : String(spec.keyLength);
    throw badInput(`key must be ${wanted} bytes for a ${type} key, got ${raw.length}`);
  }
  return keyMaterial(type, raw);
}

function octJwkBytes(jwk: object): Buffer {
  const { kty, k } = jwk as { kty?: unknown; k?: unknown };
  if (kty !== 'oct') throw badInput(`key JWK kty must be 'oct' for a symmetric key`);
  return jwkMember(k, 'k');
}

function fromPkcs8(type: KmsKeyType, spec: AsymmetricSpec, der: Uint8Array): KeyObject {
  let parsed: KeyObject;
  try {
    parsed = createPrivateKey({ key: Buffer.from(der), format: 'der', type: 'pkcs8' });
  } catch {
    throw badInput('key is not a PKCS#8 DER private key');
  }
  const curve = curveOf(spec);
  const found = parsed.asymmetricKeyType === 'ec' ? parsed.asymmetricKeyDetails?.namedCurve : parsed.asymmetricKeyType;
  const wanted = curve === 'Ed25519' ? 'ed25519' : curve === 'X25519' ? 'x25519' : curve.opensslName;
  if (found !== wanted)
    throw badInput(
      `key is a ${String(found)} key, not the ${typeof curve === 'string' ? curve : curve.name} key a ${type} key needs`,
    );
  // An EC encoding may carry its own public point, which OpenSSL would trust: keep the scalar alone.
  return typeof curve === 'string' ? parsed : ecPrivateKey(curve, rawPrivateKey(parsed), 'key');
}

function fromJwk(type: KmsKeyType, spec: AsymmetricSpec, value: object): KeyObject {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw badInput('key must be PKCS#8 DER bytes or a JWK object');
  const jwk = value as Record<string, unknown>;
  const curve = curveOf(spec);
  const [kty, crv] = typeof curve === 'string' ? ['OKP', curve] : ['EC', curve.name];
  if (jwk.kty !== kty || jwk.crv !== crv)
    throw badInput(`key JWK must have kty '${kty}' and crv '${crv}' for a ${type} key`);
  if (jwk.d === undefined) throw badInput('key JWK has no private key d');
  const d = jwkMember(jwk.d, 'd');
  const privateKey =
    typeof curve === 'string'
      ? okpPrivateKey(curve, requireLength(d, OKP_KEY_LENGTH, 'key JWK d'))
      : ecPrivateKey(curve, d, 'key JWK d');
  // A JWK's public members must be those of its d: a mismatched pair would sign with one key and show another.
  const publicJwk = createPublicKey(privateKey).export({ format: 'jwk' });
  for (const member of kty === 'OKP' ? ['x'] : ['x', 'y']) {
    if (jwk[member] === undefined) continue;
    const given = jwkMember(jwk[member], member);
    const derived = Buffer.from(publicJwk[member] as string, 'base64url');
    if (given.length !== derived.length || !timingSafeEqual(given, derived))
      throw badInput(`key JWK ${member} does not match its d`);
  }
  return privateKey;
}

function jwkMember(value: unknown, member: string): Buffer {
  if (typeof value !== 'string' || !/^[A-Za-z0-9_-]+$/.test(value))
    throw badInput(`key JWK ${member} must be a base64url string`);
  return Buffer.from(value, 'base64url');
}

function requireLength(bytes: Buffer, length: number, field: string): Buffer {
  if (bytes.length !== length) throw badInput(`${field} must be ${length} bytes, got ${bytes.length}`);
  return bytes;
}
