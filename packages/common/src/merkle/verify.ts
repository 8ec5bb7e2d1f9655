import { EMPTY_TREE_ROOT, HASH_SIZE, nodeHash } from './hash.js';

/**
 * Proof verification exactly as RFC 9162 §2.1.3.2 (inclusion) and §2.1.4.2 (consistency) specify it, with
 * Trillian's preconditions for the degenerate cases. Verifiers only ever answer true or false: malformed
 * input (negative or fractional sizes, hashes that are not 32 bytes, proofs of the wrong length) is false;
 * only two trees of one size are compared as they are, root bytes against root bytes (RFC 6962: no proof).
 * Sizes are plain numbers, halved by division rather than `>>` so trees beyond 2^32 leaves stay correct.
 */

const isSize = (value: number): boolean => Number.isSafeInteger(value) && value >= 0;
const isHash = (value: unknown): value is Uint8Array => value instanceof Uint8Array && value.length === HASH_SIZE;
/** A root of some length: equal-size checks compare roots as opaque bytes. */
const isRoot = (value: unknown): value is Uint8Array => value instanceof Uint8Array && value.length > 0;
const isOdd = (value: number): boolean => value % 2 === 1;
const half = (value: number): number => Math.floor(value / 2);

function sameHash(a: Uint8Array, b: Uint8Array): boolean {
  return Buffer.from(a.buffer, a.byteOffset, a.byteLength).equals(b);
}

/**
 * The root an inclusion proof leads to, or undefined when the proof cannot be valid for (index, size):
 * RFC 9162 §2.1.3.2 steps 1–3 plus the `sn == 0` half of step 4.
 */
export function rootFromInclusionProof(
  leafIndex: number,
  treeSize: number,
  leafHash: Uint8Array,
  proof: readonly Uint8Array[],
): Buffer | undefined {
  if (!isSize(leafIndex) || !isSize(treeSize) || leafIndex >= treeSize || !isHash(leafHash) || !Array.isArray(proof))
    return undefined;
  let fn = leafIndex;
  let sn = treeSize - 1;
  let r: Buffer = Buffer.from(leafHash);
  for (const p of proof) {
    if (!isHash(p) || sn === 0) return undefined;
    if (isOdd(fn) || fn === sn) {
      r = nodeHash(p, r);
      // A right-edge node with no right sibling: climb until it becomes a right child (or the root).
      while (!isOdd(fn) && fn !== 0) {
        fn = half(fn);
        sn = half(sn);
      }
    } else {
      r = nodeHash(r, p);
    }
    fn = half(fn);
    sn = half(sn);
  }
  return sn === 0 ? r : undefined;
}

/** RFC 9162 §2.1.3.2: does `proof` show the leaf with hash `leafHash` at `leafIndex` in the tree of `treeSize` with `root`? */
export function verifyInclusion(
  leafIndex: number,
  treeSize: number,
  leafHash: Uint8Array,
  proof: readonly Uint8Array[],
  root: Uint8Array,
): boolean {
  if (!isHash(root)) return false;
  const computed = rootFromInclusionProof(leafIndex, treeSize, leafHash, proof);
  return computed !== undefined && sameHash(computed, root);
}

/** RFC 9162 §2.1.4.2: is the tree of `secondSize` with `secondRoot` an append-only extension of the tree of `firstSize`? */
export function verifyConsistency(
  firstSize: number,
  secondSize: number,
  firstRoot: Uint8Array,
  secondRoot: Uint8Array,
  proof: readonly Uint8Array[],
): boolean {
  if (!isSize(firstSize) || !isSize(secondSize) || firstSize > secondSize || !Array.isArray(proof)) return false;
  // Equal sizes: RFC 6962's proof is empty and nothing is hashed, so the trees are the same iff their roots
  // are the same bytes (as Go's verifier compares them). The empty tree's root is known: SHA-256 of nothing.
  if (firstSize === secondSize) {
    return (
      proof.length === 0 &&
      isRoot(firstRoot) &&
      isRoot(secondRoot) &&
      sameHash(firstRoot, secondRoot) &&
      (firstSize > 0 || sameHash(firstRoot, EMPTY_TREE_ROOT))
    );
  }
  if (!isHash(firstRoot) || !isHash(secondRoot)) return false;
  // Trillian's precondition: every tree extends the empty one.
  if (firstSize === 0) return proof.length === 0;
  if (proof.length === 0 || !proof.every(isHash)) return false;

  // Step 2: a first tree that is a perfect left subtree of the second contributes its own root.
  const path = isPowerOfTwo(firstSize) ? [firstRoot, ...proof] : proof;
  let fn = firstSize - 1;
  let sn = secondSize - 1;
  while (isOdd(fn)) {
    fn = half(fn);
    sn = half(sn);
  }
  let fr: Buffer = Buffer.from(path[0] as Uint8Array);
  let sr = fr;
  for (const c of path.slice(1)) {
    if (sn === 0) return false;
    if (isOdd(fn) || fn === sn) {
      fr = nodeHash(c, fr);
      sr = nodeHash(c, sr);
      while (!isOdd(fn) && fn !== 0) {
        fn = half(fn);
        sn = half(sn);
      }
    } else {
      sr = nodeHash(sr, c);
    }
    fn = half(fn);
    sn = half(sn);
  }
  return sn === 0 && sameHash(fr, firstRoot) && sameHash(sr, secondRoot);
}

function isPowerOfTwo(value: number): boolean {
  let v = value;
  while (v > 1 && v % 2 === 0) v /= 2;
  return v === 1;
}
