import type { Sealed } from './envelope.js';

/** A keystore: its controller and its data key, sealed by the master key (store `kms-keystores`, key = id). */
export interface KeystoreRecord {
  id: string;
  controller: string;
  createdAt: string;
  /** The keystore's data key under the master key, AAD `keystore:<id>`. */
  dataKey: Sealed;
  /** SHA-256 of the capability token (base64): the token itself is shown once and never stored. */
  capabilityDigest: string;
}

/** One version of a key: its secret sealed by the keystore's data key, AAD `key:<keystore>:<key>:<version>`. */
export interface KeyVersionRecord {
  version: number;
  createdAt: string;
  secret: Sealed;
  /** The exported public key (base64), for key types that have one. */
  publicKey?: string;
}

/** A key of a keystore and all its versions (store `kms-keys`, key `<keystore>:<key id>`). */
export interface KeyRecord {
  keystoreId: string;
  keyId: string;
  keyType: string;
  createdAt: string;
  /** Oldest first; the last one signs and encrypts. */
  versions: KeyVersionRecord[];
}

/** Finds an ED25519 key by its public key, for easyopen / sealopen (store `kms-public-keys`, key `<keystore>:<sha-256 of the key, base64url>`). */
export interface PublicKeyIndexRecord {
  keyId: string;
  version: number;
}

/** The master key's check value (store `kms-meta`, key `master-key-check`): a fixed text sealed under it. */
export interface MasterKeyCheckRecord {
  check: Sealed;
  createdAt: string;
}

export const STORES = {
  keystores: 'kms-keystores',
  keys: 'kms-keys',
  /** One record per key version (`<keystore>:<key id>:<version>`), inserted with the version: two rotations cannot both make version n. */
  keyVersions: 'kms-key-versions',
  publicKeys: 'kms-public-keys',
  meta: 'kms-meta',
} as const;

export const keyRecordId = (keystoreId: string, keyId: string): string => `${keystoreId}:${keyId}`;
export const keystoreAad = (keystoreId: string): string => `keystore:${keystoreId}`;
export const keyVersionAad = (keystoreId: string, keyId: string, version: number): string =>
  `key:${keystoreId}:${keyId}:${version}`;
