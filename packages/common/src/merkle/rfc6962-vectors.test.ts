import { describe, expect, it } from 'vitest';
import {
  EMPTY_TREE_ROOT,
  MerkleTree,
  leafHash,
  rootFromInclusionProof,
  verifyConsistency,
  verifyInclusion,
} from './index.js';

/**
 * The certificate-transparency / Trillian test tree (vct-kms.md §A.12): 8 leaves, their hashes, every
 * root, and the published audit paths and consistency proofs. Proof hashes are listed by their first
 * 8 hex digits and resolved against the full hashes below, so each expected proof is exact.
 */
const LEAVES = ['', '00', '10', '2021', '3031', '40414243', '5051525354555657', '606162636465666768696a6b6c6d6e6f'].map(
  (hex) => Buffer.from(hex, 'hex'),
);

const LEAF_HASHES = [
  '6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d',
  '96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7',
  '0298d122906dcfc10892cb53a73992fc5b9f493ea4c9badb27b791b4127a7fe7',
  '07506a85fd9dd2f120eb694f86011e5bb4662e5c415a62917033d4a9624487e7',
  'bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b',
  '4271a26be0d8a84f0bd54c8c302e7cb3a3b5d1fa6780a40bcce2873477dab658',
  'b08693ec2e721597130641e8211e7eedccb4c26413963eee6c1e2ed16ffb1a5f',
  '46f6ffadd3d06a09ff3c5860d2755c8b9819db7df44251788c7d8e3180de8eb1',
];

const ROOTS = [
  'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
  '6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d',
  'fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125',
  'aeb6bcfe274b70a14fb067a5e5578264db0fa9b51af5e0ba159158f329e06e77',
  'd37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7',
  '4e3bbb1f7b478dcfe71fb631631519a3bca12c9aefca1612bfce4c13a86264d4',
  '76e67dadbcdf1e10e1b74ddc608abd2f98dfb16fbce75277b5232a127f2087ef',
  'ddb89be403809e325750d3d263cd78929c2942b7942a34b77e122c9594a74c8c',
  '5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328',
];

const INTERIOR = [
  '5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e', // MTH(d2..d3)
  '6b47aaf29ee3c2af9af889bc1fb9254dabd31177f16232dd6aab035ca39bf6e4', // MTH(d4..d7)
  'ca854ea128ed050b41b35ffc1b87b8eb2bde461e9e3b5596ece6b9d5975a0ae0', // MTH(d6..d7)
  '0ebc5d3437fbe2db158b9f126a1d118e308181031d0a949f8dededebc558ef6a', // MTH(d4..d5)
  '837dbb152e9b079010717e84e865da4ebc0fa198a806d59d31bf15accef22d0e', // MTH(d4..d6)
];

const PUBLISHED_PATHS: [index: number, size: number, path: string[]][] = [
  [0, 1, []],
  [0, 8, ['96a296d2', '5f083f0a', '6b47aaf2']],
  [5, 8, ['bc1a0643', 'ca854ea1', 'd37ee418']],
  [2, 3, ['fac54203']],
  [1, 5, ['6e340b9c', '5f083f0a', 'bc1a0643']],
  [7, 8, ['b08693ec', '0ebc5d34', 'd37ee418']],
  [3, 8, ['0298d122', 'fac54203', '6b47aaf2']],
  [4, 8, ['4271a26b', 'ca854ea1', 'd37ee418']],
  [5, 6, ['bc1a0643', 'd37ee418']],
  [6, 7, ['0ebc5d34', 'd37ee418']],
];

const PUBLISHED_PROOFS: [first: number, second: number, proof: string[]][] = [
  [1, 1, []],
  [1, 8, ['96a296d2', '5f083f0a', '6b47aaf2']],
  [6, 8, ['0ebc5d34', 'ca854ea1', 'd37ee418']],
  [2, 5, ['5f083f0a', 'bc1a0643']],
  [3, 7, ['0298d122', '07506a85', 'fac54203', '837dbb15']],
  [4, 7, ['837dbb15']],
  [7, 8, ['b08693ec', '46f6ffad', '0ebc5d34', 'd37ee418']],
  [5, 6, ['bc1a0643', '4271a26b', 'd37ee418']],
  [1, 2, ['96a296d2']],
  [3, 4, ['0298d122', '07506a85', 'fac54203']],
  [4, 8, ['6b47aaf2']],
];

const KNOWN = [...LEAF_HASHES, ...ROOTS, ...INTERIOR];
function resolve(prefix: string): string {
  const matches = [...new Set(KNOWN.filter((hash) => hash.startsWith(prefix)))];
  if (matches.length !== 1) throw new Error(`abbreviation ${prefix} resolves to ${matches.length} hashes`);
  return matches[0]!;
}

const hex = (hashes: Buffer[]): string[] => hashes.map((hash) => hash.toString('hex'));
const tree = MerkleTree.empty();
for (const leaf of LEAVES) tree.appendData(leaf);

