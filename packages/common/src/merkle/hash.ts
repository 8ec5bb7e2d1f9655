import { hash } from 'node:crypto';

/**
 * RFC 6962 §2.1 / RFC 9162 §2.1.1 hashing with SHA-256: leaves are `H(0x00 || data)`, interior nodes
 * `H(0x01 || left || right)`; the two prefixes keep a leaf from ever passing for a node (second-preimage).
 *
 * Speed matters here (a log rebuilds a million-leaf tree at start-up), so node hashes are written straight
 * into their destination: node's one-shot `hash()` with a 'binary' (latin1) string output, written back with
 * `Buffer.write`, is about twice as fast as `createHash().update().digest()`, whose per-call Buffer
 * allocation dominates at 65 bytes.
 */
export const HASH_SIZE = 32;

const LEAF_PREFIX = 0x00;
const NODE_PREFIX = 0x01;

/** MTH({}) = SHA-256 of the empty string, the root of the empty tree. */
export const EMPTY_TREE_ROOT: Buffer = hash('sha256', Buffer.alloc(0), 'buffer');

// One reusable input buffer for node hashing: safe because hashing is synchronous.
const nodeInput = Buffer.alloc(1 + 2 * HASH_SIZE);
nodeInput[0] = NODE_PREFIX;

export function leafHash(data: Uint8Array): Buffer {
  return hash('sha256', Buffer.concat([Buffer.from([LEAF_PREFIX]), data]), 'buffer');
}

export function nodeHash(left: Uint8Array, right: Uint8Array): Buffer {
  if (left.length !== HASH_SIZE || right.length !== HASH_SIZE)
    throw new RangeError(`node hash inputs must be ${HASH_SIZE} bytes each`);
  const out = Buffer.allocUnsafe(HASH_SIZE);
  nodeHashInto(left, right, out, 0);
  return out;
}

/** Writes `H(0x01 || left || right)` into `target` at `offset` without allocating; inputs must be 32 bytes (unchecked: hot path). */
export function nodeHashInto(left: Uint8Array, right: Uint8Array, target: Buffer, offset: number): void {
  nodeInput.set(left, 1);
  nodeInput.set(right, 1 + HASH_SIZE);
  writeNodeHash(target, offset);
}

/** As `nodeHashInto` for two sibling hashes stored back to back (64 bytes), as they are within a tree level. */
export function siblingsHashInto(siblings: Uint8Array, target: Buffer, offset: number): void {
  nodeInput.set(siblings, 1);
  writeNodeHash(target, offset);
}

function writeNodeHash(target: Buffer, offset: number): void {
  // 'binary' (latin1) maps each digest byte to one character and back, so this is a plain byte copy.
  target.write(hash('sha256', nodeInput, 'binary'), offset, HASH_SIZE, 'binary');
}
