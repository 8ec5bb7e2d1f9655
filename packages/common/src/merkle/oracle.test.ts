import { RFC9162 } from '@transmute/rfc9162';
import { describe, expect, it } from 'vitest';
import { MerkleTree, verifyConsistency, verifyInclusion } from './index.js';

/**
 * Cross-check with an independent implementation, @transmute/rfc9162 (used only here, as an oracle). It
 * works on raw entries and hashes them itself. One known divergence: its SUBPROOF ignores the RFC's `b`
 * flag when m == n, so for a first size that is a power of two its consistency proof starts with the first
 * root, which RFC 9162 §2.1.4.2 step 2 has the verifier prepend instead (its own verifier skips that step).
 */
const entriesOf = (size: number): Uint8Array[] =>
  Array.from({ length: size }, (_, i) => new TextEncoder().encode(`entry-${i}-${'x'.repeat(i % 7)}`));
const hex = (hashes: Uint8Array[]): string[] => hashes.map((hash) => Buffer.from(hash).toString('hex'));
const isPowerOfTwo = (n: number): boolean => (n & (n - 1)) === 0;

function treeOf(entries: Uint8Array[]): MerkleTree {
  const tree = MerkleTree.empty();
  for (const entry of entries) tree.appendData(entry);
  return tree;
}

describe('@transmute/rfc9162 as an oracle', () => {
  it('agrees on the root for every size 1..64 and for larger sizes', async () => {
    for (const size of [...Array.from({ length: 64 }, (_, i) => i + 1), 100, 127, 128, 129, 255, 257, 1000]) {
      const entries = entriesOf(size);
      expect(Buffer.from(await RFC9162.treeHead(entries)).equals(treeOf(entries).root()), `size ${size}`).toBe(true);
    }
  });

  it('agrees on every audit path for sizes 1..40, and its verifier accepts ours', async () => {
    for (let size = 1; size <= 40; size++) {
      const entries = entriesOf(size);
      const tree = treeOf(entries);
      const root = tree.root();
      for (let index = 0; index < size; index++) {
        const ours = tree.inclusionProof(index);
        expect(hex(ours), `PATH(${index}, ${size})`).toEqual(hex(await RFC9162.PATH(index, entries)));
        const proof = { log_id: '', tree_size: size, leaf_index: index, inclusion_path: ours };
        expect(await RFC9162.verifyInclusionProof(root, tree.leafHash(index), proof)).toBe(true);
        expect(
          verifyInclusion(index, size, await RFC9162.leaf(entries[index]!), ours, await RFC9162.treeHead(entries)),
        ).toBe(true);
      }
    }
  });

  it('agrees on every consistency proof for sizes up to 32 (modulo its power-of-two quirk)', async () => {
    for (let second = 2; second <= 32; second++) {
      const entries = entriesOf(second);
      const tree = treeOf(entries);
      for (let first = 1; first < second; first++) {
        const ours = tree.consistencyProof(first, second);
        const theirs = await RFC9162.PROOF(first, entries);
        const expected = isPowerOfTwo(first) ? theirs.slice(1) : theirs;
        if (isPowerOfTwo(first)) expect(Buffer.from(theirs[0]!).equals(tree.root(first))).toBe(true);
        expect(hex(ours), `PROOF(${first}, ${second})`).toEqual(hex(expected));
        expect(verifyConsistency(first, second, tree.root(first), tree.root(second), ours)).toBe(true);
      }
    }
  });
});
