import type { JwsAlgorithm } from '@anchor/common/crypto';
import { SHA2_256 } from '@anchor/common/encoding';

/**
 * Protocol parameters as data. One code path serves every profile: the did:node profile (orb's protocol
 * v1.0, which this network speaks) and the DIF profile (what the DIF Sidetree v1 vectors need).
 */
export type PatchAction =
  | 'add-public-keys'
  | 'remove-public-keys'
  | 'add-services'
  | 'remove-services'
  | 'add-also-known-as'
  | 'remove-also-known-as'
  | 'replace';

export const PATCH_ACTIONS: readonly PatchAction[] = [
  'add-public-keys',
  'remove-public-keys',
  'add-services',
  'remove-services',
  'add-also-known-as',
  'remove-also-known-as',
  'replace',
];

export interface ProtocolParameters {
  /** Used in error messages, e.g. "did:node v1.0". */
  name: string;
  /** Carried on anchored operations (`protocolVersion`); orb uses the genesis time, 0. */
  protocolVersion: number;
  /** Multihash codes allowed in suffixes, commitments, reveal values and delta hashes. */
  multihashAlgorithms: readonly number[];
  /** Longest encoded hash (commitment, reveal value, delta hash, suffix) accepted. */
  maxOperationHashLength: number;
  /** Largest raw operation request (bytes) accepted at ingest. */
  maxOperationSize: number;
  /** Largest canonical (JCS) delta in bytes. */
  maxDeltaSize: number;
  maxCasUriLength: number;
  maxOperationCount: number;
  maxCoreIndexFileSize: number;
  maxProvisionalIndexFileSize: number;
  maxProofFileSize: number;
  maxChunkFileSize: number;
  /** A batch file may decompress to at most this many times its size limit. */
  maxMemoryDecompressionFactor: number;
  compressionAlgorithm: 'GZIP';
  /** Bytes an optional signing-JWK `nonce` must decode to. */
  nonceSize: number;
  /** JWS `alg` values allowed on signed data. */
  signatureAlgorithms: readonly JwsAlgorithm[];
  /** JWK `crv` values allowed for update and recovery (signing) keys. */
  keyCurves: readonly string[];
  /** Patch actions a delta may use. */
  patchActions: readonly PatchAction[];
  /** did:node: create (suffixData) and recover (signedData) must name an anchor origin at ingest. */
  requireAnchorOrigin: boolean;
  /**
   * Whether a patch may add a public key whose JWK kty / crv (or base58 key type) this implementation cannot
   * check as a point on a known curve. Off: every key published is usable (ingest only).
   */
  allowUnknownKeyTypes: boolean;
  /**
   * Seconds after `anchorFrom` that an operation without `anchorUntil` stays valid, at ingest and in
   * resolution alike. 1700 is what orb's resolver effectively applies (it adds MaxDeltaSize by mistake), so
   * resolution agrees with orb nodes; orb's ingest uses 0 there, rejecting every such operation as expired.
   */
  anchorUntilWindow: number;
}

/** did:node protocol v1.0: orb's `v1_0` configuration. */
export const DID_NODE_PROTOCOL: ProtocolParameters = Object.freeze({
  name: 'did:node v1.0',
  protocolVersion: 0,
  multihashAlgorithms: Object.freeze([SHA2_256]),
  maxOperationHashLength: 100,
  maxOperationSize: 2500,
  maxDeltaSize: 1700,
  maxCasUriLength: 500,
  maxOperationCount: 10_000,
  maxCoreIndexFileSize: 1_000_000,
  maxProvisionalIndexFileSize: 1_000_000,
  maxProofFileSize: 2_500_000,
  maxChunkFileSize: 10_000_000,
  maxMemoryDecompressionFactor: 3,
  compressionAlgorithm: 'GZIP',
  nonceSize: 16,
  signatureAlgorithms: Object.freeze(['EdDSA', 'ES256', 'ES256K'] as const),
  keyCurves: Object.freeze(['Ed25519', 'P-256', 'P-384', 'secp256k1']),
  patchActions: Object.freeze([
    'add-public-keys',
    'remove-public-keys',
    'add-services',
    'remove-services',
    'add-also-known-as',
    'remove-also-known-as',
  ] as const),
  requireAnchorOrigin: true,
  allowUnknownKeyTypes: false,
  anchorUntilWindow: 1700,
});

/** The DIF Sidetree v1 profile (ION reference implementation parameters): ES256K only, `replace` enabled. */
export const DIF_PROTOCOL: ProtocolParameters = Object.freeze({
  name: 'DIF Sidetree v1',
  protocolVersion: 0,
  multihashAlgorithms: Object.freeze([SHA2_256]),
  maxOperationHashLength: 100,
  maxOperationSize: 2500,
  maxDeltaSize: 1000,
  maxCasUriLength: 100,
  maxOperationCount: 10_000,
  maxCoreIndexFileSize: 1_000_000,
  maxProvisionalIndexFileSize: 1_000_000,
  maxProofFileSize: 2_500_000,
  maxChunkFileSize: 10_000_000,
  maxMemoryDecompressionFactor: 3,
  compressionAlgorithm: 'GZIP',
  nonceSize: 16,
  signatureAlgorithms: Object.freeze(['ES256K'] as const),
  keyCurves: Object.freeze(['secp256k1']),
  patchActions: Object.freeze([
    'replace',
    'add-public-keys',
    'remove-public-keys',
    'add-services',
    'remove-services',
  ] as const),
  requireAnchorOrigin: false,
  allowUnknownKeyTypes: false,
  anchorUntilWindow: 1700,
});
