import { createHash } from 'node:crypto';
import { badRequest } from '../errors/index.js';
import { KeyPair } from './key-pair.js';
import { okpRawSeed } from './raw-keys.js';

/**
 * The X25519 key-agreement key of an Ed25519 key, as did:key (and libsodium's crypto_sign_ed25519_pk_to_
 * curve25519) derive it: the Edwards point's y maps to the Montgomery u = (1 + y) / (1 − y) mod p, and the
 * private scalar is the first half of SHA-512(seed), which X25519 clamps itself.
 */
const P = 2n ** 255n - 19n;

export function ed25519ToX25519(key: KeyPair): KeyPair {
  if (key.type !== 'Ed25519') throw badRequest(`only Ed25519 keys convert to X25519, not ${key.type}`);
  if (key.privateKey) {
    const scalar = createHash('sha512').update(okpRawSeed(key.privateKey)).digest().subarray(0, 32);
    return KeyPair.fromSeed('X25519', scalar);
  }
  return KeyPair.fromPublicKeyBytes('X25519', edwardsToMontgomery(key.publicKeyBytes()));
}

function edwardsToMontgomery(publicKey: Buffer): Buffer {
  const littleEndian = Buffer.from(publicKey);
  littleEndian[31]! &= 0x7f; // the top bit is the sign of x, not part of y
  const y = BigInt(`0x${Buffer.from(littleEndian).reverse().toString('hex')}`);
  if (y >= P || y === 1n) throw badRequest('Ed25519 public key has no X25519 equivalent');
  const u = (((1n + y) % P) * modularInverse((1n - y + P) % P)) % P;
  return Buffer.from(u.toString(16).padStart(64, '0'), 'hex').reverse();
}

/** a^(p−2) mod p: Fermat's inverse, p being prime. */
function modularInverse(a: bigint): bigint {
  let result = 1n;
  let base = a % P;
  for (let exponent = P - 2n; exponent > 0n; exponent >>= 1n) {
    if (exponent & 1n) result = (result * base) % P;
    base = (base * base) % P;
  }
  return result;
}
