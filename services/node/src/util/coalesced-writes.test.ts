import { createMemStoreProvider, type ProviderBatchOp } from '@anchor/common/storage';
import { describe, expect, it } from 'vitest';
import { CoalescedWrites } from './coalesced-writes.js';

describe('CoalescedWrites', () => {
  const put = (key: string): ProviderBatchOp => ({ store: 'records', op: 'put', key, value: { key } });

  it('merges the writes asked for while one is in flight into the next, in order', async () => {
    const provider = createMemStoreProvider();
    const records = await provider.open<{ key: string }>('records');
    const calls: string[][] = [];
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    const writes = new CoalescedWrites(async (ops) => {
      calls.push(ops.map((op) => op.key));
      if (calls.length === 1) await held;
      await provider.batch(ops);
    });
    const first = writes.write([put('a')]);
    const second = writes.write([put('b'), put('c')]);
    const third = writes.write([put('d')]);
    release();
    await Promise.all([first, second, third]);
    expect(calls).toEqual([['a'], ['b', 'c', 'd']]);
    expect((await records.getMany(['a', 'b', 'c', 'd'])).map((record) => record?.key)).toEqual(['a', 'b', 'c', 'd']);
    // Idle again: a write on its own goes alone.
    await writes.write([put('e')]);
    expect(calls.at(-1)).toEqual(['e']);
    await provider.close();
  });

  it('fails every write of a merged write that failed, and goes on with the next ones', async () => {
    const calls: string[][] = [];
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    const writes = new CoalescedWrites(async (ops) => {
      calls.push(ops.map((op) => op.key));
      if (calls.length === 1) await held;
      if (calls.length === 2) throw new Error('the store refused the write');
    });
    const first = writes.write([put('a')]);
    const second = writes.write([put('b')]);
    const third = writes.write([put('c')]);
    release();
    await expect(first).resolves.toBeUndefined();
    await expect(second).rejects.toThrow('the store refused the write');
    await expect(third).rejects.toThrow('the store refused the write');
    await expect(writes.write([put('d')])).resolves.toBeUndefined();
    expect(calls).toEqual([['a'], ['b', 'c'], ['d']]);
  });

  it('with distinct keys and failure alone, keeps writes of one record apart and fails only the spoiling write', async () => {
    const calls: string[][] = [];
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    const writes = new CoalescedWrites(
      async (ops) => {
        calls.push(ops.map((op) => op.key));
        if (calls.length === 1) await held;
        if (ops.some((op) => op.key === 'bad')) throw new Error('the store refused the write');
      },
      { distinctKeys: true, failure: 'alone' },
    );
    const first = writes.write([put('a')]);
    const rest = [
      writes.write([put('b')]),
      writes.write([put('bad')]),
      writes.write([put('b')]),
      writes.write([put('c')]),
    ];
    release();
    await expect(first).resolves.toBeUndefined();
    const outcomes = await Promise.allSettled(rest);
    expect(outcomes.map((outcome) => outcome.status)).toEqual(['fulfilled', 'rejected', 'fulfilled', 'fulfilled']);
    // The second write of b waits for a merge of its own; the failed merge is halved down to 'bad'.
    expect(calls).toEqual([['a'], ['b', 'bad'], ['b'], ['bad'], ['b', 'c']]);
  });
});
