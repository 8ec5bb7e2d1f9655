import { createECDH } from 'node:crypto';
import { KeyPair, type Signer } from '@anchor/common/crypto';
import { badRequest } from '@anchor/common/errors';

/** The key types a profile's DID may be created with (`didKeyType`), in vc-rest's spelling and ours. */
export type ProfileKeyType = 'Ed25519' | 'P-256';

/**
 * Where the service's issuer and holder keys live: in this process's key store (`local`) or in the kms. A profile
 * remembers only the `keyRef` of its signing key; every signature goes through the `Signer` this gives for it.
 */
export interface SigningKeys {
  readonly kind: 'local' | 'kms';
  /** A new key; its signer's `keyRef` is what a profile stores. */
  createKey(type: ProfileKeyType): Promise<Signer>;
  /** Takes over a private key given with a profile (`didPrivateKey`). */
  importKey(type: ProfileKeyType, privateKey: Uint8Array): Promise<Signer>;
  /** The signer of a stored key; not_found when the key is gone. */
  signer(keyRef: string): Promise<Signer>;
  /** `success`, or why keys cannot be used now (health). */
  status(): Promise<string>;
  close(): Promise<void>;
}

/**
 * A private key given with a profile (`didPrivateKey`, base58 in vc-rest): Ed25519 as the 32-byte seed or the
 * 64-byte seed||public form, P-256 as the 32-byte scalar. 400 for anything else.
 */
export function privateKeyFromBytes(type: ProfileKeyType, bytes: Uint8Array): KeyPair {
  try {
    if (type === 'Ed25519') {
      if (bytes.length !== 32 && bytes.length !== 64) throw new Error(`expected 32 or 64 bytes, got ${bytes.length}`);
      const key = KeyPair.fromSeed('Ed25519', bytes.subarray(0, 32));
      if (bytes.length === 64 && !key.publicKeyBytes().equals(bytes.subarray(32)))
        throw new Error('its second half is not the public key of its first');
      return key;
    }
    if (bytes.length !== 32) throw new Error(`expected a 32-byte scalar, got ${bytes.length}`);
    const ecdh = createECDH('prime256v1');
    ecdh.setPrivateKey(bytes);
    const point = ecdh.getPublicKey();
    const b64 = (part: Uint8Array): string => Buffer.from(part).toString('base64url');
    return KeyPair.fromJwk({
      kty: 'EC',
      crv: 'P-256',
      d: b64(bytes),
      x: b64(point.subarray(1, 33)),
      y: b64(point.subarray(33)),
    });
  } catch (error) {
    throw badRequest(`didPrivateKey is not a ${type} private key: ${(error as Error).message}`);
  }
}
