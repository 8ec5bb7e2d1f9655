import type { KeyPair } from './key-pair.js';
import type { KeyType } from './key-types.js';

/**
 * What makes a signature for a service: a local key, or a key held in the kms behind the same shape. Every
 * signature a service makes (HTTP signatures, proofs of credentials, STHs) goes through one of these, so the
 * choice between local keys and the kms is made once, in configuration.
 */
export interface Signer {
  readonly type: KeyType;
  /** The public half, for verification methods, JWKs and key ids. Never holds a private key. */
  readonly publicKey: KeyPair;
  /** Where the key lives, for logs and health: `local`, or the kms key URL including its version. */
  readonly keyRef: string;
  /** Ed25519: 64 bytes; ECDSA: IEEE P1363 `r||s` over the curve's JWA digest of `data`. */
  sign(data: Uint8Array): Promise<Uint8Array>;
}

/** A signer over a private key held in this process. */
export function localSigner(key: KeyPair): Signer {
  if (!key.privateKey) throw new TypeError(`a local signer needs a private ${key.type} key`);
  const publicKey = key.toPublic();
  return {
    type: key.type,
    publicKey,
    keyRef: 'local',
    sign: async (data) => key.sign(data),
  };
}
