import { rootOfLeafHashes } from '@anchor/common/merkle';
import { createMemStoreProvider, LEASE_STORE, type ProviderBatchOp, type StoreProvider } from '@anchor/common/storage';
import { waitFor } from '@anchor/testing/process';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { entryFor, flakyProvider, observedProvider } from './entries.test-helpers.js';
import { openSequencerLease, Sequencer } from './sequencer.js';
import { INTEGRATION_SLICE, TransparencyLog } from './transparency-log.js';

describe('the sequencer lease', () => {
  let provider: StoreProvider;
  beforeEach(() => {
    provider = createMemStoreProvider({ sweepIntervalMs: 0 });
  });

  it('is held by one replica at a time, renewed by its holder, and taken over once expired or released', async () => {
    const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
    const a = await openSequencerLease(provider, 'a', 300);
    const b = await openSequencerLease(provider, 'b', 300);
    expect(await a.acquire()).toBe(true);
    expect(await b.acquire()).toBe(false);
    await sleep(200);
    expect(await a.acquire()).toBe(true); // renewed for another 300 ms
    await sleep(200);
    expect(await b.acquire()).toBe(false);
    await sleep(350); // a stopped renewing
    expect(await b.acquire()).toBe(true);
    expect(await a.acquire()).toBe(false);
    await b.release();
    expect(await a.acquire()).toBe(true);
    await b.release(); // not b's any more: nothing changes
    expect(await b.acquire()).toBe(false);
  });
});

