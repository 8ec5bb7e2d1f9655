import { rootOfLeafHashes } from '@anchor/common/merkle';
import { createMemStoreProvider } from '@anchor/common/storage';
import { cuttableProvider } from '@anchor/testing/storage-faults';
import { describe, expect, it } from 'vitest';
import { entryFor } from './entries.test-helpers.js';
import { openLogStores, queueKey } from './log-records.js';
import { TransparencyLog } from './transparency-log.js';

/**
 * On MongoDB without transactions (standalone, FerretDB) a batch is a sequence of ordered writes: a crash or
 * a lost connection can stop it half-way. Before, an integration batch cut short left entries past the head
 * and every later round failed on them ("already exists"): the log stopped growing. An accept cut short left
 * a leaf without its queue record: the resubmission was answered "logged" and it never was.
 */
const FOREVER = Number.MAX_SAFE_INTEGER;

const entries = (from: number, count: number) =>
  Array.from({ length: count }, (_, i) => entryFor(`quad ${from + i}`, 1_000_000 + from + i));

describe('a batch cut short on a store without transactions', () => {
  for (const cut of [0, 3, 5, 7, 10, 12, 15, 16]) {
    it(`is finished at the next rounds, none lost or doubled (cut after ${cut} writes)`, async () => {
      const inner = createMemStoreProvider({ sweepIntervalMs: 0 });
      const provider = cuttableProvider(inner);
      const log = await TransparencyLog.open(provider, 'main', 500);
      const all = entries(0, 9);
      for (const entry of all.slice(0, 4)) await log.accept(entry);
      await log.integrate(100, FOREVER, () => 2_000_000);
      for (const entry of all.slice(4)) await log.accept(entry);

      // 5 entry inserts, 5 queue deletes, 5 leaf-index puts, the leaf-hash chunk, the head.
      provider.cut = cut;
      await expect(log.integrate(100, FOREVER, () => 2_000_001)).rejects.toThrow(/half-way/);
      expect(log.head().size).toBe(4);

      let rounds = 0;
      while (log.head().size < 9 && rounds++ < 5) await log.integrate(100, FOREVER, () => 2_000_002 + rounds);
      expect(log.head().size).toBe(9);
      expect((await log.integrate(100, FOREVER, () => 3_000_000)).integrated).toBe(0);
      expect((await log.entries(0, 8)).map((e) => e.leafInput)).toEqual(all.map((e) => e.leafInput));
      expect(log.head().root).toEqual(rootOfLeafHashes(all.map((e) => Buffer.from(e.leafHash, 'base64'))));
      // What is stored is what is served: a fresh open agrees.
      const reopened = await TransparencyLog.open(inner, 'main', 500);
      expect(reopened.head()).toEqual(log.head());
    });
  }

  it('queues again a leaf whose accept lost its queue record, when it is submitted again', async () => {
    const provider = cuttableProvider(createMemStoreProvider({ sweepIntervalMs: 0 }));
    const log = await TransparencyLog.open(provider, 'main', 500);
    const [entry] = entries(0, 1);
    provider.cut = 1; // the leaf is stored, its queue record is not
    await expect(log.accept(entry!)).rejects.toThrow(/half-way/);
    expect((await log.integrate(100, FOREVER, () => 2_000_000)).integrated).toBe(0);
    expect(await log.accept(entry!)).toEqual({ timestamp: entry!.timestamp, duplicate: true });
    expect((await log.integrate(100, FOREVER, () => 2_000_001)).integrated).toBe(1);
    expect(await log.indexOfLeafHash(Buffer.from(entry!.leafHash, 'base64'))).toBe(0);
  });

  it('only removes a queue record whose leaf is already in the tree', async () => {
    const provider = createMemStoreProvider({ sweepIntervalMs: 0 });
    const log = await TransparencyLog.open(provider, 'main', 500);
    const [entry] = entries(0, 1);
    await log.accept(entry!);
    await log.integrate(100, FOREVER, () => 2_000_000);
    const stores = await openLogStores(provider, 'main');
    await stores.queue.put(queueKey(entry!.timestamp, entry!.identity), { leafHash: entry!.leafHash });
    expect(await log.integrate(100, FOREVER, () => 2_000_001)).toEqual({ integrated: 0, delaysMs: [] });
    expect(log.head().size).toBe(1);
    expect((await stores.queue.query({ limit: 10 })).items).toEqual([]);
  });
});
