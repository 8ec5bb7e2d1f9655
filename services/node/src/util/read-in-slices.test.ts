import { createMemStoreProvider } from '@anchor/common/storage';
import { describe, expect, it } from 'vitest';
import { getManyInSlices } from './read-in-slices.js';

describe('getManyInSlices', () => {
  it('answers as getMany does, in key order with gaps, across slices, and lets the event loop run between them', async () => {
    const provider = createMemStoreProvider();
    const store = await provider.open<{ n: number }>('numbers');
    for (let n = 0; n < 700; n += 2) await store.put(`k${n}`, { n });
    const keys = Array.from({ length: 700 }, (_, n) => `k${699 - n}`);
    // Queued before the read: it runs only if the read gives the event loop a turn before it ends.
    let otherWorkRan = false;
    setImmediate(() => {
      otherWorkRan = true;
    });
    const sliced = await getManyInSlices(store, keys);
    expect(otherWorkRan).toBe(true);
    expect(sliced).toEqual(await store.getMany(keys));
    expect(sliced.filter((value) => value !== undefined)).toHaveLength(350);
    expect(await getManyInSlices(store, [])).toEqual([]);
    await provider.close();
  });
});
