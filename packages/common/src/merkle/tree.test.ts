import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { AppError } from '../errors/index.js';
import {
  EMPTY_TREE_ROOT,
  MerkleTree,
  leafHash,
  nodeHash,
  rootOfLeafHashes,
  verifyConsistency,
  verifyInclusion,
} from './index.js';

/**
 * Property tests over trees up to 10,000 leaves, against a reference written straight from the RFC 6962
 * definitions (naive recursion over arrays, its own SHA-256 calls), with a seeded generator so a failure
 * names a reproducible case.
 */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const sha256 = (...parts: Uint8Array[]): Buffer => createHash('sha256').update(Buffer.concat(parts)).digest();
const ONE = Buffer.from([1]);
const k = (n: number): number => {
  let power = 1;
  while (power * 2 < n) power *= 2;
  return power;
};
const referenceMth = (d: Buffer[]): Buffer =>
  d.length === 0
    ? sha256(Buffer.alloc(0))
    : d.length === 1
      ? d[0]!
      : sha256(ONE, referenceMth(d.slice(0, k(d.length))), referenceMth(d.slice(k(d.length))));
const referencePath = (m: number, d: Buffer[]): Buffer[] => {
  if (d.length === 1) return [];
  const split = k(d.length);
  return m < split
    ? [...referencePath(m, d.slice(0, split)), referenceMth(d.slice(split))]
    : [...referencePath(m - split, d.slice(split)), referenceMth(d.slice(0, split))];
};
const referenceSubproof = (m: number, d: Buffer[], whole: boolean): Buffer[] => {
  if (m === d.length) return whole ? [] : [referenceMth(d)];
  const split = k(d.length);
  return m <= split
    ? [...referenceSubproof(m, d.slice(0, split), whole), referenceMth(d.slice(split))]
    : [...referenceSubproof(m - split, d.slice(split), false), referenceMth(d.slice(0, split))];
};

function tamperByte(hashes: Buffer[], next: () => number): Buffer[] {
  const copy = hashes.map((hash) => Buffer.from(hash));
  const target = copy[Math.floor(next() * copy.length)]!;
  target[Math.floor(next() * target.length)]! ^= 1 << Math.floor(next() * 8);
  return copy;
}

const SIZE = 10_000;
const leaves = Array.from({ length: SIZE }, (_, i) => leafHash(Buffer.from(`leaf ${i}`)));
const incremental = MerkleTree.empty();
for (const hash of leaves) incremental.append(hash);

describe('MerkleTree construction', () => {
  it('incremental appends and the bulk constructor store identical levels', () => {
    const bulk = MerkleTree.fromLeafHashes(leaves);
    expect(bulk.size).toBe(SIZE);
    expect(bulk.levels().map((level) => level.toString('hex'))).toEqual(
      incremental.levels().map((level) => level.toString('hex')),
    );
    expect(MerkleTree.fromLeafHashes(Buffer.concat(leaves)).root().equals(bulk.root())).toBe(true);
  });

  it('matches the reference root for every size up to 300 and for sampled sizes up to 10,000', () => {
    for (let size = 0; size <= 300; size++) {
      expect(incremental.root(size).equals(referenceMth(leaves.slice(0, size))), `root(${size})`).toBe(true);
    }
    const next = random(1);
    for (let sample = 0; sample < 25; sample++) {
      const size = 1 + Math.floor(next() * SIZE);
      expect(incremental.root(size).equals(referenceMth(leaves.slice(0, size))), `root(${size})`).toBe(true);
      expect(rootOfLeafHashes(leaves.slice(0, size)).equals(incremental.root(size))).toBe(true);
    }
  });

  it('restores from leaf hashes and from stored levels, and keeps appending afterwards', () => {
    const fromLeaves = MerkleTree.fromLeafHashes(incremental.leafHashes());
    const fromLevels = MerkleTree.fromLevels(incremental.levels());
    for (const restored of [fromLeaves, fromLevels]) {
      expect(restored.root().equals(incremental.root())).toBe(true);
      restored.appendData(Buffer.from('one more'));
      expect(restored.root().equals(referenceMth([...leaves, leafHash(Buffer.from('one more'))]))).toBe(true);
      expect(restored.root(SIZE).equals(incremental.root())).toBe(true);
    }
    expect(MerkleTree.fromLevels([]).size).toBe(0);
    expect(MerkleTree.fromLevels(MerkleTree.empty().levels()).root().equals(EMPTY_TREE_ROOT)).toBe(true);
  });

  it('returns copies, so callers cannot corrupt the tree', () => {
    const tree = MerkleTree.fromLeafHashes(leaves.slice(0, 10));
    const before = tree.root().toString('hex');
    tree.root().fill(0);
    tree.inclusionProof(3)[0]!.fill(0);
    tree.leafHash(3).fill(0);
    tree.levels()[0]!.fill(0);
    expect(tree.root().toString('hex')).toBe(before);
    const mutableInput = Buffer.from(leaves[0]!);
    const fromInput = MerkleTree.fromLeafHashes([mutableInput, leaves[1]!]);
    mutableInput.fill(0);
    expect(fromInput.leafHash(0).equals(leaves[0]!)).toBe(true);
  });
});

