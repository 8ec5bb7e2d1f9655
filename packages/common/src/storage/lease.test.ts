import { FencedError, isFenced, LEASE_STORE, StoreLease, type LeaseLink } from './lease.js';
import { createMemStoreProvider } from './mem.js';
import type { Store, StoreOptions, StoreProvider } from './types.js';
import { describe, expect, it } from 'vitest';

const open = (provider: StoreProvider, holder: string, durationMs = 1_000) =>
  StoreLease.open(provider, { name: 'batch-writer', holder, durationMs });

async function chain(provider: StoreProvider): Promise<LeaseLink[]> {
  const store = await provider.open<LeaseLink>(LEASE_STORE, { indexes: [['lease', 'version']] });
  return (await store.query({ where: { lease: 'batch-writer' }, orderBy: { field: 'version' } })).items.map(
    (e) => e.value,
  );
}

describe('StoreLease', () => {
  it('has one holder at a time; the holder renews in its epoch, others cannot take it', async () => {
    const provider = createMemStoreProvider({ sweepIntervalMs: 0 });
    const [a, b] = [await open(provider, 'a'), await open(provider, 'b')];
    const now = Date.now();
    expect(await a.acquire(now)).toBe(true);
    expect(a.epoch).toBe(1);
    expect(await b.acquire(now + 10)).toBe(false);
    expect(b.epoch).toBeUndefined();
    expect(await a.renew(now + 500)).toBe(true);
    expect(await a.renew(now + 900)).toBe(true);
    expect(a.epoch).toBe(1);
    // a renewed at now + 900: still held at now + 1,200.
    expect(await b.acquire(now + 1_200)).toBe(false);
    // The chain keeps the epoch's claim and its latest link only.
    expect((await chain(provider)).map((l) => [l.version, l.kind])).toEqual([
      [1, 'claim'],
      [3, 'renew'],
    ]);
  });

  it('reads the claim that began an epoch, after renewals, from any reader', async () => {
    const provider = createMemStoreProvider({ sweepIntervalMs: 0 });
    const [a, reader] = [await open(provider, 'a'), await open(provider, 'reader')];
    const now = Date.now();
    expect(await a.acquire(now)).toBe(true);
    expect(await a.renew(now + 400)).toBe(true);
    expect(await reader.claimOf(1)).toMatchObject({ kind: 'claim', holder: 'a', epoch: 1, expiresAt: now + 1_000 });
    expect(await reader.claimOf(2)).toBeUndefined();
  });

  it('passes to another holder in a new epoch once it expires; the old holder learns it lost it', async () => {
    const provider = createMemStoreProvider({ sweepIntervalMs: 0 });
    const [a, b] = [await open(provider, 'a'), await open(provider, 'b')];
    const now = Date.now();
    expect(await a.acquire(now)).toBe(true);
    expect(await b.acquire(now + 1_001)).toBe(true);
    expect(b.epoch).toBe(2);
    expect(await a.renew(now + 1_002)).toBe(false);
    expect(a.epoch).toBeUndefined();
  });

  it('is free at once after release, and taken straight back (in a new epoch) by a restarted holder', async () => {
    const provider = createMemStoreProvider({ sweepIntervalMs: 0 });
    const [a, again, b] = [await open(provider, 'a'), await open(provider, 'a'), await open(provider, 'b')];
    expect(await a.acquire()).toBe(true);
    expect(await again.acquire()).toBe(true);
    expect(again.epoch).toBe(2);
    // The earlier process with the same id is deposed: its writes are refused.
    await expect(a.write([])).rejects.toBeInstanceOf(FencedError);
    await again.release();
    expect(await b.acquire()).toBe(true);
    await a.release();
    expect(await a.acquire()).toBe(false);
  });

  it('refuses the writes of a deposed holder that still believes it holds the lease, in the store', async () => {
    const provider = createMemStoreProvider({ sweepIntervalMs: 0 });
    const data = await provider.open<{ by: string; epoch: number }>('data');
    const [a, b] = [await open(provider, 'a'), await open(provider, 'b')];
    const now = Date.now();
    expect(await a.acquire(now)).toBe(true);
    await a.write([{ store: 'data', op: 'put', key: 'x', value: { by: 'a', epoch: a.epoch! } }]);
    // a pauses (no renewals); b takes over after the expiry and writes.
    expect(await b.acquire(now + 2_000)).toBe(true);
    await b.write([{ store: 'data', op: 'put', key: 'x', value: { by: 'b', epoch: b.epoch! } }]);
    // a comes back and writes without checking the lease first: the store refuses it.
    expect(a.epoch).toBe(1);
    const refused = await a
      .write([{ store: 'data', op: 'put', key: 'x', value: { by: 'a', epoch: 1 } }])
      .catch((error: unknown) => error);
    expect(isFenced(refused)).toBe(true);
    expect(refused).toMatchObject({ code: 'conflict', status: 409, epoch: 1 });
    expect(await data.get('x')).toEqual({ by: 'b', epoch: b.epoch });
    expect(a.epoch).toBeUndefined();
    await expect(a.write([])).rejects.toBeInstanceOf(FencedError);
  });

  it("rethrows a conflict of the write's own operations without losing the lease", async () => {
    const provider = createMemStoreProvider({ sweepIntervalMs: 0 });
    const data = await provider.open<{ n: number }>('data');
    await data.put('taken', { n: 0 });
    const a = await open(provider, 'a');
    expect(await a.acquire()).toBe(true);
    const error = await a
      .write([{ store: 'data', op: 'insert', key: 'taken', value: { n: 1 } }])
      .catch((e: unknown) => e);
    expect(isFenced(error)).toBe(false);
    expect(error).toMatchObject({ code: 'conflict' });
    expect(a.epoch).toBe(1);
    await a.write([{ store: 'data', op: 'put', key: 'taken', value: { n: 2 } }]);
    expect(await data.get('taken')).toEqual({ n: 2 });
  });

  it('steps past a link of its own epoch whose write it saw fail but which landed', async () => {
    const provider = createMemStoreProvider({ sweepIntervalMs: 0 });
    let failAfterWrite = false;
    const flaky: StoreProvider = {
      ...provider,
      kind: provider.kind,
      open: provider.open.bind(provider),
      batch: async (ops) => {
        await provider.batch(ops);
        if (failAfterWrite) {
          failAfterWrite = false;
          throw new Error('connection lost after the write');
        }
      },
    };
    const a = await StoreLease.open(flaky, { name: 'batch-writer', holder: 'a', durationMs: 1_000 });
    expect(await a.acquire()).toBe(true);
    failAfterWrite = true;
    await expect(a.renew()).rejects.toThrow(/connection lost/);
    expect(await a.renew()).toBe(true);
    expect(a.epoch).toBe(1);
  });

  it('does not hold a claim made from a tip read before the holder appended and freed the slot after it', async () => {
    // FerretDB under load answered a tip query from before the holder's latest links (CI, 2026-12-07): the
    // claimer took the slot the holder had freed, then walked through the holder's freed slots writing beside it.
    const provider = createMemStoreProvider({ sweepIntervalMs: 0 });
    let gate: Promise<void> | undefined;
    const lateReads: StoreProvider = {
      ...provider,
      kind: provider.kind,
      batch: provider.batch.bind(provider),
      open: async <T extends object>(name: string, options?: StoreOptions) => {
        const store = await provider.open<T>(name, options);
        return Object.assign(Object.create(store) as Store<T>, {
          query: async (...args: Parameters<Store<T>['query']>) => {
            const page = await store.query(...args);
            await gate;
            return page;
          },
        });
      },
    };
    const a = await open(provider, 'a');
    const b = await StoreLease.open(lateReads, { name: 'batch-writer', holder: 'b', durationMs: 1_000 });
    const now = Date.now();
    expect(await a.acquire(now)).toBe(true);
    let openGate!: () => void;
    gate = new Promise((resolve) => (openGate = resolve));
    // b reads the tip (a's claim, expired by b's clock) but gets the answer only after a renewed and wrote.
    const claim = b.acquire(now + 2_000);
    expect(await a.renew(now + 1_500)).toBe(true);
    await a.write([]);
    gate = undefined;
    openGate();
    expect(await claim).toBe(false);
    expect(b.epoch).toBeUndefined();
    // a's next write frees the slot after b's claim: b must still be refused there.
    await a.write([]);
    await expect(b.write([])).rejects.toSatisfy(isFenced);
    expect(a.epoch).toBe(1);
    expect((await chain(provider)).map((l) => [l.version, l.kind, l.holder])).toEqual([
      [1, 'claim', 'a'],
      [2, 'claim', 'b'],
      [4, 'write', 'a'],
    ]);
  });
});
