/**
 * Keys and signatures over node:crypto: key pairs (Ed25519, P-256, P-384, secp256k1, X25519) in every
 * encoding the protocols use (JWK, raw, PEM, multibase, base58), compact and detached JWS.
 */
export {
  type JwsAlgorithm,
  type KeyType,
  JWS_ALGORITHMS,
  KEY_TYPES,
  isJwsAlgorithm,
  isKeyType,
  jwsAlgorithmFor,
} from './key-types.js';
export { type Jwk, keyTypeOfJwk } from './jwk.js';
export { KeyPair } from './key-pair.js';
export { publicKeyFromJwk, verifySignature } from './key-cache.js';
export { type JwsHeaderInput } from './jws-header.js';
export { type ParsedJws, type VerifyJwsOptions, parseJws, signJws, verifyJws } from './jws.js';
export { signDetachedJws, signDetachedJwsWith, verifyDetachedJws } from './detached-jws.js';
export { goJsonMarshal } from './go-json.js';
export { isSecp256k1LowS } from './ecdsa.js';
export { ed25519ToX25519 } from './x25519-conversion.js';
export { type Signer, localSigner } from './signer.js';
