import { badRequest } from '../errors/index.js';
import { EMPTY_TREE_ROOT, HASH_SIZE, leafHash, nodeHash, siblingsHashInto } from './hash.js';
import { HashLevel } from './hash-level.js';

/**
 * An append-only RFC 6962 Merkle tree that can answer for any past size.
 *
 * It keeps, per level h, the hash of every complete aligned subtree of 2^h leaves (level 0 = leaf hashes).
 * Those nodes never change once complete, so appending is O(1) amortised (O(log n) worst case), and any
 * subtree hash the RFC recursion needs for a size ≤ the current one is either stored or folds from
 * O(log n) stored nodes along one right edge. So every root, inclusion proof and consistency proof,
 * for the current size or any earlier one, costs O(log n) hashes. No I/O: a service persists
 * `leafHashes()` (or all `levels()`) and restores with `fromLeafHashes` (or `fromLevels`).
 */
export class MerkleTree {
  readonly #levels: HashLevel[];

  private constructor(levels: HashLevel[]) {
    this.#levels = levels.length > 0 ? levels : [new HashLevel()];
  }

  static empty(): MerkleTree {
    return new MerkleTree([]);
  }

  /**
   * Builds the tree over existing leaf hashes in one pass per level (the start-up path of a log): either an
   * array of 32-byte hashes or the hashes packed back to back in one buffer.
   */
  static fromLeafHashes(leafHashes: readonly Uint8Array[] | Uint8Array): MerkleTree {
    const levels = [HashLevel.wrap(packLeafHashes(leafHashes))];
    for (let below = levels[0]!; below.count > 1;) {
      const count = Math.floor(below.count / 2);
      const bytes = Buffer.allocUnsafe(count * HASH_SIZE);
      for (let i = 0; i < count; i++) siblingsHashInto(below.siblings(2 * i), bytes, i * HASH_SIZE);
      below = HashLevel.wrap(bytes);
      levels.push(below);
    }
    return new MerkleTree(levels);
  }

  /**
   * Restores a tree from `levels()` output without rehashing. Only the shape is checked (each level holds
   * exactly the complete nodes for the leaf count); the hashes are trusted, so persist them where they are
   * as safe as the leaves themselves, or rebuild with `fromLeafHashes` when in doubt.
   */
  static fromLevels(levels: readonly Uint8Array[]): MerkleTree {
    if (levels.length === 0) return MerkleTree.empty();
    const leafBytes = levels[0]!.length;
    if (leafBytes % HASH_SIZE !== 0) throw badRequest(`leaf level must hold whole ${HASH_SIZE}-byte hashes`);
    const size = leafBytes / HASH_SIZE;
    const expectedLevels = size <= 1 ? 1 : Math.floor(Math.log2(size)) + 1;
    if (levels.length !== expectedLevels)
      throw badRequest(`a tree of ${size} leaves has ${expectedLevels} levels, got ${levels.length}`);
    return new MerkleTree(
      levels.map((level, height) => {
        const expected = Math.floor(size / 2 ** height) * HASH_SIZE;
        if (level.length !== expected)
          throw badRequest(`level ${height} must hold ${expected} bytes, got ${level.length}`);
        return HashLevel.wrap(Buffer.from(level));
      }),
    );
  }

  /** Number of leaves. */
  get size(): number {
    return this.#levels[0]!.count;
  }