describe('MerkleTree proofs (randomised, past sizes included)', () => {
  it('inclusion proofs equal the reference, verify, and fail when any byte, index or size is tampered', () => {
    const next = random(2);
    for (let sample = 0; sample < 400; sample++) {
      const size = 1 + Math.floor(next() * SIZE);
      const index = Math.floor(next() * size);
      const proof = incremental.inclusionProof(index, size);
      const root = incremental.root(size);
      const leaf = leaves[index]!;
      const context = `PATH(${index}, ${size})`;
      if (sample < 40)
        expect(
          proof.map((h) => h.toString('hex')),
          context,
        ).toEqual(referencePath(index, leaves.slice(0, size)).map((h) => h.toString('hex')));
      expect(verifyInclusion(index, size, leaf, proof, root), context).toBe(true);
      if (proof.length > 0)
        expect(verifyInclusion(index, size, leaf, tamperByte(proof, next), root), `${context} proof byte`).toBe(false);
      expect(verifyInclusion(index, size, tamperByte([leaf], next)[0]!, proof, root), `${context} leaf byte`).toBe(
        false,
      );
      expect(verifyInclusion(index, size, leaf, proof, tamperByte([root], next)[0]!), `${context} root byte`).toBe(
        false,
      );
      const otherIndex = (index + 1 + Math.floor(next() * (size - 1))) % size;
      if (otherIndex !== index)
        expect(verifyInclusion(otherIndex, size, leaf, proof, root), `${context} index ${otherIndex}`).toBe(false);
      const otherSize = size < SIZE && next() < 0.5 ? size + 1 : Math.max(index + 1, size - 1);
      if (otherSize !== size)
        expect(
          verifyInclusion(index, otherSize, leaf, proof, incremental.root(otherSize)),
          `${context} size ${otherSize}`,
        ).toBe(false);
      expect(verifyInclusion(index, size, leaf, proof.slice(0, -1), root), `${context} truncated`).toBe(
        proof.length === 0,
      );
      expect(verifyInclusion(index, size, leaf, [...proof, root], root), `${context} extended`).toBe(false);
    }
  });

  it('consistency proofs equal the reference, verify, and fail when any byte or size is tampered', () => {
    const next = random(3);
    for (let sample = 0; sample < 400; sample++) {
      const second = 2 + Math.floor(next() * (SIZE - 1));
      const first = 1 + Math.floor(next() * (second - 1));
      const proof = incremental.consistencyProof(first, second);
      const firstRoot = incremental.root(first);
      const secondRoot = incremental.root(second);
      const context = `PROOF(${first}, ${second})`;
      if (sample < 40) {
        expect(
          proof.map((h) => h.toString('hex')),
          context,
        ).toEqual(referenceSubproof(first, leaves.slice(0, second), true).map((h) => h.toString('hex')));
      }
      expect(verifyConsistency(first, second, firstRoot, secondRoot, proof), context).toBe(true);
      expect(
        verifyConsistency(first, second, firstRoot, secondRoot, tamperByte(proof, next)),
        `${context} proof byte`,
      ).toBe(false);
      expect(
        verifyConsistency(first, second, tamperByte([firstRoot], next)[0]!, secondRoot, proof),
        `${context} first root`,
      ).toBe(false);
      expect(
        verifyConsistency(first, second, firstRoot, tamperByte([secondRoot], next)[0]!, proof),
        `${context} second root`,
      ).toBe(false);
      const otherFirst = first > 1 && next() < 0.5 ? first - 1 : first + 1;
      if (otherFirst < second) {
        expect(
          verifyConsistency(otherFirst, second, incremental.root(otherFirst), secondRoot, proof),
          `${context} first ${otherFirst}`,
        ).toBe(false);
      }
      const otherSecond = second < SIZE && next() < 0.5 ? second + 1 : second - 1;
      if (otherSecond > first) {
        expect(
          verifyConsistency(first, otherSecond, firstRoot, incremental.root(otherSecond), proof),
          `${context} second ${otherSecond}`,
        ).toBe(false);
      }
      expect(verifyConsistency(first, second, firstRoot, secondRoot, proof.slice(1)), `${context} truncated`).toBe(
        false,
      );
    }
  });

  it('proves consistency between two past sizes, each against the roots that tree once published', () => {
    const growing = MerkleTree.empty();
    const published: Buffer[] = [growing.root()];
    for (const hash of leaves.slice(0, 600)) {
      growing.append(hash);
      published.push(growing.root());
    }
    const next = random(4);
    for (let sample = 0; sample < 200; sample++) {
      const second = 1 + Math.floor(next() * 600);
      const first = Math.floor(next() * (second + 1));
      expect(
        verifyConsistency(
          first,
          second,
          published[first]!,
          published[second]!,
          growing.consistencyProof(first, second),
        ),
        `PROOF(${first}, ${second})`,
      ).toBe(true);
      const index = Math.floor(next() * second);
      expect(
        verifyInclusion(index, second, leaves[index]!, growing.inclusionProof(index, second), published[second]!),
      ).toBe(true);
    }
  });

  it('keeps proofs short: at most ceil(log2 n) hashes for inclusion and ~2 log2 n for consistency', () => {
    expect(incremental.inclusionProof(4321).length).toBeLessThanOrEqual(Math.ceil(Math.log2(SIZE)));
    expect(incremental.consistencyProof(4321).length).toBeLessThanOrEqual(2 * Math.ceil(Math.log2(SIZE)));
  });
});