describe('Sequencer', () => {
  const stops: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const stop of stops.splice(0)) await stop();
  });

  it('integrates every log at each round and drains a backlog larger than a batch', async () => {
    const provider = createMemStoreProvider({ sweepIntervalMs: 0 });
    const main = await TransparencyLog.open(provider, 'main');
    const other = await TransparencyLog.open(provider, 'other');
    for (let i = 0; i < 25; i++) await main.accept(entryFor(`m${i}`, 100 + i));
    for (let i = 0; i < 3; i++) await other.accept(entryFor(`o${i}`, 100 + i));
    const batches: number[] = [];
    const sequencer = new Sequencer([main, other], {
      intervalMs: 60_000,
      batchSize: 10,
      maxRootAgeMs: 3_600_000,
      onIntegrated: (_log, result) => batches.push(result.integrated),
    });
    await sequencer.runRound();
    expect(batches).toEqual([10, 10, 5, 3]);
    expect([main.head().size, other.head().size]).toEqual([25, 3]);
  });

  it('runs rounds on its interval and stops cleanly', async () => {
    const provider = createMemStoreProvider({ sweepIntervalMs: 0 });
    const log = await TransparencyLog.open(provider, 'main');
    const sequencer = new Sequencer([log], { intervalMs: 20, batchSize: 100, maxRootAgeMs: 3_600_000 });
    sequencer.start();
    stops.push(() => sequencer.stop());
    await log.accept(entryFor('x', 1));
    await waitFor(() => log.head().size === 1, { timeoutMs: 2_000 });
    await log.accept(entryFor('y', 2));
    await waitFor(() => log.head().size === 2, { timeoutMs: 2_000 });
    await sequencer.stop();
    await log.accept(entryFor('z', 3));
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(log.head().size).toBe(2);
  });

  it('keeps entries queued through failed rounds and integrates them once storage recovers', async () => {
    const inner = createMemStoreProvider({ sweepIntervalMs: 0 });
    let fail = true;
    // Only integration batches (those writing a tree head) fail; accepting still works.
    const log = await TransparencyLog.open(
      flakyProvider(inner, (ops) => fail && ops.some((op) => op.store === 'tree-heads')),
      'main',
    );
    const failures: unknown[] = [];
    const sequencer = new Sequencer([log], {
      intervalMs: 60_000,
      batchSize: 100,
      maxRootAgeMs: 3_600_000,
      onRoundFailed: (_log, error) => failures.push(error),
    });
    await log.accept(entryFor('kept', 1));
    await sequencer.runRound();
    await sequencer.runRound();
    expect(failures).toHaveLength(2);
    expect(log.head().size).toBe(0);
    fail = false;
    await sequencer.runRound();
    expect(log.head().size).toBe(1);
  });

  it('with a lease, integrates on one replica only while the others follow, and hands over on stop', async () => {
    const provider = createMemStoreProvider({ sweepIntervalMs: 0 });
    const replicas = await Promise.all(
      ['r1', 'r2', 'r3'].map(async (name) => {
        const log = await TransparencyLog.open(provider, 'main');
        const integrated: number[] = [];
        const sequencer = new Sequencer([log], {
          intervalMs: 60_000,
          batchSize: 100,
          maxRootAgeMs: 3_600_000,
          lease: await openSequencerLease(provider, name, 60_000),
          onIntegrated: (_log, result) => integrated.push(result.integrated),
        });
        return { log, sequencer, integrated };
      }),
    );
    const [r1, r2, r3] = replicas as [(typeof replicas)[0], (typeof replicas)[0], (typeof replicas)[0]];
    for (let i = 0; i < 30; i++) await replicas[i % 3]!.log.accept(entryFor(`e${i}`, 100 + i));
    for (const replica of replicas) await replica.sequencer.runRound();
    expect(r1.integrated).toEqual([30]);
    expect(r2.integrated).toEqual([]);
    expect(r3.integrated).toEqual([]);
    expect(replicas.map((r) => r.log.head().size)).toEqual([30, 30, 30]);

    await r1.sequencer.stop();
    await r2.log.accept(entryFor('after', 1_000));
    await r2.sequencer.runRound();
    await r3.sequencer.runRound();
    expect(r2.integrated).toEqual([1]);
    expect(r3.log.head()).toEqual(r2.log.head());
  });

  it('with a lease, has a replica that does not integrate answer from the newest stored head', async () => {
    const provider = createMemStoreProvider({ sweepIntervalMs: 0 });
    const open = async (name: string) => {
      const log = await TransparencyLog.open(provider, 'main');
      const lease = await openSequencerLease(provider, name, 60_000);
      return {
        log,
        sequencer: new Sequencer([log], { intervalMs: 60_000, batchSize: 100, maxRootAgeMs: 3_600_000, lease }),
      };
    };
    const [leader, follower] = [await open('leader'), await open('follower')];
    await leader.sequencer.runRound();
    await follower.sequencer.runRound();
    for (let i = 0; i < 5; i++) await leader.log.accept(entryFor(`e${i}`, 100 + i));
    await leader.sequencer.runRound();
    // The follower's own round has not come: its head in memory is behind, what it answers is not.
    expect(follower.log.head().size).toBe(0);
    expect((await follower.log.currentHead()).size).toBe(5);
    expect(follower.log.head()).toEqual(leader.log.head());
    expect(await follower.log.consistencyProof(2, 5)).toEqual(await leader.log.consistencyProof(2, 5));
    expect(await leader.log.currentHead()).toEqual(leader.log.head());

    // A burst of reads on the follower (one re-read of the store: CoalescedRounds) all get the newest head.
    await leader.log.accept(entryFor('burst', 200));
    await leader.sequencer.runRound();
    const heads = await Promise.all(Array.from({ length: 20 }, () => follower.log.currentHead()));
    expect(new Set(heads.map((head) => head.size))).toEqual(new Set([6]));
    await leader.sequencer.stop();
    await follower.sequencer.stop();
  });

  it('has the tree heads of a replica that lost the lease refused by the store, its tree rolled back', async () => {
    const provider = createMemStoreProvider({ sweepIntervalMs: 0 });
    const open = async (name: string) => {
      const log = await TransparencyLog.open(provider, 'main');
      const lease = await openSequencerLease(provider, name, 50);
      return {
        log,
        lease,
        sequencer: new Sequencer([log], { intervalMs: 60_000, batchSize: 100, maxRootAgeMs: 3_600_000, lease }),
      };
    };
    const [a, b] = [await open('a'), await open('b')];
    await a.log.accept(entryFor('first', 100));
    await a.sequencer.runRound();
    expect(a.lease.epoch).toBeDefined();
    // a pauses past its lease; b takes over and integrates.
    await new Promise((resolve) => setTimeout(resolve, 80));
    await b.log.accept(entryFor('second', 200));
    await b.sequencer.runRound();
    expect(b.lease.epoch).toBeGreaterThan(a.lease.epoch!);
    expect(b.log.head().size).toBe(2);
    // a comes back mid-round, integrating without a lease check: the store refuses the head it writes.
    await a.log.accept(entryFor('third', 300));
    await expect(a.log.integrate(100, 3_600_000)).rejects.toMatchObject({ code: 'conflict', status: 409 });
    expect(a.log.head().size).toBe(1);
    await b.sequencer.runRound();
    expect(b.log.head().size).toBe(3);
    await a.sequencer.runRound();
    expect(a.log.head()).toEqual(b.log.head());
  });

  it('with a lease, bounds each batch by a quarter of the lease, fences every write, and goes on in the same round', async () => {
    const inner = createMemStoreProvider({ sweepIntervalMs: 0 });
    // Each write takes 5 s by the sequencer's clock; the lease is 60 s, so a batch is bounded by 15 s.
    let clock = 0;
    const integrationWrites: Array<readonly ProviderBatchOp[]> = [];
    const provider = observedProvider(inner, (ops) => {
      clock += 5_000;
      if (ops.some((op) => op.store === 'main.entries' || op.store === 'tree-heads')) integrationWrites.push(ops);
    });
    const log = await TransparencyLog.open(provider, 'main');
    const count = 3 * INTEGRATION_SLICE + 44;
    for (let i = 0; i < count; i++) await log.accept(entryFor(`e${i}`, 100 + i));
    const lease = await openSequencerLease(provider, 'r1', 60_000);
    const batches: number[] = [];
    const sequencer = new Sequencer([log], {
      intervalMs: 60_000,
      batchSize: 1_000,
      maxRootAgeMs: 3_600_000,
      lease,
      now: () => clock,
      onIntegrated: (_log, result) => batches.push(result.integrated),
    });
    integrationWrites.length = 0;
    await sequencer.runRound();
    // Each slice is written on its own, then the head. The first batch looks at the clock before each further
    // slice: at 5 and 10 s in it takes one, at 15 s (the bound) none; its head covers three slices, and the
    // next batch, in the same round, takes the rest.
    expect(batches).toEqual([3 * INTEGRATION_SLICE, 44]);
    expect(log.head().size).toBe(count);
    expect(log.head().root).toEqual(
      rootOfLeafHashes(
        Array.from({ length: count }, (_, i) => Buffer.from(entryFor(`e${i}`, 100 + i).leafHash, 'base64')),
      ),
    );
    // Every write of the batches carried the next link of the lease chain, in one epoch.
    expect(integrationWrites).toHaveLength(6);
    const links = integrationWrites.map((ops) => ops.find((op) => op.store === LEASE_STORE && op.op === 'insert'));
    expect(links.every((link) => link !== undefined)).toBe(true);
    expect(new Set(links.map((link) => (link as { value: { epoch: number } }).value.epoch))).toEqual(
      new Set([lease.epoch]),
    );
    await sequencer.stop();
  });

  it('has a time-bounded batch deposed between its writes refused, and the successor resume where it stopped', async () => {
    const inner = createMemStoreProvider({ sweepIntervalMs: 0 });
    let clock = 0;
    let depose: (() => Promise<void>) | undefined;
    const provider = observedProvider(inner, async (ops) => {
      clock += 1;
      // Right after a's first slice lands, a stalls past its lease (the whole process, timers too, as in a
      // long GC pause) and b takes over.
      if (depose && ops.some((op) => op.store === 'main.entries')) {
        const run = depose;
        depose = undefined;
        await run();
      }
    });
    const open = async (name: string, leaseMs: number) => {
      const log = await TransparencyLog.open(provider, 'main');
      const lease = await openSequencerLease(provider, name, leaseMs);
      const failures: unknown[] = [];
      const sequencer = new Sequencer([log], {
        intervalMs: 60_000,
        batchSize: 1_000,
        maxRootAgeMs: 3_600_000,
        lease,
        now: () => clock,
        onRoundFailed: (_log, error) => failures.push(error),
      });
      return { log, lease, sequencer, failures };
    };
    const [a, b] = [await open('a', 50), await open('b', 60_000)];
    const count = 2 * INTEGRATION_SLICE + 7;
    for (let i = 0; i < count; i++) await a.log.accept(entryFor(`e${i}`, 100 + i));
    depose = async () => {
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 80);
      expect(await b.lease.acquire()).toBe(true);
    };
    await a.sequencer.runRound();
    // a's second write met b's claim: refused by the store, a's tree read back to the head it had.
    expect(a.failures).toHaveLength(1);
    expect(a.failures[0]).toMatchObject({ code: 'conflict' });
    expect(a.log.head().size).toBe(0);
    expect(b.lease.epoch).toBeGreaterThan(0);
    // b rolls a's written slice forward (the same leaves at the same indices) and integrates the rest.
    await b.sequencer.runRound();
    const hashes = Array.from({ length: count }, (_, i) => Buffer.from(entryFor(`e${i}`, 100 + i).leafHash, 'base64'));
    expect(b.log.head().size).toBe(count);
    expect(b.log.head().root).toEqual(rootOfLeafHashes(hashes));
    await a.sequencer.runRound();
    expect(a.log.head()).toEqual(b.log.head());
    expect(await a.log.indexOfLeafHash(hashes[INTEGRATION_SLICE]!)).toBe(INTEGRATION_SLICE);
    await b.sequencer.stop();
  });
});
