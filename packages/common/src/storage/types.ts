/**
 * The one storage interface (see docs/architecture.md "Storage"). Stores are named collections of JSON
 * records under string keys. Top-level record fields listed in `indexes` can be queried by equality and
 * range and sorted on; every adapter (mem, LMDB, MongoDB) passes the same contract suite in
 * `@anchor/testing/storage-contract`, so code written against this file runs on any of them.
 */

/** Values an indexed field may hold. Index order: numbers < strings < booleans, each in natural order. */
export type IndexValue = string | number | boolean;

/**
 * A compound index: equality on a prefix of `fields`, then an optional range and/or sort on the next
 * field. A single string is shorthand for a one-field index.
 *
 * `{ fields, sortedOnly: true }` declares an index that only answers queries ranging or sorting on its
 * last field (equality on all the others): equality on a shorter prefix without that sort is not answered
 * by it. The mem and LMDB adapters then keep one entry per record for it instead of one per prefix, which
 * is what makes it worth declaring on stores written on every request.
 */
export type IndexSpec = string | readonly string[] | { readonly fields: readonly string[]; readonly sortedOnly: true };

export interface StoreOptions {
  indexes?: readonly IndexSpec[];
  /**
   * Name of a top-level numeric field holding an expiry time (epoch milliseconds). Records whose expiry
   * is at or before now are invisible to reads and queries and are deleted by `sweepExpired` (which
   * providers also run periodically). Records without the field never expire.
   */
  expiryField?: string;
  /**
   * Writes touching this store are planned inside the backend's write transaction, never against this process's
   * view of what is committed: on LMDB, whose environment several processes may share, insert-if-absent is then
   * exact across them (the lease chain, `lease.ts`). Slower; no effect on mem (one process) and MongoDB (the
   * server decides).
   */
  exclusive?: boolean;
}

/**
 * Bounds must share one type, and a range only matches values of that type (type-bracketed, as in MongoDB):
 * `{gte: 5}` matches numbers from 5 up, never strings.
 */
export interface RangeCondition {
  gt?: IndexValue;
  gte?: IndexValue;
  lt?: IndexValue;
  lte?: IndexValue;
}

/** Equality (a bare value), membership (`in`), or a range on one indexed field. */
export type FieldCondition = IndexValue | RangeCondition | { in: readonly IndexValue[] };

export interface Query {
  /** Conditions combined with AND. Must be answerable by one declared index, or the query is rejected. */
  where?: Readonly<Record<string, FieldCondition>>;
  /**
   * Sort field (must follow the equality fields in the chosen index); ties break by key. Default: key order,
   * or the range field ascending when the query has a range. Sorting or ranging on a field returns only the
   * records that hold a value in it.
   */
  orderBy?: { field: string; direction?: 'asc' | 'desc' };
  /** Page size; default 100, max 10,000. */
  limit?: number;
  /** Records to skip before the page starts (for page-number paging). */
  offset?: number;
  /** Opaque cursor (`Page.next` of the previous page): the page starts after it. */
  after?: string;
  /**
   * Only records whose key starts with this string, in key order: a range of the primary keys, so a store
   * whose keys begin with a grouping value (`<did suffix>:<...>`) reads a group without an index to keep.
   * Cannot be combined with `where` or `orderBy`.
   */
  keyPrefix?: string;
}

export interface Entry<T> {
  key: string;
  value: T;
}

export interface Page<T> {
  items: Array<Entry<T>>;
  /** Present when more records may follow; pass as `after` to continue. */
  next?: string;
}

export type BatchOp<T> =
  | { op: 'put'; key: string; value: T }
  /** Insert-if-absent inside a batch: if the key exists, the whole batch is aborted with a `conflict` AppError. */
  | { op: 'insert'; key: string; value: T }
  | { op: 'delete'; key: string };

/** A batch operation addressed to a named store of the same provider (for cross-store atomic writes). */
export type ProviderBatchOp = BatchOp<object> & { store: string };

/**
 * Values are stored in their JSON form (what `JSON.stringify` keeps is what reads return). Indexed fields
 * must hold a string, a finite number or a boolean, or be absent; the top-level field `_id` is reserved.
 */
export interface Store<T extends object = Record<string, unknown>> {
  readonly name: string;
  get(key: string): Promise<T | undefined>;
  /** Values in the order of `keys`; missing or expired keys give `undefined`. */
  getMany(keys: readonly string[]): Promise<Array<T | undefined>>;
  /** Resolves once the write is durable (for durable adapters). */
  put(key: string, value: T): Promise<void>;
  /** Insert-if-absent. Resolves `false`, writing nothing, when the key already holds a live record. */
  insert(key: string, value: T): Promise<boolean>;
  /**
   * Compare-and-set: replaces the live record under `key` with `value` when each top-level field named in
   * `where` holds exactly the value given. Resolves `false`, writing nothing, when the key holds no live
   * record or a field differs. For state several instances change at once, such as a lease's holder.
   */
  replaceIf(key: string, where: Readonly<Record<string, IndexValue>>, value: T): Promise<boolean>;
  /** Resolves whether a record was deleted. */
  delete(key: string): Promise<boolean>;
  /** All-or-nothing. */
  batch(ops: readonly BatchOp<T>[]): Promise<void>;
  query(query?: Query): Promise<Page<T>>;
  count(where?: Query['where']): Promise<number>;
  /** Deletes records past their expiry; returns how many were removed. */
  sweepExpired(now?: number): Promise<number>;
}

export type StoreKind = 'mem' | 'lmdb' | 'mongodb';

export interface StoreProvider {
  readonly kind: StoreKind;
  /** Opens (creating if needed, with its indexes) a named store. Opening twice returns an equivalent store. */
  open<T extends object>(name: string, options?: StoreOptions): Promise<Store<T>>;
  /**
   * Whether a store of this name exists here, without creating it: opened by this provider, or holding
   * records an earlier process wrote (MongoDB: a collection of that name). A migration asks before opening
   * a store that only an earlier version made.
   */
  exists(name: string): Promise<boolean>;
  /** All-or-nothing across stores already opened on this provider. (MongoDB: atomic on replica sets only.) */
  batch(ops: readonly ProviderBatchOp[]): Promise<void>;
  /** Throws when the backing database cannot be reached (feeds health checks). */
  ping(): Promise<void>;
  /**
   * Why this provider takes no more writes until the process restarts (an embedded database whose write
   * failed half-way cannot be trusted to recover in place), or undefined. Providers that recover by
   * themselves (a network database coming back) never say so.
   */
  restartReason?(): string | undefined;
  close(): Promise<void>;
}
