import { leafHash, MerkleTree } from '@anchor/common/merkle';
import { createMemStoreProvider, type Store, type StoreOptions, type StoreProvider } from '@anchor/common/storage';
import { hashTile, tileWidth } from '@anchor/common/tlog';
import { cuttableProvider } from '@anchor/testing/storage-faults';
import { describe, expect, it } from 'vitest';
import { entryFor } from './entries.test-helpers.js';
import { LEAF_INDEX_BUILT, openLogStores } from './log-records.js';
import { innerKey, TileTree } from './tile-tree.js';
import { TransparencyLog } from './transparency-log.js';

const FOREVER = Number.MAX_SAFE_INTEGER;
const hashes = (from: number, count: number) =>
  Array.from({ length: count }, (_, i) => leafHash(Buffer.from(`leaf ${from + i}`)));

/** Counts the records each store of a provider is asked for (get and getMany). */
function countingProvider(inner: StoreProvider): StoreProvider & { reads: Map<string, number> } {
  const reads = new Map<string, number>();
  const add = (name: string, count: number) => reads.set(name, (reads.get(name) ?? 0) + count);
  return {
    reads,
    kind: inner.kind,
    exists: (name) => inner.exists(name),
    batch: (ops) => inner.batch(ops),
    ping: () => inner.ping(),
    close: () => inner.close(),
    async open<T extends object>(name: string, options?: StoreOptions): Promise<Store<T>> {
      const store = await inner.open<T>(name, options);
      return Object.assign(Object.create(store) as Store<T>, {
        get: (key: string) => (add(name, 1), store.get(key)),
        getMany: (keys: readonly string[]) => (add(name, keys.length), store.getMany(keys)),
      });
    },
  };
}

describe('TileTree: the tree as hash tiles in the store', () => {
  it('gives the in-memory tree’s roots, proofs and tiles after batches across tile and level boundaries', async () => {
    const provider = createMemStoreProvider({ sweepIntervalMs: 0 });
    const stores = await openLogStores(provider, 'main');
    const tree = new TileTree(stores, 'main');
    const all = hashes(0, 66_000);
    const reference = MerkleTree.fromLeafHashes(all);
    let size = 0;
    // Batches that end inside a tile, on a tile's end, on a chunk's end and past 256² (a level-2 node).
    for (const batch of [1, 254, 1, 768, 1_024, 3_000, 60_487, 1, 464]) {
      for (const hash of all.slice(size, size + batch)) tree.append(hash);
      size += batch;
      await provider.batch(tree.commitOps());
      tree.committed();
      expect(tree.root()).toEqual(reference.root(size));
      const reopened = new TileTree(stores, 'main');
      expect(await reopened.load(size)).toEqual(reference.root(size));
      for (const index of [0, size - 1, Math.floor(size / 3)])
        expect(await reopened.inclusionProof(index, size)).toEqual(reference.inclusionProof(index, size));
      for (const first of [1, Math.floor(size / 2), size])
        expect(await reopened.consistencyProof(first, size)).toEqual(reference.consistencyProof(first, size));
    }
    expect(size).toBe(all.length);
    // Proofs for past sizes too, and the C2SP tiles, partial ones included.
    for (const [index, past] of [
      [7, 300],
      [65_535, 65_537],
      [1_000, 4_096],
    ] as const)
      expect(await tree.inclusionProof(index, past)).toEqual(reference.inclusionProof(index, past));
    for (const [level, index] of [
      [0, 0],
      [0, 257],
      [1, 0],
      [1, 1],
      [2, 0],
    ] as const) {
      const width = tileWidth(size, level, index);
      expect(await tree.tile(level, index, width)).toEqual(hashTile(reference, { level, index, width }));
    }
    // Each full level-0 tile's inner nodes are stored; without them (a log of the first tiled version) a
    // proof rehashes the tile's leaves and says the same.
    const inner = MerkleTree.fromLeafHashes(all.slice(256 * 256, 257 * 256))
      .levels()
      .slice(1);
    expect(await stores.tiles.get(innerKey(256))).toEqual({ hashes: Buffer.concat(inner).toString('base64') });
    for (const key of [innerKey(0), innerKey(256)]) await stores.tiles.delete(key);
    const bare = new TileTree(stores, 'main');
    await bare.load(size);
    for (const index of [5, 256 * 256 + 9])
      expect(await bare.inclusionProof(index, size)).toEqual(reference.inclusionProof(index, size));
  });

  it('says a missing edge tile is missing rather than giving a root', async () => {
    const provider = createMemStoreProvider({ sweepIntervalMs: 0 });
    const stores = await openLogStores(provider, 'main');
    const tree = new TileTree(stores, 'main');
    for (const hash of hashes(0, 600)) tree.append(hash);
    await provider.batch(tree.commitOps());
    await stores.tiles.delete((await stores.tiles.query({ limit: 1 })).items[0]!.key);
    expect(await new TileTree(stores, 'main').load(600)).toBeUndefined();
  });
});

