import { afterEach, describe, expect, it } from 'vitest';
import { createMemStoreProvider } from './mem.js';
import { queryAll, queryPages } from './query-pages.js';
import type { StoreProvider } from './types.js';

interface Job {
  status: 'pending' | 'done';
  at: number;
}

let provider: StoreProvider;
afterEach(() => provider.close());

async function jobs(count: number) {
  provider = createMemStoreProvider({ sweepIntervalMs: 0 });
  const store = await provider.open<Job>('jobs', { indexes: [['status', 'at']] });
  for (let n = 0; n < count; n++)
    await store.put(`job-${String(n).padStart(3, '0')}`, { status: 'pending', at: 1_000 - n });
  return store;
}

describe('queryPages and queryAll', () => {
  it('read every matching record in the query order, a page of `limit` at a time', async () => {
    const store = await jobs(25);
    const sizes: number[] = [];
    for await (const items of queryPages(store, { where: { status: 'pending' }, orderBy: { field: 'at' }, limit: 10 }))
      sizes.push(items.length);
    expect(sizes).toEqual([10, 10, 5]);
    const all = await queryAll(store, { where: { status: 'pending' }, orderBy: { field: 'at' }, limit: 10 });
    expect(all.map((entry) => entry.value.at)).toEqual(Array.from({ length: 25 }, (_, n) => 976 + n));
  });

  it('read the next page only after the caller has handled the one before', async () => {
    const store = await jobs(12);
    const seen: string[] = [];
    for await (const items of queryPages(store, { where: { status: 'pending' }, orderBy: { field: 'at' }, limit: 5 })) {
      for (const { key, value } of items) {
        seen.push(key);
        await store.put(key, { ...value, status: 'done' });
      }
      // A record added now, ahead of the cursor, is still found.
      if (seen.length === 5) await store.put('late', { status: 'pending', at: 2_000 });
    }
    expect(seen).toHaveLength(13);
    expect(seen.at(-1)).toBe('late');
  });

  it('key prefixes and an empty result', async () => {
    const store = await jobs(3);
    expect((await queryAll(store, { keyPrefix: 'job-00' })).map((entry) => entry.key)).toEqual([
      'job-000',
      'job-001',
      'job-002',
    ]);
    expect(await queryAll(store, { keyPrefix: 'nothing' })).toEqual([]);
  });
});
