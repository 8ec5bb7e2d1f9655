import type { Entry, Query, Store } from './types.js';

/** A query read to its end: the cursor and the offset are the helper's; `limit` is the page size. */
export type QueryToEnd = Omit<Query, 'after' | 'offset'>;

/**
 * The pages of a query, first to last, each read once the caller has handled the one before: a caller that
 * acts on every record (re-queueing, acknowledging) holds one page at a time. Pages of 1,000 unless `limit`
 * says otherwise.
 */
export async function* queryPages<T extends object>(
  store: Store<T>,
  query: QueryToEnd,
): AsyncGenerator<Array<Entry<T>>> {
  let after: string | undefined;
  do {
    const page = await store.query({ limit: 1_000, ...query, ...(after ? { after } : {}) });
    yield page.items;
    after = page.next;
  } while (after);
}

/** Every record a query matches, in its order (see `queryPages`). */
export async function queryAll<T extends object>(store: Store<T>, query: QueryToEnd): Promise<Array<Entry<T>>> {
  const entries: Array<Entry<T>> = [];
  for await (const items of queryPages(store, query)) entries.push(...items);
  return entries;
}
