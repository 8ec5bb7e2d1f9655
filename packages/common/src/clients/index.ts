/**
 * Clients of services' HTTP APIs: the node's administrator API (what the local federation `@anchor/dev-env`,
 * integration tests, benchmarks and command-line tools drive a running node with), the kms, through
 * which services sign (`kmsSigner`, a common `Signer`), and the transparency log (`VctLogClient`: add, STHs,
 * consistency and inclusion proofs, every answer checked against the log's WebFinger key).
 */
export {
  NodeAdminClient,
  type AcceptListEntry,
  type AcceptListType,
  type AcceptListUpdate,
  type AdminActivity,
  type NodeAdminClientOptions,
  type NodeHealth,
  type ServiceCollection,
} from './node-admin-client.js';
export {
  DEFAULT_KMS_RETRY,
  KmsClient,
  KmsKeystore,
  type CreatedDid,
  type CreatedKeystore,
  type KeystoreInfo,
  type KmsClientOptions,
  type KmsHealth,
  type KmsKeyInfo,
  type KmsKeyType,
  type KmsPublicKeyInfo,
  type KmsRecipientKey,
  type KmsWrappedKey,
  type Versioned,
} from './kms-client.js';
export { KMS_SIGNING_KEY_TYPES, kmsKeyTypeFor, kmsSigner, type KmsSigner } from './kms-signer.js';
export {
  connectKms,
  kmsOptions,
  kmsOptionsProblem,
  kmsSettingsOf,
  openKmsSigner,
  type KmsConnection,
  type KmsOptionValues,
  type KmsSettings,
} from './kms-config.js';
export { VctLogClient, type VctLogClientOptions, type VerifiedInclusion } from './vct-log-client.js';
export {
  VcsClient,
  type IssuerProfile,
  type VcsClientOptions,
  type VctReceipt,
  type Verification,
} from './vcs-client.js';