describe('TransparencyLog start-up from tiles', () => {
  const fill = async (log: TransparencyLog, from: number, count: number) => {
    for (let i = from; i < from + count; i++) await log.accept(entryFor(`quad ${i}`, 1_000_000 + i));
  };

  it('reads only the tree’s right edge, and answers as before the restart', async () => {
    const inner = createMemStoreProvider({ sweepIntervalMs: 0 });
    const log = await TransparencyLog.open(inner, 'main', 500);
    for (let round = 0; round < 6; round++) {
      await fill(log, round * 1_000, 1_000);
      await log.integrate(1_000, FOREVER);
    }
    const counting = countingProvider(inner);
    const reopened = await TransparencyLog.open(counting, 'main', 500);
    expect(reopened.head()).toEqual(log.head());
    // One leaf-hash chunk and one tile (6,000 leaves: level 1 holds 23 nodes), not six chunks.
    expect(counting.reads.get('main.leaf-hashes')).toBe(1);
    expect(counting.reads.get('main.tiles')).toBe(1);
    expect(await reopened.inclusionProof(4_321, 6_000)).toEqual(await log.inclusionProof(4_321, 6_000));
    expect(await reopened.consistencyProof(2_999, 6_000)).toEqual(await log.consistencyProof(2_999, 6_000));
    const hash = Buffer.from(entryFor('quad 5555', 1_000_000 + 5555).leafHash, 'base64');
    expect(await reopened.indexOfLeafHash(hash)).toBe(await log.indexOfLeafHash(hash));
  });

  it('opens a log stored before tiles and the leaf index: builds them once, then reads the edge', async () => {
    const provider = createMemStoreProvider({ sweepIntervalMs: 0 });
    const log = await TransparencyLog.open(provider, 'main', 500);
    await fill(log, 0, 1_300);
    await log.integrate(2_000, FOREVER);
    const stores = await openLogStores(provider, 'main');
    for (const store of [stores.tiles, stores.leafIndex])
      for (const { key } of (await store.query({ limit: 10_000 })).items) await store.delete(key);

    const reopened = await TransparencyLog.open(provider, 'main', 500);
    expect(reopened.head()).toEqual(log.head());
    expect(await stores.leafIndex.get(LEAF_INDEX_BUILT)).toEqual({ index: 1_300 });
    const hash = Buffer.from(entryFor('quad 1299', 1_000_000 + 1299).leafHash, 'base64');
    expect(await reopened.indexOfLeafHash(hash)).toBe(1_299);
    expect(await reopened.inclusionProof(17, 1_300)).toEqual(await log.inclusionProof(17, 1_300));
    const counting = countingProvider(provider);
    await TransparencyLog.open(counting, 'main', 500);
    expect(counting.reads.get('main.leaf-hashes')).toBe(1);
    // And it goes on growing from there.
    await fill(reopened, 1_300, 10);
    await reopened.integrate(100, FOREVER);
    expect((await TransparencyLog.open(provider, 'main')).head()).toEqual(reopened.head());
  });

  // A batch of 300 after 200 leaves: 300 entry inserts, 300 queue deletes, 300 leaf-index puts, the inner
  // nodes of tile 0 (complete at leaf 256), one chunk, one level-1 tile, the head.
  for (const cut of [0, 300, 600, 601, 899, 900, 901, 902, 903]) {
    it(`never opens to a wrong root when a batch crossing a tile is cut after ${cut} writes`, async () => {
      const inner = createMemStoreProvider({ sweepIntervalMs: 0 });
      const provider = cuttableProvider(inner);
      const log = await TransparencyLog.open(provider, 'main', 500);
      await fill(log, 0, 200);
      await log.integrate(1_000, FOREVER);
      const before = log.head();
      await fill(log, 200, 300);
      provider.cut = cut;
      await expect(log.integrate(1_000, FOREVER)).rejects.toThrow(/half-way/);
      // A restart at this point serves the last committed head, with its proofs.
      const restarted = await TransparencyLog.open(inner, 'main', 500);
      expect(restarted.head()).toEqual(before);
      const reference = MerkleTree.fromLeafHashes(
        Array.from({ length: 500 }, (_, i) => Buffer.from(entryFor(`quad ${i}`, 1_000_000 + i).leafHash, 'base64')),
      );
      expect(await restarted.inclusionProof(199, 200)).toEqual(reference.inclusionProof(199, 200));
      // The next rounds finish the batch: the same 500 leaves in order.
      for (let round = 0; round < 3 && restarted.head().size < 500; round++) await restarted.integrate(1_000, FOREVER);
      expect(restarted.head().root).toEqual(reference.root());
      const again = await TransparencyLog.open(inner, 'main', 500);
      expect(again.head().root).toEqual(reference.root());
      expect(await again.inclusionProof(300, 500)).toEqual(reference.inclusionProof(300, 500));
    });
  }
});
