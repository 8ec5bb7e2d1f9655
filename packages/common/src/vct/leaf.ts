import { leafHash } from '../merkle/index.js';

/**
 * The log's leaf, byte for byte as trustbloc/vct builds it (vct-kms.md §A.5): a JSON `MerkleTreeLeaf`
 * serialised with JCS, whose `vc_entry` is base64 (standard, padded) of the URDNA2015 N-Quads of the
 * credential without its proof. The Merkle leaf hash is SHA-256(0x00 || those JCS bytes).
 */
export const STRUCTURE_VERSION = 0;
export const TIMESTAMPED_ENTRY_LEAF_TYPE = 100;
export const VC_LOG_ENTRY_TYPE = 100;

export interface MerkleTreeLeaf {
  version: number;
  leaf_type: number;
  timestamped_entry: { timestamp: number; entry_type: number; vc_entry: string; extensions: null };
}

/**
 * The JCS text of the leaf (ASCII: base64 and digits only; served as `leaf_input`), written out directly:
 * JCS of this fixed shape is its members in sorted order without whitespace, and neither an integer
 * timestamp nor a base64 string needs escaping. Tests hold it equal to the general JCS serialiser, which
 * costs several times more on a 4 KB entry.
 */
export function buildLeafInput(timestamp: number, vcEntry: string): string {
  checkLeafFields(timestamp, vcEntry);
  return (
    `{"leaf_type":${TIMESTAMPED_ENTRY_LEAF_TYPE},"timestamped_entry":{"entry_type":${VC_LOG_ENTRY_TYPE},"extensions":null,` +
    `"timestamp":${timestamp},"vc_entry":"${vcEntry}"},"version":${STRUCTURE_VERSION}}`
  );
}

/** The leaf as an object (what a leaf input parses to); JCS of it is `buildLeafInput`'s text. */
export function leafObject(timestamp: number, vcEntry: string): MerkleTreeLeaf {
  return {
    version: STRUCTURE_VERSION,
    leaf_type: TIMESTAMPED_ENTRY_LEAF_TYPE,
    timestamped_entry: { timestamp, entry_type: VC_LOG_ENTRY_TYPE, vc_entry: vcEntry, extensions: null },
  };
}

/**
 * The direct serialisations are JCS only for a safe non-negative integer and a string that needs no JSON
 * escaping, which base64 never does (`vcEntryOf` produces it). Checked with two scans rather than a regular
 * expression: this runs twice per add-vc on a 4 KB entry.
 */
export function checkLeafFields(timestamp: number, vcEntry: string): void {
  if (!Number.isSafeInteger(timestamp) || timestamp < 0)
    throw new RangeError(`leaf timestamp must be a non-negative integer, not ${timestamp}`);
  if (vcEntry.includes('"') || vcEntry.includes('\\')) throw new RangeError('vc_entry must be base64');
}

/** base64 of the N-Quads: the leaf's `vc_entry`. */
export function vcEntryOf(nquads: string): string {
  return Buffer.from(nquads, 'utf8').toString('base64');
}

/** The RFC 6962 leaf hash of a leaf input: what get-proof-by-hash takes (base64) and the tree holds. */
export function leafHashOf(leafInput: string): Buffer {
  return leafHash(Buffer.from(leafInput, 'utf8'));
}

/** Reads a stored or received leaf back; throws on anything that is not a V1 leaf. */
export function parseLeafInput(leafInput: string): MerkleTreeLeaf {
  const leaf = JSON.parse(leafInput) as MerkleTreeLeaf;
  const entry = leaf?.timestamped_entry;
  if (
    leaf?.version !== STRUCTURE_VERSION ||
    leaf.leaf_type !== TIMESTAMPED_ENTRY_LEAF_TYPE ||
    typeof entry !== 'object' ||
    entry === null ||
    entry.entry_type !== VC_LOG_ENTRY_TYPE ||
    typeof entry.timestamp !== 'number' ||
    typeof entry.vc_entry !== 'string'
  ) {
    throw new TypeError('not a V1 MerkleTreeLeaf');
  }
  return leaf;
}
