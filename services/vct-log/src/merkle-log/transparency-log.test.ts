import type { AppError } from '@anchor/common/errors';
import { EMPTY_TREE_ROOT, rootOfLeafHashes, verifyConsistency, verifyInclusion } from '@anchor/common/merkle';
import { createMemStoreProvider, type StoreProvider } from '@anchor/common/storage';
import { beforeEach, describe, expect, it } from 'vitest';
import { entryFor, flakyProvider, observedProvider } from './entries.test-helpers.js';
import { leafHashOf } from '@anchor/common/vct';
import { indexKey, openLogStores, TREE_HEADS_STORE, type LeafHashChunk, type TreeHeadRecord } from './log-records.js';
import { INTEGRATION_SLICE, nextSliceSize, TransparencyLog, type TreeHead } from './transparency-log.js';

const FOREVER = Number.MAX_SAFE_INTEGER;

async function acceptAll(log: TransparencyLog, count: number, from = 0, at = 1_000_000): Promise<void> {
  for (let i = from; i < from + count; i++) await log.accept(entryFor(`quad ${i}`, at + i));
}

describe('TransparencyLog', () => {
  let provider: StoreProvider;
  let log: TransparencyLog;

  beforeEach(async () => {
    provider = createMemStoreProvider({ sweepIntervalMs: 0 });
    log = await TransparencyLog.open(provider, 'main', 500);
  });

  it('starts empty, with the empty root', () => {
    expect(log.head()).toEqual({ size: 0, root: EMPTY_TREE_ROOT, timestamp: 500 });
  });

  it('acknowledges durably but integrates only in a round', async () => {
    const entry = entryFor('quad a', 1_000);
    expect(await log.accept(entry)).toEqual({ timestamp: 1_000, duplicate: false });
    expect(log.head().size).toBe(0);
    expect(await log.indexOfLeafHash(Buffer.from(entry.leafHash, 'base64'))).toBeUndefined();

    const result = await log.integrate(100, FOREVER, () => 1_200);
    expect(result).toEqual({ integrated: 1, delaysMs: [200] });
    expect(log.head()).toEqual({ size: 1, root: leafHashOf(entry.leafInput), timestamp: 1_200 });
    expect(await log.indexOfLeafHash(Buffer.from(entry.leafHash, 'base64'))).toBe(0);
    expect(await log.entries(0, 0)).toEqual([{ leafInput: entry.leafInput, extraData: null }]);
  });

  it('answers a resubmission with the first timestamp, before and after integration, and logs it once', async () => {
    await log.accept(entryFor('same', 1_000, 'cHJvb2Y='));
    expect(await log.accept(entryFor('same', 2_000))).toEqual({ timestamp: 1_000, duplicate: true });
    await log.integrate(100, FOREVER, () => 3_000);
    expect(await log.accept(entryFor('same', 4_000))).toEqual({ timestamp: 1_000, duplicate: true });
    expect((await log.integrate(100, FOREVER, () => 5_000)).integrated).toBe(0);
    expect(log.head().size).toBe(1);
    expect((await log.entries(0, 0))[0]?.extraData).toBe('cHJvb2Y=');
  });

  it('lets exactly one of many concurrent submissions of one credential create the entry', async () => {
    const results = await Promise.all(
      Array.from({ length: 25 }, (_, i) => log.accept(entryFor('contended', 10_000 + i))),
    );
    expect(results.filter((r) => !r.duplicate)).toHaveLength(1);
    const first = results.find((r) => !r.duplicate)?.timestamp;
    expect(results.every((r) => r.timestamp === first)).toBe(true);
    await log.integrate(100, FOREVER);
    expect(log.head().size).toBe(1);
  });

  it('integrates the oldest entries first, in batches, and every head covers exactly what it integrated', async () => {
    // Accepted out of timestamp order: integration follows accept time.
    for (const i of [4, 2, 0, 3, 1, 6, 5]) await log.accept(entryFor(`quad ${i}`, 1_000 + i));
    const heads: TreeHead[] = [];
    for (let round = 0; round < 3; round++) {
      await log.integrate(3, FOREVER);
      heads.push(log.head());
    }
    expect(heads.map((h) => h.size)).toEqual([3, 6, 7]);
    const hashes = Array.from({ length: 7 }, (_, i) => leafHashOf(entryFor(`quad ${i}`, 1_000 + i).leafInput));
    heads.forEach((head) => expect(head.root).toEqual(rootOfLeafHashes(hashes.slice(0, head.size))));
    expect(verifyConsistency(3, 7, heads[0]!.root, heads[2]!.root, await log.consistencyProof(3, 7))).toBe(true);
  });

  it('bounds a batch by time: it takes no slice once the bound has come, and the next batch resumes there', async () => {
    const inner = createMemStoreProvider({ sweepIntervalMs: 0 });
    // Each write takes 100 ms by this clock; `writes` counts the writes that carry entries.
    let clock = 0;
    let writes = 0;
    const timed = await TransparencyLog.open(
      observedProvider(inner, (ops) => {
        clock += 100;
        if (ops.some((op) => op.store === 'main.entries')) writes++;
      }),
      'main',
      500,
    );
    const count = 5 * INTEGRATION_SLICE + 96 + 10;
    await acceptAll(timed, count);
    const hashes = Array.from({ length: count }, (_, i) => leafHashOf(entryFor(`quad ${i}`, 1_000_000 + i).leafInput));
    const now = () => clock;

    // A bound already past: one slice is still taken, its head committed.
    writes = 0;
    expect(await timed.integrate(1_000, FOREVER, now, clock)).toMatchObject({
      integrated: INTEGRATION_SLICE,
      stoppedEarly: true,
    });
    expect(writes).toBe(1);
    // 250 ms: a slice (100 ms) fits half of it, the size stays; after the third write (300 ms) no slice is
    // taken, and the head is written.
    writes = 0;
    const second = await timed.integrate(1_000, FOREVER, now, clock + 250);
    expect(second).toMatchObject({ integrated: 3 * INTEGRATION_SLICE, stoppedEarly: true });
    expect(second.delaysMs).toHaveLength(3 * INTEGRATION_SLICE);
    expect(writes).toBe(3);
    expect(timed.head().size).toBe(4 * INTEGRATION_SLICE);
    expect(timed.head().root).toEqual(rootOfLeafHashes(hashes.slice(0, 4 * INTEGRATION_SLICE)));
    // 150 ms: a slice takes more than half of it, so the next slice is smaller (128 * 75 / 100 = 96).
    writes = 0;
    const third = await timed.integrate(1_000, FOREVER, now, clock + 150);
    expect(third).toMatchObject({ integrated: INTEGRATION_SLICE + 96, stoppedEarly: true });
    expect(writes).toBe(2);
    expect(timed.head().root).toEqual(rootOfLeafHashes(hashes.slice(0, 5 * INTEGRATION_SLICE + 96)));
    // What it stopped short of stayed queued: the next batch takes it, unbounded here, in one write.
    writes = 0;
    const rest = await timed.integrate(1_000, FOREVER, now);
    expect(rest.integrated).toBe(10);
    expect(rest.stoppedEarly).toBeUndefined();
    expect(writes).toBe(1);
    expect(timed.head().root).toEqual(rootOfLeafHashes(hashes));
    expect((await timed.entries(count - 11, count - 1)).map((e) => e.leafInput)).toEqual(
      Array.from({ length: 11 }, (_, i) => entryFor(`quad ${count - 11 + i}`, 1_000_000 + count - 11 + i).leafInput),
    );
    expect(await timed.indexOfLeafHash(hashes[count - 1]!)).toBe(count - 1);
    expect((await timed.integrate(1_000, FOREVER, now, clock + 150)).integrated).toBe(0);
    const reopened = await TransparencyLog.open(inner, 'main', 500);
    expect(reopened.head()).toEqual(timed.head());
  });

  it('sizes the slices of a time-bounded batch from the time the last one took', () => {
    expect(nextSliceSize(128, 100, 75)).toBe(96);
    expect(nextSliceSize(16, 10, 100)).toBe(32); // at most twofold a step
    expect(nextSliceSize(100, 0, 100)).toBe(INTEGRATION_SLICE); // never above the most
    expect(nextSliceSize(128, 10_000, 10)).toBe(1); // never below one
    expect(nextSliceSize(128, 100, -5)).toBe(1); // a bound already past
  });

  it('rolls a time-bounded batch whose head was never written forward, slice by slice, to the same tree', async () => {
    const inner = createMemStoreProvider({ sweepIntervalMs: 0 });
    let clock = 0;
    let failHeads = true;
    const cut = await TransparencyLog.open(
      observedProvider(
        flakyProvider(inner, (ops) => failHeads && ops.some((op) => op.store === TREE_HEADS_STORE)),
        () => {
          clock += 100;
        },
      ),
      'main',
      500,
    );
    const count = 2 * INTEGRATION_SLICE + 5;
    await acceptAll(cut, count);
    const hashes = Array.from({ length: count }, (_, i) => leafHashOf(entryFor(`quad ${i}`, 1_000_000 + i).leafInput));
    const now = () => clock;
    // Every slice is written, the head's write fails: the head stays, the tree is read back.
    await expect(cut.integrate(1_000, FOREVER, now, clock + 1_000)).rejects.toThrow(/injected/);
    expect(cut.head().size).toBe(0);
    failHeads = false;
    // Bounded again, the roll-forward stops after its first slice; the next batch finishes it, then the rest.
    expect(await cut.integrate(1_000, FOREVER, now, clock)).toMatchObject({
      integrated: INTEGRATION_SLICE,
      stoppedEarly: true,
    });
    expect(await cut.integrate(1_000, FOREVER, now, clock + 1_000)).toMatchObject({
      integrated: INTEGRATION_SLICE + 5,
      stoppedEarly: true,
    });
    expect((await cut.integrate(1_000, FOREVER, now, clock + 1_000)).integrated).toBe(0);
    expect(cut.head().root).toEqual(rootOfLeafHashes(hashes));
    expect(await cut.indexOfLeafHash(hashes[INTEGRATION_SLICE]!)).toBe(INTEGRATION_SLICE);
    expect((await (await openLogStores(inner, 'main')).queue.query({ limit: 10 })).items).toEqual([]);
  });

  it('answers inclusion and consistency proofs for every past size, and they verify', async () => {
    await acceptAll(log, 40);
    await log.integrate(1_000, FOREVER);
    const hashes = Array.from({ length: 40 }, (_, i) => leafHashOf(entryFor(`quad ${i}`, 1_000_000 + i).leafInput));
    for (let size = 1; size <= 40; size++) {
      const root = rootOfLeafHashes(hashes.slice(0, size));
      for (let index = 0; index < size; index++)
        expect(verifyInclusion(index, size, hashes[index]!, await log.inclusionProof(index, size), root)).toBe(true);
      for (let first = 1; first <= size; first++) {
        expect(
          verifyConsistency(
            first,
            size,
            rootOfLeafHashes(hashes.slice(0, first)),
            root,
            await log.consistencyProof(first, size),
          ),
        ).toBe(true);
      }
    }
    await expect(log.inclusionProof(0, 41)).rejects.toThrow(/beyond the log's size 40/);
  });

  it('is rebuilt after a restart from what the store holds, and picks up what was still queued', async () => {
    await acceptAll(log, 2_500);
    await log.integrate(2_000, FOREVER, () => 7_000);
    const before = log.head();
    const reopened = await TransparencyLog.open(provider, 'main');
    expect(reopened.head()).toEqual(before);
    const hash = Buffer.from(entryFor('quad 1234', 1_000_000 + 1234).leafHash, 'base64');
    expect(await reopened.indexOfLeafHash(hash)).toBe(await log.indexOfLeafHash(hash));
    expect(await reopened.inclusionProof(1234, 2_000)).toEqual(await log.inclusionProof(1234, 2_000));
    // The 500 entries the first batch did not take are still queued.
    expect((await reopened.integrate(2_000, FOREVER)).integrated).toBe(500);
    expect(reopened.head().size).toBe(2_500);
    const again = await TransparencyLog.open(provider, 'main');
    expect(again.head().root).toEqual(reopened.head().root);
  });

  it('keeps the served tree and the queue intact when a batch fails, and integrates on the next round', async () => {
    let fail = false;
    const flaky = flakyProvider(provider, () => fail);
    const flakyLog = await TransparencyLog.open(flaky, 'other');
    for (let i = 0; i < 5; i++) await flakyLog.accept(entryFor(`q${i}`, 100 + i));
    await flakyLog.integrate(2, FOREVER);
    const head = flakyLog.head();
    const proof = await flakyLog.inclusionProof(1, 2);

    fail = true;
    await expect(flakyLog.integrate(10, FOREVER)).rejects.toThrow(/injected storage failure/);
    expect(flakyLog.head()).toEqual(head);
    expect(await flakyLog.inclusionProof(1, 2)).toEqual(proof);
    await expect(flakyLog.inclusionProof(0, 3)).rejects.toThrow(/beyond/);

    fail = false;
    expect((await flakyLog.integrate(10, FOREVER)).integrated).toBe(3);
    const hashes = Array.from({ length: 5 }, (_, i) => leafHashOf(entryFor(`q${i}`, 100 + i).leafInput));
    expect(flakyLog.head().root).toEqual(rootOfLeafHashes(hashes));
    expect((await TransparencyLog.open(provider, 'other')).head().root).toEqual(rootOfLeafHashes(hashes));
  });

  it('never lets two sequencers write one index: the loser fails whole and catches up', async () => {
    const a = await TransparencyLog.open(provider, 'race');
    const b = await TransparencyLog.open(provider, 'race');
    await acceptAll(a, 50);
    const outcomes = await Promise.allSettled([a.integrate(1_000, FOREVER), b.integrate(1_000, FOREVER)]);
    const failed = outcomes.filter((o) => o.status === 'rejected');
    expect(failed).toHaveLength(1);
    expect(((failed[0] as PromiseRejectedResult).reason as AppError).code).toBe('conflict');
    await a.catchUp();
    await b.catchUp();
    expect(a.head()).toEqual(b.head());
    expect(a.head().size).toBe(50);
    const entries = await a.entries(0, 49);
    expect(new Set(entries.map((e) => e.leafInput)).size).toBe(50);
    // Nothing is left queued, nothing is integrated twice.
    expect((await b.integrate(1_000, FOREVER)).integrated).toBe(0);
  });

  it('lets a replica that does not sequence follow the stored head', async () => {
    const follower = await TransparencyLog.open(provider, 'main');
    await acceptAll(log, 1_500);
    await log.integrate(1_000, FOREVER);
    await follower.catchUp();
    expect(follower.head()).toEqual(log.head());
    await log.integrate(1_000, FOREVER);
    await follower.catchUp();
    expect(follower.head()).toEqual(log.head());
    expect(await follower.consistencyProof(1_000, 1_500)).toEqual(await log.consistencyProof(1_000, 1_500));
    const hash = Buffer.from(entryFor('quad 1499', 1_000_000 + 1499).leafHash, 'base64');
    expect(await follower.indexOfLeafHash(hash)).toBe(1_499);
  });

  it('with replicas, serves no head older than one its in-flight write has already committed', async () => {
    // The store commits a batch, then its answer comes late: meanwhile a follower reading the store sees the
    // new head, so the writer must not answer with the one in its memory.
    let answer!: () => void;
    const late = new Promise<void>((resolve) => (answer = resolve));
    let holding = false;
    const slowAnswers: StoreProvider = Object.create(provider) as StoreProvider;
    slowAnswers.batch = async (ops) => {
      await provider.batch(ops);
      if (holding) await late;
    };
    const writer = await TransparencyLog.open(slowAnswers, 'main');
    const follower = await TransparencyLog.open(provider, 'main');
    writer.readsFromMemoryWhile(() => true);
    follower.readsFromMemoryWhile(() => false);
    await acceptAll(writer, 5);
    holding = true;
    const integrating = writer.integrate(1_000, FOREVER);
    await expect.poll(async () => (await follower.currentHead()).size).toBe(5);
    const served = writer.currentHead();
    answer();
    expect((await served).size).toBe(5);
    await integrating;

    // A head write that failed may have landed: the writer reads the store until it has caught up.
    await acceptAll(writer, 3, 5);
    slowAnswers.batch = async (ops) => {
      await provider.batch(ops);
      throw new Error('the answer was lost');
    };
    await expect(writer.integrate(1_000, FOREVER)).rejects.toThrow(/answer was lost/);
    expect((await writer.currentHead()).size).toBe(8);
  });

  it('refreshes the head timestamp of an idle log once it is older than the maximum root age', async () => {
    await acceptAll(log, 3);
    await log.integrate(10, 60_000, () => 10_000);
    await log.integrate(10, 60_000, () => 20_000);
    expect(log.head().timestamp).toBe(10_000);
    await log.integrate(10, 60_000, () => 70_000);
    expect(log.head()).toMatchObject({ size: 3, timestamp: 70_000 });
    expect((await TransparencyLog.open(provider, 'main')).head().timestamp).toBe(70_000);
  });

  it('refuses to serve damaged data', async () => {
    await acceptAll(log, 10);
    await log.integrate(100, FOREVER);
    const heads = await provider.open<TreeHeadRecord>(TREE_HEADS_STORE);
    const stored = (await heads.get('main'))!;
    await heads.put('main', { ...stored, root: Buffer.alloc(32).toString('base64') });
    await expect(TransparencyLog.open(provider, 'main')).rejects.toThrow(/the data is damaged/);
    await heads.put('main', stored);
    const chunks = await provider.open<LeafHashChunk>('main.leaf-hashes');
    await chunks.put(indexKey(0), { hashes: Buffer.alloc(32 * 9).toString('base64') });
    await expect(TransparencyLog.open(provider, 'main')).rejects.toThrow(/holds 9 hashes, 10 are needed/);
  });

  it('reports an entry missing from the store as an internal error', async () => {
    await acceptAll(log, 3);
    await log.integrate(100, FOREVER);
    const entries = await provider.open('main.entries');
    await entries.delete(indexKey(1));
    await expect(log.entries(0, 2)).rejects.toThrow(/entry 1 is missing/);
  });
});
