/**
 * RFC 6962 / RFC 9162 Merkle trees: leaf and node hashing, an append-only tree answering roots, audit paths
 * and consistency proofs for any past size, and the verification of both proofs. Pure: no I/O.
 */
export { EMPTY_TREE_ROOT, HASH_SIZE, leafHash, nodeHash } from './hash.js';
export { MerkleTree, rootOfLeafHashes } from './tree.js';
export { rootFromInclusionProof, verifyConsistency, verifyInclusion } from './verify.js';
export {
  consistencyRanges,
  foldPerfectParts,
  inclusionRanges,
  perfectParts,
  type NodeRef,
  type SubtreeRange,
} from './ranges.js';
