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
  /**
   * Runs `fn` in one write transaction across all spaces and resolves once it is durable. `fn` must be
   * synchronous and must not throw after its first put or remove: callers plan (read and validate)
   * first and only then write, because a backend may not be able to roll back a half-run callback.
   */
  write<R>(fn: () => R): Promise<R>;
  /**
   * Applies `mutations` in one write transaction, resolving true once it is durable, unless `absent` names
   * a key that exists when the transaction runs: then nothing is written and it resolves false. Nothing runs
   * inside the transaction, so a backend can commit it without calling back into JavaScript (LMDB: one
   * hand-over between threads instead of two), which is what makes it the fast form of a write that needs
   * no read.
   */
  writeUnless(absent: { space: KvSpace; key: Buffer } | undefined, mutations: readonly KvMutation[]): Promise<boolean>;
  /** Throws when the backing database is unusable. */
  ping(): void;
  close(): Promise<void>;
}
