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

  it.each([{ next: -1 }, { next: 1.5 }, { next: LIST_SIZE + 1 }, { next: '3' }, {}, null])(
    'refuses a corrupt state %j rather than restart at an index already handed out',
    (state) => {
      expect(() => checkState(state)).toThrow(/allocator state must be/);
      expect(() => allocateIndex(state as AllocatorState)).toThrow(RangeError);
    },
  );

  it('refuses a batch size that is not a positive integer', () => {
    expect(() => reserveIndexes(newAllocator(), 0)).toThrow(/count must be a positive integer/);
  });
});
