/**
 * The VCT (verifiable credential transparency) wire format the log serves and its clients check, as the
 * original trustbloc vct defines it (vct-kms.md §A.4-A.7): the `MerkleTreeLeaf` and its hash, the JCS
 * payloads the log signs (`VCTimestampSignature`, `TreeHeadSignature`), the `DigitallySigned` envelope
 * with its algorithm labels, signing and verification, the log id and the answers' shapes. Pure: no I/O.
 */
export {
  buildLeafInput,
  checkLeafFields,
  leafHashOf,
  leafObject,
  parseLeafInput,
  vcEntryOf,
  STRUCTURE_VERSION,
  TIMESTAMPED_ENTRY_LEAF_TYPE,
  VC_LOG_ENTRY_TYPE,
  type MerkleTreeLeaf,
} from './leaf.js';
export {
  treeHeadSignaturePayload,
  vcTimestampSignaturePayload,
  TREE_HEAD_SIGNATURE_TYPE,
  VC_TIMESTAMP_SIGNATURE_TYPE,
} from './signed-payloads.js';
export {
  envelopeProblem,
  logIdOf,
  signatureAlgorithmOf,
  signEnvelope,
  envelopeOf,
  verifyEnvelope,
  type DigitallySigned,
  type LogKeyType,
  type SignatureAlgorithm,
} from './digitally-signed.js';
export type { AddVcResponse, SignedTreeHead } from './responses.js';
