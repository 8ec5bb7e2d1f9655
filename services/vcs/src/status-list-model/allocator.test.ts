import { describe, expect, it } from 'vitest';
import { LIST_SIZE } from './bitstring.js';
import { allocateIndex, checkState, newAllocator, reserveIndexes, type AllocatorState } from './allocator.js';

describe('status index allocation', () => {
  it('hands out every index of a list once, in order, then reports the list full', () => {
    let state: AllocatorState = newAllocator();
    const seen = new Set<number>();
    for (;;) {
      const next = allocateIndex(state, 1_024);
      if (next === undefined) break;
      expect(seen.has(next.index)).toBe(false);
      seen.add(next.index);
      state = next.state;
    }
    expect(seen.size).toBe(1_024);
    expect(state).toEqual({ next: 1_024 });
    expect(allocateIndex(state, 1_024)).toBeUndefined();
  });

  it('is pure: the same state gives the same index, and the input state is not changed', () => {
    const state = { next: 7 };
    expect(allocateIndex(state)).toEqual({ index: 7, state: { next: 8 } });
    expect(allocateIndex(state)).toEqual({ index: 7, state: { next: 8 } });
    expect(state).toEqual({ next: 7 });
  });

  it('reserves batches that never overlap, the last one cut at the end of the list', () => {
    const first = reserveIndexes(newAllocator(), 64);
    expect(first?.indexes).toEqual(Array.from({ length: 64 }, (_, i) => i));
    const second = reserveIndexes(first!.state, 64);
    expect(second?.indexes[0]).toBe(64);
    const tail = reserveIndexes({ next: LIST_SIZE - 10 }, 64);
    expect(tail?.indexes).toHaveLength(10);
    expect(tail?.state).toEqual({ next: LIST_SIZE });
    expect(reserveIndexes(tail!.state, 64)).toBeUndefined();
  });

  it.each([
    { next: -1 },
    { next: 1.5 },
    { next: LIST_SIZE + 1 },
    { next: '3' },
    {},
    null,
    { next: 0, shuffleKey: 'short' },
  ])('refuses a corrupt state %j rather than restart at an index already handed out', (state) => {
    expect(() => checkState(state)).toThrow(/allocator state must be/);
    expect(() => allocateIndex(state as AllocatorState)).toThrow(RangeError);
  });

  it('with a shuffle key, hands out every index once in a keyed random order (the spec asks for random assignment)', () => {
    const size = 4_096;
    let state = newAllocator({ shuffle: true });
    expect(state.shuffleKey).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const order: number[] = [];
    for (let batch = reserveIndexes(state, 1_000, size); batch; batch = reserveIndexes(state, 1_000, size)) {
      order.push(...batch.indexes);
      state = batch.state;
    }
    expect(order).toHaveLength(size);
    expect(new Set(order).size).toBe(size);
    expect(Math.min(...order)).toBe(0);
    expect(Math.max(...order)).toBe(size - 1);
    const inPlace = order.filter((index, position) => index === position).length;
    expect(inPlace).toBeLessThan(20); // a random permutation fixes about one point
    // The order is a function of the key alone: the same key (a stored state) gives the same indexes.
    const again = reserveIndexes({ next: 0, shuffleKey: state.shuffleKey as string }, 10, size);
    expect(again?.indexes).toEqual(order.slice(0, 10));
    const other = reserveIndexes(newAllocator({ shuffle: true }), 10, size);
    expect(other?.indexes).not.toEqual(order.slice(0, 10));
    expect(state.shuffleKey).toBeDefined();
  });

  it('shuffles within the full 131,072-entry list, without a repeat in a large sample', () => {
    const batch = reserveIndexes(newAllocator({ shuffle: true }), 20_000);
    expect(new Set(batch?.indexes).size).toBe(20_000);
    expect(batch?.indexes.every((index) => index >= 0 && index < LIST_SIZE)).toBe(true);
  });

  it('refuses a batch size that is not a positive integer', () => {
    expect(() => reserveIndexes(newAllocator(), 0)).toThrow(/count must be a positive integer/);
  });
});