describe('RFC 6962 reference tree', () => {
  it('hashes the leaves and the empty tree as published', () => {
    expect(LEAVES.map((leaf) => leafHash(leaf).toString('hex'))).toEqual(LEAF_HASHES);
    expect(EMPTY_TREE_ROOT.toString('hex')).toBe(ROOTS[0]);
  });

  it('gives the published root for every size 0..8, from the full tree and from a tree of just that size', () => {
    for (let size = 0; size <= 8; size++) {
      expect(tree.root(size).toString('hex'), `root(${size})`).toBe(ROOTS[size]);
      expect(
        MerkleTree.fromLeafHashes(LEAF_HASHES.slice(0, size).map((h) => Buffer.from(h, 'hex')))
          .root()
          .toString('hex'),
      ).toBe(ROOTS[size]);
    }
  });

  it.each(PUBLISHED_PATHS)('PATH(%i, %i) is exactly the published audit path and verifies', (index, size, path) => {
    const proof = tree.inclusionProof(index, size);
    expect(hex(proof)).toEqual(path.map(resolve));
    expect(
      verifyInclusion(index, size, Buffer.from(LEAF_HASHES[index]!, 'hex'), proof, Buffer.from(ROOTS[size]!, 'hex')),
    ).toBe(true);
  });

  it.each(PUBLISHED_PROOFS)(
    'PROOF(%i, %i) is exactly the published consistency proof and verifies',
    (first, second, path) => {
      const proof = tree.consistencyProof(first, second);
      expect(hex(proof)).toEqual(path.map(resolve));
      expect(
        verifyConsistency(first, second, Buffer.from(ROOTS[first]!, 'hex'), Buffer.from(ROOTS[second]!, 'hex'), proof),
      ).toBe(true);
    },
  );

  it('verifies every audit path and every consistency proof up to size 8, and rejects their neighbours', () => {
    const root = (size: number): Buffer => Buffer.from(ROOTS[size]!, 'hex');
    const leaf = (index: number): Buffer => Buffer.from(LEAF_HASHES[index]!, 'hex');
    for (let size = 1; size <= 8; size++) {
      for (let index = 0; index < size; index++) {
        const proof = tree.inclusionProof(index, size);
        expect(verifyInclusion(index, size, leaf(index), proof, root(size)), `PATH(${index}, ${size})`).toBe(true);
        expect(rootFromInclusionProof(index, size, leaf(index), proof)!.equals(root(size))).toBe(true);
        for (let other = 0; other < 8; other++) {
          if (other !== index)
            expect(
              verifyInclusion(other, size, leaf(index), proof, root(size)),
              `index ${other} for PATH(${index}, ${size})`,
            ).toBe(false);
          if (other !== index) expect(verifyInclusion(index, size, leaf(other), proof, root(size))).toBe(false);
        }
        for (let otherSize = 1; otherSize <= 8; otherSize++) {
          if (otherSize !== size)
            expect(verifyInclusion(index, otherSize, leaf(index), proof, root(otherSize))).toBe(false);
        }
      }
      for (let first = 0; first <= size; first++) {
        const proof = tree.consistencyProof(first, size);
        expect(verifyConsistency(first, size, root(first), root(size), proof), `PROOF(${first}, ${size})`).toBe(true);
        // A non-empty proof binds its first size: no other first size (with that size's true root) accepts it.
        for (let otherFirst = 1; otherFirst <= size && first > 0 && first < size; otherFirst++) {
          if (otherFirst !== first)
            expect(
              verifyConsistency(otherFirst, size, root(otherFirst), root(size), proof),
              `first ${otherFirst} for PROOF(${first}, ${size})`,
            ).toBe(false);
        }
        if (first > 0 && first < size)
          expect(verifyConsistency(first, size, root(first === 1 ? 2 : first - 1), root(size), proof)).toBe(false);
      }
    }
  });

  it('follows the degenerate-case preconditions', () => {
    const root = (size: number): Buffer => Buffer.from(ROOTS[size]!, 'hex');
    expect(tree.consistencyProof(0, 8)).toEqual([]);
    expect(verifyConsistency(0, 8, root(0), root(8), [])).toBe(true);
    expect(verifyConsistency(0, 8, root(0), root(8), [root(1)])).toBe(false);
    expect(verifyConsistency(8, 8, root(8), root(8), [])).toBe(true);
    expect(verifyConsistency(8, 8, root(8), root(7), [])).toBe(false);
    expect(verifyConsistency(8, 8, root(8), root(8), [root(8)])).toBe(false);
    expect(verifyConsistency(8, 7, root(8), root(7), tree.consistencyProof(7, 8))).toBe(false);
    expect(verifyConsistency(3, 7, root(3), root(7), [])).toBe(false);
    expect(verifyInclusion(0, 0, leafHash(LEAVES[0]!), [], root(0))).toBe(false);
    expect(verifyInclusion(0, 1, leafHash(LEAVES[0]!), [], root(1))).toBe(true);
  });
});
