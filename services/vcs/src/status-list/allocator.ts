import { LIST_SIZE } from './bitstring.js';

/**
 * Where allocation in one list stands: the next index never handed out. Indexes only move forward, so no
 * index is ever given to a second credential, even after a revocation or a crash (a caller that persists the
 * state before using the indexes it got loses at most those, and never reuses one).
 */
export interface AllocatorState {
  next: number;
}

export function newAllocator(): AllocatorState {
  return { next: 0 };
}

/** The next free index and the state after it, or undefined when the list is full (start a new list). */
export function allocateIndex(
  state: AllocatorState,
  listSize: number = LIST_SIZE,
): { index: number; state: AllocatorState } | undefined {
  const reserved = reserveIndexes(state, 1, listSize);
  return reserved === undefined ? undefined : { index: reserved.indexes[0] as number, state: reserved.state };
}

/**
 * Up to `count` consecutive free indexes and the state after them (fewer when the list runs out), or
 * undefined when the list is full: what a service persists once per batch instead of once per credential.
 */
export function reserveIndexes(
  state: AllocatorState,
  count: number,
  listSize: number = LIST_SIZE,
): { indexes: number[]; state: AllocatorState } | undefined {
  checkState(state, listSize);
  if (!Number.isSafeInteger(count) || count < 1) throw new RangeError(`count must be a positive integer, not ${count}`);
  if (state.next >= listSize) return undefined;
  const end = Math.min(state.next + count, listSize);
  const indexes = Array.from({ length: end - state.next }, (_, offset) => state.next + offset);
  return { indexes, state: { next: end } };
}

/** A stored state, checked: a corrupt one must not restart allocation at an index already handed out. */
export function checkState(state: unknown, listSize: number = LIST_SIZE): AllocatorState {
  const next = (state as AllocatorState | null)?.next;
  if (typeof next !== 'number' || !Number.isSafeInteger(next) || next < 0 || next > listSize)
    throw new RangeError(`allocator state must be { next: 0..${listSize} }, not ${JSON.stringify(state)}`);
  return state as AllocatorState;
}