  /** Appends a leaf by its hash (`leafHash(data)`) and returns its index. */
  append(hash: Uint8Array): number {
    if (!(hash instanceof Uint8Array) || hash.length !== HASH_SIZE)
      throw badRequest(`leaf hash must be ${HASH_SIZE} bytes`);
    const index = this.size;
    this.#levels[0]!.push(hash);
    // Each time the new node is a right child, its parent subtree has just become complete.
    for (let height = 0, position = index; position % 2 === 1; height++, position = (position - 1) / 2) {
      const level = this.#levels[height]!;
      const parent = (this.#levels[height + 1] ??= new HashLevel());
      const { bytes, offset } = parent.pushSlot();
      siblingsHashInto(level.siblings(position - 1), bytes, offset);
    }
    return index;
  }

  /** Appends a leaf by its data, hashing it as `H(0x00 || data)`; returns its index. */
  appendData(data: Uint8Array): number {
    return this.append(leafHash(data));
  }

  leafHash(index: number): Buffer {
    this.#checkIndex(index, this.size);
    return Buffer.from(this.#levels[0]!.at(index));
  }

  /** MTH of the first `size` leaves (default: all), RFC 6962 §2.1. */
  root(size: number = this.size): Buffer {
    this.#checkSize(size);
    return size === 0 ? Buffer.from(EMPTY_TREE_ROOT) : Buffer.from(this.#subtreeHash(0, size));
  }

  /** PATH(index, D[0:size]) of RFC 6962 §2.1.1, leaf to root. */
  inclusionProof(index: number, size: number = this.size): Buffer[] {
    this.#checkSize(size);
    this.#checkIndex(index, size);
    const proof: Buffer[] = [];
    this.#path(index, 0, size, proof);
    return proof.map((hash) => Buffer.from(hash));
  }

  /** PROOF(first, D[0:second]) of RFC 6962 §2.1.2; empty when first is 0 or equals second. */
  consistencyProof(first: number, second: number = this.size): Buffer[] {
    this.#checkSize(second);
    if (!Number.isSafeInteger(first) || first < 0 || first > second) {
      throw badRequest(`first tree size ${String(first)} must be an integer between 0 and ${second}`);
    }
    const proof: Buffer[] = [];
    if (first > 0 && first < second) this.#subproof(first, 0, second, true, proof);
    return proof.map((hash) => Buffer.from(hash));
  }

  /** Copies of the stored levels, leaf hashes first, each packed back to back: what `fromLevels` restores. */
  levels(): Buffer[] {
    return this.#levels.map((level) => level.packed());
  }

  /**
   * Copies of `count` complete nodes at `height` (leaves are height 0) from node `start` on, packed back to
   * back: a tlog-tiles hash tile. A node the tree has not completed yet is a `bad_request`.
   */
  nodes(height: number, start: number, count: number): Buffer {
    const available = Number.isInteger(height) && height >= 0 ? (this.#levels[height]?.count ?? 0) : 0;
    if (
      !Number.isSafeInteger(start) ||
      !Number.isSafeInteger(count) ||
      start < 0 ||
      count < 0 ||
      start + count > available
    )
      throw badRequest(
        `nodes ${start} to ${start + count - 1} at height ${height} are not complete in a tree of size ${this.size}`,
      );
    const packed = Buffer.alloc(count * HASH_SIZE);
    for (let i = 0; i < count; i++) this.#levels[height]!.at(start + i).copy(packed, i * HASH_SIZE);
    return packed;
  }

  /** Copy of all leaf hashes packed back to back (32 bytes each): what `fromLeafHashes` rebuilds from. */
  leafHashes(): Buffer {
    return this.#levels[0]!.packed();
  }

  #path(index: number, start: number, size: number, proof: Buffer[]): void {
    if (size === 1) return;
    const k = largestPowerOfTwoBelow(size);
    if (index < k) {
      this.#path(index, start, k, proof);
      proof.push(this.#subtreeHash(start + k, size - k));
    } else {
      this.#path(index - k, start + k, size - k, proof);
      proof.push(this.#subtreeHash(start, k));
    }
  }

  #subproof(first: number, start: number, size: number, wholeFirstTree: boolean, proof: Buffer[]): void {
    if (first === size) {
      // The verifier already knows the first tree's root, so it is sent only for a proper subtree of it.
      if (!wholeFirstTree) proof.push(this.#subtreeHash(start, size));
      return;
    }
    const k = largestPowerOfTwoBelow(size);
    if (first <= k) {
      this.#subproof(first, start, k, wholeFirstTree, proof);
      proof.push(this.#subtreeHash(start + k, size - k));
    } else {
      this.#subproof(first - k, start + k, size - k, false, proof);
      proof.push(this.#subtreeHash(start, k));
    }
  }

  /**
   * MTH(D[start : start+size]) for a range the RFC recursion produces: `start` is a multiple of the largest
   * power of two ≤ size, so a perfect range is one stored node, and any other range splits into a perfect
   * left part and a smaller right remainder.
   */
  #subtreeHash(start: number, size: number): Buffer {
    if (isPowerOfTwo(size)) {
      const height = log2(size);
      return this.#levels[height]!.at(start / size);
    }
    const k = largestPowerOfTwoBelow(size);
    return nodeHash(this.#levels[log2(k)]!.at(start / k), this.#subtreeHash(start + k, size - k));
  }

  #checkSize(size: number): void {
    if (!Number.isSafeInteger(size) || size < 0 || size > this.size) {
      throw badRequest(`tree size ${String(size)} must be an integer between 0 and the current size ${this.size}`);
    }
  }

  #checkIndex(index: number, size: number): void {
    if (!Number.isSafeInteger(index) || index < 0 || index >= size) {
      throw badRequest(`leaf index ${String(index)} must be an integer below the tree size ${size}`);
    }
  }
}

/** MTH over an array of leaf hashes: the root of `MerkleTree.fromLeafHashes(leafHashes)`. */
export function rootOfLeafHashes(leafHashes: readonly Uint8Array[] | Uint8Array): Buffer {
  return MerkleTree.fromLeafHashes(leafHashes).root();
}

function packLeafHashes(leafHashes: readonly Uint8Array[] | Uint8Array): Buffer {
  if (leafHashes instanceof Uint8Array) {
    if (leafHashes.length % HASH_SIZE !== 0)
      throw badRequest(`packed leaf hashes must be a multiple of ${HASH_SIZE} bytes`);
    return Buffer.from(leafHashes);
  }
  if (!Array.isArray(leafHashes)) throw badRequest('leaf hashes must be an array or a packed buffer');
  const packed = Buffer.allocUnsafe(leafHashes.length * HASH_SIZE);
  leafHashes.forEach((hash, index) => {
    if (!(hash instanceof Uint8Array) || hash.length !== HASH_SIZE)
      throw badRequest(`leaf hash ${index} must be ${HASH_SIZE} bytes`);
    packed.set(hash, index * HASH_SIZE);
  });
  return packed;
}

// Tree sizes are bounded by memory (2^27 leaves is already 4 GB of leaf hashes), so 32-bit bit tricks are safe here.
function isPowerOfTwo(value: number): boolean {
  return value > 0 && (value & (value - 1)) === 0;
}

function log2(powerOfTwo: number): number {
  return 31 - Math.clz32(powerOfTwo);
}

/** The largest power of two strictly below `value` (value ≥ 2): the RFC's split point k. */
function largestPowerOfTwoBelow(value: number): number {
  return 2 ** (31 - Math.clz32(value - 1));
}
