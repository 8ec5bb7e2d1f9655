import { createStoreProvider, type Store, type StoreProvider } from '@anchor/common/storage';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { GroupedInserts } from './grouped-inserts.js';

describe('grouped inserts', () => {
  let storage: StoreProvider;
  let store: Store<{ n: number }>;
  beforeEach(async () => {
    storage = await createStoreProvider({ type: 'mem' });
    store = await storage.open<{ n: number }>('grouped');
  });
  afterEach(async () => storage.close());

  it('writes concurrent inserts in fewer batches than inserts, each durable when its promise resolves', async () => {
    const batch = vi.spyOn(store, 'batch');
    const grouped = new GroupedInserts(store);
    const results = await Promise.all(Array.from({ length: 50 }, (_, n) => grouped.insert(`k${n}`, { n })));
    expect(results.every(Boolean)).toBe(true);
    expect(batch.mock.calls.length).toBeLessThan(50);
    expect(batch.mock.calls.length).toBeGreaterThan(0);
    for (let n = 0; n < 50; n++) expect(await store.get(`k${n}`)).toEqual({ n });
  });

  it('answers false only to the caller whose key exists, the others in its group still written', async () => {
    await store.put('taken', { n: -1 });
    const grouped = new GroupedInserts(store);
    const results = await Promise.all([
      grouped.insert('a', { n: 1 }),
      grouped.insert('taken', { n: 2 }),
      grouped.insert('b', { n: 3 }),
    ]);
    expect(results).toEqual([true, false, true]);
    expect(await store.get('taken')).toEqual({ n: -1 });
    expect(await store.get('b')).toEqual({ n: 3 });
  });

  it('hands a failed commit to every caller of the group', async () => {
    const grouped = new GroupedInserts(store);
    vi.spyOn(store, 'batch').mockRejectedValueOnce(new Error('disk gone'));
    const results = await Promise.allSettled([grouped.insert('x', { n: 1 }), grouped.insert('y', { n: 2 })]);
    expect(results.map((result) => result.status)).toEqual(['rejected', 'rejected']);
    expect(await grouped.insert('z', { n: 3 })).toBe(true);
  });
});
