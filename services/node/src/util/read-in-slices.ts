import { setImmediate as nextTurn } from 'node:timers/promises';
import type { Store } from '@anchor/common/storage';

/** Keys read per slice: about a millisecond of LMDB reads and record decoding. */
const SLICE = 250;

/**
 * `store.getMany(keys)` a slice at a time, yielding to the event loop in between: an anchor's thousands of keys
 * read at once would hold it for milliseconds, and every request arriving meanwhile would wait that long (the
 * node README's Performance section has the figures). The slices are not one
 * snapshot: a record may change between them, as it may just after any read, so callers must not need one.
 */
export async function getManyInSlices<T extends object>(
  store: Pick<Store<T>, 'getMany'>,
  keys: readonly string[],
): Promise<Array<T | undefined>> {
  if (keys.length <= SLICE) return store.getMany(keys);
  const values: Array<T | undefined> = [];
  for (let from = 0; from < keys.length; from += SLICE) {
    if (from > 0) await nextTurn();
    values.push(...(await store.getMany(keys.slice(from, from + SLICE))));
  }
  return values;
}
