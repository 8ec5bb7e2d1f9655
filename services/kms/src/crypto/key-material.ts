import { createHash, createPublicKey, type KeyObject } from 'node:crypto';
import { LRUCache } from 'lru-cache';
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
 * Parsed keys by key material: the service builds a KeyMaterial per request (unsealed from its store), and
 * importing a key into node:crypto costs as much as a signature. Entries are found by a SHA-256 digest of the
 * material, so no copy of a secret serves as a map key; bounded, least recently used out first.
 */
export function parsedKeyCache<T extends object>(): { get(m: KeyMaterial, parse: (raw: Buffer) => T): T } {
  const cache = new LRUCache<string, T>({ max: PARSED_KEYS_CACHED });
  return {
    get(m, parse) {
      const raw = rawSecret(m);
      const digest = createHash('sha256').update(m.type).update(SEPARATOR).update(raw).digest('base64');
      const cached = cache.get(digest);
      if (cached) return cached;
      const value = parse(raw);
      cache.set(digest, value);
      return value;
    },
  };
}

const PARSED_KEYS_CACHED = 4096;
const SEPARATOR = new Uint8Array(1);
const parsed = parsedKeyCache<AsymmetricKeys>();

/** The node:crypto private and public keys of a signing (Ed25519, ECDSA) or ECDH key. */
export function asymmetricKeys(m: KeyMaterial): AsymmetricKeys {
  const spec = requireKind(m, ['signing', 'ecdh'], 'be used as a key pair (it is symmetric or a BBS key)');
  return parsed.get(m, (raw) => {
    let privateKey: KeyObject;
    if (spec.kind === 'signing') {
      privateKey =
        spec.algorithm === 'ed25519'
          ? okpPrivateKey('Ed25519', raw)
          : ecPrivateKey(spec.curve, raw, 'key material secret');
    } else {
      privateKey =
        spec.curve === 'X25519' ? okpPrivateKey('X25519', raw) : ecPrivateKey(spec.curve, raw, 'key material secret');
    }
    return { privateKey, publicKey: createPublicKey(privateKey) };
  });
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
