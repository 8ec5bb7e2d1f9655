/**
 * The small ordered key-value surface the mem and LMDB adapters both provide. Everything above it (records,
 * index entries, expiry, queries, paging, batches) is written once in kv-store.ts, which is what makes the
 * two adapters behave identically.
 *
 * Keys are byte strings compared bytewise; values are strings.
 */

export interface KvEntry {
  key: Buffer;
  value: string;
}

export interface KvRange {
  low: Buffer;
  lowInclusive: boolean;
  high: Buffer;
  highInclusive: boolean;
  reverse: boolean;
}

/** Reads see the latest committed state, or, inside `KvBackend.write`, the transaction's own writes. */
export interface KvSpace {
  get(key: Buffer): string | undefined;
  scan(range: KvRange): Iterable<KvEntry>;
  count(range: KvRange): number;
  /** Only inside `KvBackend.write`. */
  put(key: Buffer, value: string): void;
  /** Only inside `KvBackend.write`. */
  remove(key: Buffer): void;
}

/** A put (with a value) or a remove (without) in a space. */
export interface KvMutation {
  space: KvSpace;
  key: Buffer;
  value?: string;
}

export interface KvBackend {
  /** Opens (creating if needed) a named key space. */
  space(name: string): KvSpace;
  /** Whether a named key space exists, without creating it. */
  hasSpace(name: string): boolean;
  /**
   * Runs `fn` in one write transaction across all spaces and resolves once it is durable. `fn` must be
   * synchronous and must not throw after its first put or remove: callers plan (read and validate)
   * first and only then write, because a backend may not be able to roll back a half-run callback.
   */
  write<R>(fn: () => R): Promise<R>;
  /**
   * Queues `mutations` to be applied, all in one write transaction, after every write queued before them;
   * resolves once they are durable. Nothing runs inside the transaction, so a backend can apply them without
   * calling back into JavaScript (LMDB: its write thread does the B-tree work). kv-writer.ts plans them.
   */
  writeQueued(mutations: readonly KvMutation[]): Promise<void>;
  /** Throws a retryable error when a write must not be attempted now (LMDB: the disk is nearly full). */
  checkRoom(): void;
  /** Throws when the backing database is unusable. */
  ping(): void;
  close(): Promise<void>;
}
