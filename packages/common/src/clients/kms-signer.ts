import { createPublicKey } from 'node:crypto';
import { KeyPair, type KeyType, type Signer } from '../crypto/index.js';
import { AppError, errorMessage } from '../errors/index.js';
import { ecdsaSignatureToP1363 } from '../httpsig/algorithms.js';
import type { KmsKeystore, KmsKeyType } from './kms-client.js';

/** How a kms key type's public key and signatures read as the `Signer` contract's (`crypto/signer.ts`). */
interface SigningForm {
  type: KeyType;
  publicKey: 'raw' | 'point' | 'spki';
  /** Bytes per `r`/`s` of an ECDSA signature, whose DER form is turned into P1363; absent for Ed25519. */
  scalarBytes?: number;
  der?: boolean;
}

const SIGNING_FORMS: Partial<Record<KmsKeyType, SigningForm>> = {
  ED25519: { type: 'Ed25519', publicKey: 'raw' },
  ECDSAP256IEEEP1363: { type: 'P-256', publicKey: 'point', scalarBytes: 32 },
  ECDSAP384IEEEP1363: { type: 'P-384', publicKey: 'point', scalarBytes: 48 },
  ECDSASecp256k1IEEEP1363: { type: 'secp256k1', publicKey: 'point', scalarBytes: 32 },
  ECDSAP256DER: { type: 'P-256', publicKey: 'spki', scalarBytes: 32, der: true },
  ECDSAP384DER: { type: 'P-384', publicKey: 'spki', scalarBytes: 48, der: true },
  ECDSASecp256k1DER: { type: 'secp256k1', publicKey: 'spki', scalarBytes: 32, der: true },
};

/** The kms key types a service can sign with through `kmsSigner`, and the common key type of each. */
export const KMS_SIGNING_KEY_TYPES: Readonly<Partial<Record<KmsKeyType, KeyType>>> = Object.freeze(
  Object.fromEntries(Object.entries(SIGNING_FORMS).map(([kmsType, form]) => [kmsType, form.type])),
);

/** The kms key type a service asks for when it creates a signing key of a common key type. */
export function kmsKeyTypeFor(type: KeyType): KmsKeyType {
  switch (type) {
    case 'Ed25519':
      return 'ED25519';
    case 'P-256':
      return 'ECDSAP256IEEEP1363';
    case 'P-384':
      return 'ECDSAP384IEEEP1363';
    case 'secp256k1':
      return 'ECDSASecp256k1IEEEP1363';
    default:
      throw new TypeError(`a ${type} key cannot sign`);
  }
}

/** A `Signer` over a kms key, and a health check that asks the kms about that key. */
export interface KmsSigner extends Signer {
  readonly keyId: string;
  readonly keyVersion: number | undefined;
  /**
   * `success`, or why signing through the kms would fail now: the kms cannot be reached, refuses the
   * credentials, no longer has the key, or has rotated it (its newest public key is not this signer's).
   */
  health(): Promise<string>;
}

/**
 * A signer whose private key stays in the kms: the public key (and key type, and version) is read once,
 * every `sign` is one kms call. ECDSA signatures of the DER key types are turned into IEEE P1363, as the
 * `Signer` contract says. A key rotated in the kms after this signer was made would sign with a key that
 * no longer matches the published one, so such a signature is refused (restart to publish the new key).
 */
export async function kmsSigner(keystore: KmsKeystore, keyId: string): Promise<KmsSigner> {
  const exported = await keystore.exportPublicKey(keyId);
  const keyType = exported.keyType;
  const form = keyType === undefined ? undefined : SIGNING_FORMS[keyType];
  if (keyType === undefined || form === undefined)
    throw new AppError(
      'bad_request',
      `kms key ${keystore.keyUrl(keyId)} is ${keyType ?? 'of an unnamed type'}; a signing key must be one of ${Object.keys(SIGNING_FORMS).join(', ')}`,
    );
  const publicKey = publicKeyOf(form, exported.publicKey, keystore.keyUrl(keyId));
  const keyVersion = exported.keyVersion;
  const keyRef = `${keystore.keyUrl(keyId)}${keyVersion !== undefined ? `#v${keyVersion}` : ''}`;
  const publishedBytes = exported.publicKey;

  return {
    type: form.type,
    publicKey,
    keyRef,
    keyId,
    keyVersion,
    async sign(data: Uint8Array): Promise<Uint8Array> {
      const { value, keyVersion: used } = await keystore.sign(keyId, data);
      if (keyVersion !== undefined && used !== undefined && used !== keyVersion)
        throw new AppError(
          'conflict',
          `kms key ${keystore.keyUrl(keyId)} was rotated to version ${used}; this service publishes version ${keyVersion}: restart it to publish the new key`,
          { retryable: false },
        );
      return form.scalarBytes !== undefined && form.der ? ecdsaSignatureToP1363(value, form.scalarBytes) : value;
    },
    async health(): Promise<string> {
      try {
        const now = await keystore.exportPublicKey(keyId);
        if (!now.publicKey.equals(publishedBytes))
          return `kms key ${keystore.keyUrl(keyId)} was rotated (version ${now.keyVersion ?? '?'}); restart to publish the new key`;
        return 'success';
      } catch (error) {
        return errorMessage(error);
      }
    },
  };
}

function publicKeyOf(form: SigningForm, bytes: Buffer, where: string): KeyPair {
  try {
    if (form.publicKey === 'spki') {
      const key = KeyPair.fromKeyObject(createPublicKey({ key: bytes, format: 'der', type: 'spki' }));
      if (key.type !== form.type) throw new Error(`the key is ${key.type}, not ${form.type}`);
      return key;
    }
    return KeyPair.fromPublicKeyBytes(form.type, bytes);
  } catch (error) {
    throw new AppError('bad_gateway', `kms key ${where}: unreadable ${form.type} public key: ${errorMessage(error)}`, {
      retryable: false,
    });
  }
}
