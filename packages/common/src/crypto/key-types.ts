import { badRequest } from '../errors/index.js';

/** The key types the federation signs, verifies or agrees keys with. */
export type KeyType = 'Ed25519' | 'P-256' | 'P-384' | 'secp256k1' | 'X25519';

/** JWS `alg` values, one per signing key type. */
export type JwsAlgorithm = 'EdDSA' | 'ES256' | 'ES384' | 'ES256K';

export const KEY_TYPES: readonly KeyType[] = ['Ed25519', 'P-256', 'P-384', 'secp256k1', 'X25519'];
export const JWS_ALGORITHMS: readonly JwsAlgorithm[] = ['EdDSA', 'ES256', 'ES384', 'ES256K'];

export type EcKeyType = 'P-256' | 'P-384' | 'secp256k1';
export type OkpKeyType = 'Ed25519' | 'X25519';

/** Everything the module needs to know about an elliptic curve of the ECDSA family. */
export interface EcCurve {
  /** OpenSSL's name, as `createECDH` and `ECDH.convertKey` want it. */
  opensslName: string;
  /** Bytes per coordinate (and per private scalar): also half of an IEEE P1363 `r||s` signature. */
  size: number;
  /** Digest paired with the curve by JWA (RFC 7518 §3.4, RFC 8812 §3.2). */
  hash: 'sha256' | 'sha384';
}

export const EC_CURVES: Readonly<Record<EcKeyType, EcCurve>> = {
  'P-256': { opensslName: 'prime256v1', size: 32, hash: 'sha256' },
  'P-384': { opensslName: 'secp384r1', size: 48, hash: 'sha384' },
  secp256k1: { opensslName: 'secp256k1', size: 32, hash: 'sha256' },
};

/** Raw key length of the Edwards/Montgomery keys (public key and private seed alike). */
export const OKP_KEY_LENGTH = 32;

export function isEcKeyType(type: KeyType): type is EcKeyType {
  return type === 'P-256' || type === 'P-384' || type === 'secp256k1';
}

export function isKeyType(value: unknown): value is KeyType {
  return typeof value === 'string' && (KEY_TYPES as readonly string[]).includes(value);
}

export function isJwsAlgorithm(value: unknown): value is JwsAlgorithm {
  return typeof value === 'string' && (JWS_ALGORITHMS as readonly string[]).includes(value);
}

const ALGORITHM_OF: Readonly<Record<Exclude<KeyType, 'X25519'>, JwsAlgorithm>> = {
  Ed25519: 'EdDSA',
  'P-256': 'ES256',
  'P-384': 'ES384',
  secp256k1: 'ES256K',
};

/** The JWS algorithm a key type signs with; X25519 is a key-agreement key and has none. */
export function jwsAlgorithmFor(type: KeyType): JwsAlgorithm {
  if (type === 'X25519') throw badRequest('X25519 keys cannot sign: they are key-agreement keys');
  const algorithm = ALGORITHM_OF[type];
  if (!algorithm) throw badRequest(`unsupported key type '${String(type)}'`);
  return algorithm;
}
