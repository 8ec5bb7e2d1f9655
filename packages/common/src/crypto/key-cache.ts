import { LRUCache } from 'lru-cache';
import { type Jwk, keyTypeOfJwk } from './jwk.js';
import { KeyPair } from './key-pair.js';

/**
 * Verification paths see the same few keys again and again (a DID's update key, a peer's signing key), and
 * importing a JWK costs far more than an Ed25519 verification (an EC import checks the point; figures in the
 * module's README). So public keys are imported once and kept in a small LRU keyed by the canonical public
 * JWK (type, x, y); private members never reach the cache.
 */
const cache = new LRUCache<string, KeyPair>({ max: 1024 });

/** The public key a JWK describes (any `d` is ignored), imported once and then served from the cache. */
export function publicKeyFromJwk(jwk: Jwk): KeyPair {
  const type = keyTypeOfJwk(jwk);
  const { x, y } = jwk;
  // Only well-typed members form a cache key, so a malformed JWK can never hit a valid key's entry.
  if (typeof x !== 'string' || (y !== undefined && typeof y !== 'string'))
    return KeyPair.fromJwk({ kty: jwk.kty, crv: jwk.crv, x, y });
  const cacheKey = `${type}|${x}|${y ?? ''}`;
  const cached = cache.get(cacheKey);
  if (cached) return cached;
  const key = KeyPair.fromJwk(
    y === undefined ? { kty: jwk.kty, crv: jwk.crv, x } : { kty: jwk.kty, crv: jwk.crv, x, y },
  );
  cache.set(cacheKey, key);
  return key;
}

/** Verifies a signature with a JWK (through the cache) or a KeyPair; false for any malformed signature. */
export function verifySignature(publicKey: Jwk | KeyPair, data: Uint8Array, signature: Uint8Array): boolean {
  const key = publicKey instanceof KeyPair ? publicKey : publicKeyFromJwk(publicKey);
  return key.verify(data, signature);
}
