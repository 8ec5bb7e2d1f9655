/**
 * The kms crypto core: pure functions over bytes, no I/O. Key types as aries spells them; every
 * bad input throws a `KmsCryptoError` (errors.ts). Facts per key type and the differences from aries:
 * README.md beside this file.
 */
export { KmsCryptoError, isKmsCryptoError, type KmsCryptoErrorCode } from './errors.js';
export { KEY_TYPES, isKmsKeyType, keyKind, type KeyKind, type KmsKeyType } from './key-types.js';
export { SECRET_FORMAT_VERSION, keyMaterial, rawSecret, type KeyMaterial } from './key-material.js';
export { exportPublicKey, generateKey, importPrivateKey } from './keys.js';
export { sign, verify, verifyWithPublicKey } from './signatures.js';
export { computeMac, verifyMac } from './mac.js';
export { decrypt, encrypt } from './aead.js';
export { easy, easyOpen, sealOpen } from './nacl-box.js';
export { ecdhPrivateKey, type EcdhCurveName } from './ecdh-keys.js';
