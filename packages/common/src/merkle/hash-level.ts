import { HASH_SIZE } from './hash.js';

/**
 * One level of the tree: the hashes of its complete nodes, left to right, packed in a single growable
 * buffer. A million leaves then cost 64 MB over all levels instead of two million Buffer objects.
 * Stored hashes are never rewritten, which is what lets `at()` hand out views.
 */
export class HashLevel {
  #bytes: Buffer;
  #count = 0;

  constructor(initialCapacity = 16) {
    this.#bytes = Buffer.allocUnsafe(Math.max(1, initialCapacity) * HASH_SIZE);
  }

  /** Adopts packed hashes (length a multiple of 32) without copying them again. */
  static wrap(packed: Buffer): HashLevel {
    const level = new HashLevel(0);
    level.#bytes = packed;
    level.#count = packed.length / HASH_SIZE;
    return level;
  }

  get count(): number {
    return this.#count;
  }

  /** A view of hash `index`; valid for as long as the caller wants, since stored hashes never change. */
  at(index: number): Buffer {
    const start = index * HASH_SIZE;
    return this.#bytes.subarray(start, start + HASH_SIZE);
  }

  /** A view of hashes `index` and `index + 1`, adjacent in storage: a left child and its sibling. */
  siblings(index: number): Buffer {
    const start = index * HASH_SIZE;
    return this.#bytes.subarray(start, start + 2 * HASH_SIZE);
  }

  push(hash: Uint8Array): void {
    this.#reserve(this.#count + 1);
    this.#bytes.set(hash, this.#count * HASH_SIZE);
    this.#count++;
  }

  /** Reserves the next slot and returns the buffer and offset to write its hash into. */
  pushSlot(): { bytes: Buffer; offset: number } {
    this.#reserve(this.#count + 1);
    return { bytes: this.#bytes, offset: this.#count++ * HASH_SIZE };
  }

  /** A copy of the stored hashes, packed. */
  packed(): Buffer {
    return Buffer.from(this.#bytes.subarray(0, this.#count * HASH_SIZE));
  }

  #reserve(count: number): void {
    if (count * HASH_SIZE <= this.#bytes.length) return;
    const grown = Buffer.allocUnsafe(Math.max(count, this.#count * 2) * HASH_SIZE);
    this.#bytes.copy(grown, 0, 0, this.#count * HASH_SIZE);
    this.#bytes = grown;
  }
}
