import { createPublicKey, type KeyObject } from 'node:crypto';
import { badInput, wrongKeyKind } from './errors.js';
import { ecPrivateKey, okpPrivateKey } from './key-objects.js';
import { KEY_SPECS, isKmsKeyType, type KeySpec, type KmsKeyType } from './key-types.js';

/** The secret a key record stores (encrypted at rest by the service). Opaque outside the crypto core. */
export interface KeyMaterial {
  type: KmsKeyType;
  secret: Uint8Array;
}

/**
 * `secret` = format version (one byte) || the raw private key: the Ed25519 seed or X25519 private key (32 bytes),
 * the EC scalar at the curve's size, the symmetric key, or the BBS scalar (its layout is the bbs module's).
 */
export const SECRET_FORMAT_VERSION = 1;

/** HMAC keys may be imported at any length from Tink's minimum up; generated ones are 32 bytes. */
export const HMAC_KEY_LENGTH_MIN = 16;
export const HMAC_KEY_LENGTH_MAX = 256;

export function keyMaterial(type: KmsKeyType, raw: Uint8Array): KeyMaterial {
  const secret = new Uint8Array(raw.length + 1);
  secret[0] = SECRET_FORMAT_VERSION;
  secret.set(raw, 1);
  return { type, secret };
}

/** The raw private key of `m`, after checking the format version and the length for its type. */
export function rawSecret(m: KeyMaterial): Buffer {
  if (typeof m !== 'object' || m === null || !isKmsKeyType(m.type))
    throw badInput('key material has an unknown key type');
  if (!(m.secret instanceof Uint8Array) || m.secret.length < 2) throw badInput('key material secret is missing');
  if (m.secret[0] !== SECRET_FORMAT_VERSION)
    throw badInput(`key material secret has unknown format version ${m.secret[0]}`);
  const raw = Buffer.from(m.secret.buffer, m.secret.byteOffset + 1, m.secret.length - 1);
  const expected = secretLength(KEY_SPECS[m.type]);
  const fits =
    expected === 'hmac'
      ? raw.length >= HMAC_KEY_LENGTH_MIN && raw.length <= HMAC_KEY_LENGTH_MAX
      : expected === undefined || raw.length === expected;
  if (!fits) throw badInput(`key material secret has the wrong length for a ${m.type} key`);
  return raw;
}

function secretLength(spec: KeySpec): number | 'hmac' | undefined {
  switch (spec.kind) {
    case 'signing':
      return spec.algorithm === 'ed25519' ? 32 : spec.curve.size;
    case 'ecdh':
      return spec.curve === 'X25519' ? 32 : spec.curve.size;
    case 'aead':
      return spec.keyLength;
    case 'mac':
      return 'hmac';
    case 'bbs':
      return undefined;
  }
}

interface AsymmetricKeys {
  privateKey: KeyObject;
  publicKey: KeyObject;
}

/**
 * Parsed keys, kept per KeyMaterial object: a service that keeps its KeyMaterial objects (a cache of decrypted
 * records) pays the parse once, not on every signature.
 */
const parsed = new WeakMap<KeyMaterial, AsymmetricKeys>();

/** The node:crypto private and public keys of a signing (Ed25519, ECDSA) or ECDH key. */
export function asymmetricKeys(m: KeyMaterial): AsymmetricKeys {
  const cached = parsed.get(m);
  if (cached) return cached;
  const raw = rawSecret(m);
  const spec = KEY_SPECS[m.type];
  let privateKey: KeyObject;
  if (spec.kind === 'signing') {
    privateKey =
      spec.algorithm === 'ed25519'
        ? okpPrivateKey('Ed25519', raw)
        : ecPrivateKey(spec.curve, raw, 'key material secret');
  } else if (spec.kind === 'ecdh') {
    privateKey =
      spec.curve === 'X25519' ? okpPrivateKey('X25519', raw) : ecPrivateKey(spec.curve, raw, 'key material secret');
  } else {
    throw wrongKeyKind(`a ${m.type} key is symmetric or a BBS key and has no such key pair`);
  }
  const keys = { privateKey, publicKey: createPublicKey(privateKey) };
  parsed.set(m, keys);
  return keys;
}

/** The key's spec, after checking it allows `operation` (one of `kinds`). */
export function requireKind<K extends KeySpec['kind']>(
  m: KeyMaterial,
  kinds: readonly K[],
  operation: string,
): Extract<KeySpec, { kind: K }> {
  if (typeof m !== 'object' || m === null || !isKmsKeyType(m.type))
    throw badInput('key material has an unknown key type');
  const spec = KEY_SPECS[m.type];
  if (!(kinds as readonly string[]).includes(spec.kind)) throw wrongKeyKind(`a ${m.type} key cannot ${operation}`);
  return spec as Extract<KeySpec, { kind: K }>;
}

/** Rejects anything but a byte array for `field`, which would otherwise surface as a TypeError (a 500). */
export function requireBytes(value: unknown, field: string): Uint8Array {
  if (!(value instanceof Uint8Array)) throw badInput(`${field} must be bytes`);
  return value;
}
