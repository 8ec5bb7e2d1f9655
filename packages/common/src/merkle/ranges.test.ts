import { describe, expect, it } from 'vitest';
import { leafHash } from './hash.js';
import { consistencyRanges, foldPerfectParts, inclusionRanges, perfectParts, type NodeRef } from './ranges.js';
import { MerkleTree } from './tree.js';

// The in-memory tree (checked against the RFC 6962 and transparency-dev vectors) is the reference here.
const leaves = Array.from({ length: 70 }, (_, i) => leafHash(Buffer.from(`leaf ${i}`)));
const tree = MerkleTree.fromLeafHashes(leaves);
const nodeOf = ({ height, index }: NodeRef) => tree.nodes(height, index, 1);
const hashOf = (range: { start: number; size: number }) => foldPerfectParts(perfectParts(range).map(nodeOf));

describe('proof ranges over perfect subtrees', () => {
  it('give every inclusion proof of the tree, for every size and index', () => {
    for (let size = 1; size <= leaves.length; size++)
      for (let index = 0; index < size; index++)
        expect(inclusionRanges(index, size).map(hashOf)).toEqual(tree.inclusionProof(index, size));
  });

  it('give every consistency proof, and none for an empty or equal first tree', () => {
    for (let second = 1; second <= leaves.length; second++)
      for (let first = 0; first <= second; first++)
        expect(consistencyRanges(first, second).map(hashOf)).toEqual(tree.consistencyProof(first, second));
    expect(consistencyRanges(0, 5)).toEqual([]);
    expect(consistencyRanges(5, 5)).toEqual([]);
  });

  it('split a range into its perfect subtrees, largest first, whose fold is the root', () => {
    expect(perfectParts({ start: 0, size: 13 })).toEqual([
      { height: 3, index: 0 },
      { height: 2, index: 2 },
      { height: 0, index: 12 },
    ]);
    for (let size = 1; size <= leaves.length; size++) expect(hashOf({ start: 0, size })).toEqual(tree.root(size));
    // Exact past 2^32, where Math.log2 rounds.
    expect(perfectParts({ start: 0, size: 2 ** 40 - 1 })).toHaveLength(40);
  });

  it('refuse bad sizes, indexes and ranges', () => {
    expect(() => inclusionRanges(3, 3)).toThrow(/below the tree size 3/);
    expect(() => inclusionRanges(-1, 3)).toThrow(/below the tree size/);
    expect(() => inclusionRanges(0, 1.5)).toThrow(/must be a count/);
    expect(() => consistencyRanges(4, 3)).toThrow(/between 0 and 3/);
    expect(() => perfectParts({ start: 1, size: 2 })).toThrow(/not aligned/);
    expect(() => foldPerfectParts([])).toThrow(/at least one/);
  });
});
