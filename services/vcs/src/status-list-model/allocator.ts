import { createHmac, randomBytes } from 'node:crypto';
import { LIST_SIZE } from './bitstring.js';

/**
 * Where allocation in one list stands: how many indexes were handed out. The count only moves forward, so
 * no index is ever given to a second credential, even after a revocation or a crash (a caller that persists
 * the state before using the indexes it got loses at most those, and never reuses one).
 *
 * With a `shuffleKey` the n-th index handed out is a keyed pseudo-random permutation of n rather than n
 * itself: the Bitstring Status List asks issuers to assign indexes randomly, so that an index does not tell
 * when a credential was issued or how many were issued before it. The permutation is a bijection of
 * [0, listSize), so shuffling never repeats an index either.
 */
export interface AllocatorState {
  next: number;
  /** base64url of 32 random bytes; absent: indexes in order. */
  shuffleKey?: string;
}

/** A fresh allocator; `shuffle: true` draws the key that orders its indexes at random. */
export function newAllocator(options: { shuffle?: boolean } = {}): AllocatorState {
  return options.shuffle ? { next: 0, shuffleKey: randomBytes(32).toString('base64url') } : { next: 0 };
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
 * Up to `count` free indexes and the state after them (fewer when the list runs out), or undefined when the
 * list is full: what a service persists once per batch instead of once per credential.
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
  const positions = Array.from({ length: end - state.next }, (_, offset) => state.next + offset);
  const key = state.shuffleKey === undefined ? undefined : Buffer.from(state.shuffleKey, 'base64url');
  const indexes = key === undefined ? positions : positions.map((position) => permute(key, position, listSize));
  return { indexes, state: { ...state, next: end } };
}

/** A stored state, checked: a corrupt one must not restart allocation at an index already handed out. */
export function checkState(state: unknown, listSize: number = LIST_SIZE): AllocatorState {
  const { next, shuffleKey } = (state ?? {}) as Partial<AllocatorState>;
  if (
    typeof next !== 'number' ||
    !Number.isSafeInteger(next) ||
    next < 0 ||
    next > listSize ||
    (shuffleKey !== undefined && (typeof shuffleKey !== 'string' || !/^[A-Za-z0-9_-]{43}$/.test(shuffleKey)))
  )
    throw new RangeError(`allocator state must be { next: 0..${listSize}, shuffleKey? }, not ${JSON.stringify(state)}`);
  return state as AllocatorState;
}

const ROUNDS = 4;

/**
 * A keyed bijection of [0, size): a balanced Feistel network over the smallest even number of bits that
 * covers `size`, walking the cycle until the value falls inside the range (at most a few steps, as the
 * network's domain is less than four times `size`).
 */
function permute(key: Buffer, position: number, size: number): number {
  let bits = Math.max(2, Math.ceil(Math.log2(size)));
  if (bits % 2 === 1) bits += 1;
  const half = bits / 2;
  const mask = (1 << half) - 1;
  let value = position;
  do {
    let left = value >>> half;
    let right = value & mask;
    for (let round = 0; round < ROUNDS; round += 1) {
      const next = left ^ (roundValue(key, round, right) & mask);
      left = right;
      right = next;
    }
    value = (left << half) | right;
  } while (value >= size);
  return value;
}

function roundValue(key: Buffer, round: number, input: number): number {
  return createHmac('sha256', key).update(`${round}:${input}`).digest().readUInt32BE(0);
}
