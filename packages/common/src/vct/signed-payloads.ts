import { canonicalize as jcs } from '../encoding/index.js';
import { checkLeafFields, STRUCTURE_VERSION, VC_LOG_ENTRY_TYPE } from './leaf.js';

/**
 * The bytes a log signs (vct-kms.md §A.5-A.6), JCS-serialised JSON as trustbloc/vct produces them. The log
 * signs them; a client rebuilds the same bytes from what it sent and received and verifies them against
 * the public key the log publishes through WebFinger.
 */
export const VC_TIMESTAMP_SIGNATURE_TYPE = 100;
export const TREE_HEAD_SIGNATURE_TYPE = 101;

/**
 * `VCTimestampSignature` of a logged leaf: what an add-vc signature covers, with `vcEntry` the leaf's
 * base64 N-Quads (`vcEntryOf`). Written out in JCS member order directly, as the leaf is (see
 * `buildLeafInput`); a unit test holds it equal to the general serialiser.
 */
export function vcTimestampSignaturePayload(timestamp: number, vcEntry: string): Buffer {
  checkLeafFields(timestamp, vcEntry);
  return Buffer.from(
    `{"entry_type":${VC_LOG_ENTRY_TYPE},"extensions":null,"signature_type":${VC_TIMESTAMP_SIGNATURE_TYPE},` +
      `"svct_version":${STRUCTURE_VERSION},"timestamp":${timestamp},"vc_entry":"${vcEntry}"}`,
    'latin1',
  );
}

/** `TreeHeadSignature`: what a signed tree head covers. Note `sha_256_root_hash` here, `sha256_root_hash` on the wire. */
export function treeHeadSignaturePayload(timestamp: number, treeSize: number, rootHash: Uint8Array): Buffer {
  return Buffer.from(
    jcs({
      version: STRUCTURE_VERSION,
      signature_type: TREE_HEAD_SIGNATURE_TYPE,
      timestamp,
      tree_size: treeSize,
      sha_256_root_hash: Buffer.from(rootHash).toString('base64'),
    }),
    'utf8',
  );
}