describe('MerkleTree and verifier input checks', () => {
  const tree = MerkleTree.fromLeafHashes(leaves.slice(0, 8));
  const badRequest = (fn: () => unknown, message: string): void => {
    expect(fn).toThrow(AppError);
    expect(fn).toThrow(message);
  };

  it('rejects out-of-range or malformed sizes and indexes with bad_request', () => {
    badRequest(() => tree.root(9), 'tree size 9 must be an integer between 0 and the current size 8');
    badRequest(() => tree.root(-1), 'tree size -1');
    badRequest(() => tree.root(1.5), 'tree size 1.5');
    badRequest(() => tree.inclusionProof(8), 'leaf index 8 must be an integer below the tree size 8');
    badRequest(() => tree.inclusionProof(3, 3), 'leaf index 3 must be an integer below the tree size 3');
    badRequest(() => tree.inclusionProof(0, 0), 'leaf index 0 must be an integer below the tree size 0');
    badRequest(() => tree.consistencyProof(5, 4), 'first tree size 5 must be an integer between 0 and 4');
    badRequest(() => tree.consistencyProof(1, 9), 'tree size 9');
    badRequest(() => tree.leafHash(8), 'leaf index 8');
    badRequest(() => tree.append(Buffer.alloc(31)), 'leaf hash must be 32 bytes');
    badRequest(() => MerkleTree.fromLeafHashes([Buffer.alloc(32), Buffer.alloc(33)]), 'leaf hash 1 must be 32 bytes');
    badRequest(() => MerkleTree.fromLeafHashes(Buffer.alloc(33)), 'multiple of 32 bytes');
  });

  it('rejects level snapshots of the wrong shape', () => {
    const levels = tree.levels();
    badRequest(() => MerkleTree.fromLevels(levels.slice(0, 3)), 'a tree of 8 leaves has 4 levels, got 3');
    badRequest(
      () => MerkleTree.fromLevels([levels[0]!, levels[1]!.subarray(32), levels[2]!, levels[3]!]),
      'level 1 must hold 128 bytes, got 96',
    );
    badRequest(() => MerkleTree.fromLevels([Buffer.alloc(40)]), 'whole 32-byte hashes');
  });

  it('verifiers answer false, never throw, on malformed input', () => {
    const root = tree.root();
    const proof = tree.inclusionProof(2);
    expect(verifyInclusion(2, 8, leaves[2]!, proof, root)).toBe(true);
    expect(verifyInclusion(-1, 8, leaves[2]!, proof, root)).toBe(false);
    expect(verifyInclusion(2.5, 8, leaves[2]!, proof, root)).toBe(false);
    expect(verifyInclusion(2, Number.NaN, leaves[2]!, proof, root)).toBe(false);
    expect(verifyInclusion(2, 8, leaves[2]!.subarray(1), proof, root)).toBe(false);
    expect(verifyInclusion(2, 8, leaves[2]!, [proof[0]!.subarray(1), proof[1]!, proof[2]!], root)).toBe(false);
    expect(verifyInclusion(2, 8, leaves[2]!, proof, root.subarray(0, 31))).toBe(false);
    expect(verifyInclusion(2, 8, leaves[2]!, null as unknown as Buffer[], root)).toBe(false);
    expect(verifyInclusion(2, 8, 'abc' as unknown as Buffer, proof, root)).toBe(false);
    const consistency = tree.consistencyProof(3);
    expect(verifyConsistency(3, 8, tree.root(3), root, consistency)).toBe(true);
    expect(verifyConsistency(3, 8, tree.root(3), root, [...consistency.slice(0, -1), Buffer.alloc(5)])).toBe(false);
    expect(verifyConsistency(-3, 8, tree.root(3), root, consistency)).toBe(false);
    expect(verifyConsistency(3, 8, tree.root(3), root, undefined as unknown as Buffer[])).toBe(false);
    expect(() => nodeHash(Buffer.alloc(31), Buffer.alloc(32))).toThrow(RangeError);
  });

  it('takes two trees of one size with an empty proof (RFC 6962: the proof between equal sizes is empty)', () => {
    for (const size of [1, 3, 8]) {
      const root = tree.root(size);
      expect(tree.consistencyProof(size, size)).toEqual([]);
      expect(verifyConsistency(size, size, root, Buffer.from(root), []), `size ${size}`).toBe(true);
      expect(verifyConsistency(size, size, root, tree.root(size - 1), []), `size ${size}, other root`).toBe(false);
      expect(verifyConsistency(size, size, root, root, [root]), `size ${size}, a proof`).toBe(false);
    }
    // Nothing is hashed, so roots compare as bytes, as Go's verifier does (transparency-dev's vector).
    expect(verifyConsistency(1, 1, Buffer.from("don't care 2"), Buffer.from("don't care 2"), [])).toBe(true);
    expect(verifyConsistency(1, 1, Buffer.alloc(0), Buffer.alloc(0), [])).toBe(false);
    expect(verifyConsistency(1, 1, tree.root(1), 'x' as unknown as Buffer, [])).toBe(false);
    // The empty tree has one root, SHA-256 of nothing.
    expect(verifyConsistency(0, 0, tree.root(0), tree.root(0), [])).toBe(true);
    expect(verifyConsistency(0, 0, Buffer.from("don't care 1"), Buffer.from("don't care 1"), [])).toBe(false);
  });
});
