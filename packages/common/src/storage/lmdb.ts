/**
 * The embedded durable adapter: one LMDB environment (a directory) per provider, one named database per
 * store holding its records, index entries and expiry entries (layout in kv-layout.ts).
 *
 * Durability: the environment is opened with LMDB's synchronous commits (overlappingSync off, no noSync,
 * no writemap), so a write's promise resolves only after its transaction has been committed and fsynced.
 * Every write of this adapter (put, insert, delete, batch, provider batch) is applied within one LMDB
 * transaction, so after a crash each is either wholly present, indexes included, or wholly absent. Writes
 * close together share a transaction (group commit, `commitIntervalMs`; the storage README says why).
 */
import { mkdirSync, statfsSync } from 'node:fs';
import { open, type Database, type RootDatabase } from 'lmdb';
import { badRequest, transient } from '../errors/index.js';
import { storeUnavailable } from './unavailable.js';
import { KvStoreProvider, type KvProviderOptions } from './kv-provider.js';
import type { KvBackend, KvEntry, KvMutation, KvRange, KvSpace } from './ordered-kv.js';
import type { StoreProvider } from './types.js';

export interface LmdbStoreOptions extends KvProviderOptions {
  /** The environment's directory (created if missing). */
  dataDir: string;
  /** Most stores (named databases) the environment can hold. Default 256. */
  maxStores?: number;
  /**
   * Writes are refused (503, retryable) while the data directory's file system has less free space than
   * this. Default: 2% of the file system's size, at least 1 MiB and at most 64 MiB.
   */
  minFreeBytes?: number;
  /**
   * Group commit: the shortest time between the starts of two queued-write commits, in ms. Queued writes
   * that arrive sooner wait and are committed together (one fsync, one rewrite of the shared B-tree pages).
   * A write that finds the last commit older than this is committed at once, so an idle or lightly loaded
   * store adds no latency. 0 commits every event turn's writes on their own. Default 4.
   */
  commitIntervalMs?: number;
}

export const DEFAULT_COMMIT_INTERVAL_MS = 4;

/** LMDB's key size limit. Stored keys never exceed it; query bounds (built from query values) may. */
const MAX_KEY = 1978;

/**
 * A bound too long to be an LMDB key is replaced by a nearby short key on the safe side (the truncated
 * prefix below, or the truncated prefix + FF above, which is at least every storable key under the bound),
 * and the entries between it and the real bound are filtered out here.
 */
function lmdbBounds(range: KvRange): {
  low: Buffer;
  lowInclusive: boolean;
  high: Buffer;
  highInclusive: boolean;
  exact: boolean;
} {
  let { low, lowInclusive, high, highInclusive } = range;
  let exact = true;
  if (low.length > MAX_KEY) {
    low = low.subarray(0, MAX_KEY);
    lowInclusive = true;
    exact = false;
  }
  if (high.length > MAX_KEY) {
    high = Buffer.concat([high.subarray(0, MAX_KEY - 1), Buffer.from([0xff])]);
    highInclusive = true;
    exact = false;
  }
  return { low, lowInclusive, high, highInclusive, exact };
}

function inRange(key: Buffer, range: KvRange): boolean {
  const lo = Buffer.compare(key, range.low);
  const hi = Buffer.compare(key, range.high);
  return (lo > 0 || (lo === 0 && range.lowInclusive)) && (hi < 0 || (hi === 0 && range.highInclusive));
}

class LmdbSpace implements KvSpace {
  constructor(readonly db: Database<string, Buffer>) {}

  get(key: Buffer): string | undefined {
    return this.db.get(key);
  }

  scan(range: KvRange): Iterable<KvEntry> {
    const b = lmdbBounds(range);
    // lmdb ranges run from `start` (inclusive unless exclusiveStart) towards `end` (exclusive unless inclusiveEnd).
    const options = range.reverse
      ? { start: b.high, end: b.low, reverse: true, exclusiveStart: !b.highInclusive, inclusiveEnd: b.lowInclusive }
      : { start: b.low, end: b.high, exclusiveStart: !b.lowInclusive, inclusiveEnd: b.highInclusive };
    const entries = this.db.getRange(options) as Iterable<KvEntry>;
    return b.exact ? entries : filterRange(entries, range);
  }

  count(range: KvRange): number {
    const b = lmdbBounds(range);
    if (!b.exact) {
      let n = 0;
      for (const _ of this.scan(range)) n++;
      return n;
    }
    return this.db.getKeysCount({
      start: b.low,
      end: b.high,
      exclusiveStart: !b.lowInclusive,
      inclusiveEnd: b.highInclusive,
    });
  }

  // Inside a transaction callback the *Sync variants write straight into the open transaction (and skip
  // allocating a promise per write).
  put(key: Buffer, value: string): void {
    this.db.putSync(key, value);
  }

  remove(key: Buffer): void {
    this.db.removeSync(key);
  }
}

function* filterRange(entries: Iterable<KvEntry>, range: KvRange): Generator<KvEntry> {
  for (const e of entries) if (inRange(e.key, range)) yield e;
}

const MIB = 1024 * 1024;
/** How long a free-space reading is reused: statfs is a syscall, a commit an fsync. */
const FREE_SPACE_TTL_MS = 50;

/**
 * Refuses writes before they reach LMDB while the disk is (nearly) full. A commit that fails with ENOSPC
 * leaves lmdb-js unusable for the rest of the process (later transaction callbacks never settle, and the
 * native heap has been seen corrupted at exit), so the only write that may meet a full disk is one that
 * raced another process for the last of the space; everything else waits here, and writes resume by
 * themselves once space returns.
 */
class FreeSpaceGuard {
  private checkedAt = 0;
  private free = Number.POSITIVE_INFINITY;
  private readonly minFree: number;

  constructor(
    private readonly dir: string,
    minFreeBytes: number | undefined,
  ) {
    if (minFreeBytes !== undefined && (!Number.isFinite(minFreeBytes) || minFreeBytes < 0))
      throw badRequest('minFreeBytes must be a non-negative number');
    const fs = statfsSync(dir);
    this.minFree = minFreeBytes ?? Math.min(64 * MIB, Math.max(MIB, Math.floor(fs.blocks * fs.bsize * 0.02)));
  }

  freeBytes(): number {
    const fs = statfsSync(this.dir);
    return fs.bavail * fs.bsize;
  }

  check(): void {
    const now = Date.now();
    if (now - this.checkedAt >= FREE_SPACE_TTL_MS) {
      this.free = this.freeBytes();
      this.checkedAt = now;
    }
    if (this.free < this.minFree) {
      throw transient(
        `storage full: ${Math.floor(this.free / 1024)} KiB free, writes resume above ${Math.ceil(this.minFree / 1024)} KiB`,
      );
    }
  }
}

// lmdb's \`committed\` thenable calls its fulfilment handler unconditionally: both handlers must be functions.
const ignore = (): void => undefined;

const NO_SPACE_CODES = new Set([28 /* ENOSPC */, 122 /* EDQUOT */, -30792 /* MDB_MAP_FULL */]);

/**
 * lmdb-js rejects a failed commit with "Commit failed" and the cause in a separate promise (`commitError`),
 * which would be an unhandled rejection if nobody read it: read it, and say "storage full" when the cause
 * says so or the disk has (nearly) no space left (on tmpfs a full disk shows as EIO).
 */
async function commitFailure(error: unknown, freeSpace: FreeSpaceGuard): Promise<unknown> {
  const pending = (error as { commitError?: Promise<unknown> } | undefined)?.commitError;
  // Anything else (a transaction callback's own error, e.g. an index rebuild refusing a record) is the caller's.
  if (!pending) return error;
  const cause = await pending.then(
    () => undefined,
    (e: unknown) => e,
  );
  const code = (cause as { code?: unknown } | undefined)?.code;
  const detail = cause instanceof Error ? cause.message : error instanceof Error ? error.message : String(error);
  const full = (typeof code === 'number' && NO_SPACE_CODES.has(code)) || freeSpace.freeBytes() < MIB;
  return full
    ? transient(`storage full: ${detail}`, cause ?? error)
    : new Error(`storage write failed: ${detail}`, { cause: cause ?? error });
}

/** Queued writes held for the next group commit, and the promise their callers wait on. */
interface HeldGroup {
  mutations: (readonly KvMutation[])[];
  written: Promise<void>;
  settle: (committed: Promise<void>) => void;
}

class LmdbBackend implements KvBackend {
  private closed = false;
  private held: HeldGroup | undefined;
  private holdTimer: NodeJS.Timeout | undefined;
  private lastCommitAt = Number.NEGATIVE_INFINITY;
  private lastCommit: Promise<void> = Promise.resolve();

  constructor(
    private readonly env: RootDatabase,
    private readonly freeSpace: FreeSpaceGuard,
    private readonly commitIntervalMs: number,
  ) {}

  checkRoom(): void {
    this.freeSpace.check();
  }

  /**
   * lmdb-js also starts each event turn's transaction with a commit promise of its own that nobody
   * holds; a failed commit rejects it too. Observing it once the turn's batch has started keeps that
   * rejection from taking the process down (the write's own promise carries the failure).
   */
  private observeTurnCommit(): void {
    setImmediate(() => void this.env.committed.then(ignore, ignore));
  }

  space(name: string): KvSpace {
    return new LmdbSpace(
      this.env.openDB<string, Buffer>(name, { keyEncoding: 'binary', encoding: 'string', cache: false }),
    );
  }

  hasSpace(name: string): boolean {
    if (this.closed) throw storeUnavailable('lmdb storage is closed');
    // LMDB files each named database under its name in the unnamed root database; opening one to find out
    // would create it (or, with lmdb-js's create: false, fails differently on an environment with none yet).
    for (const key of this.env.getKeys()) if (key === name) return true;
    return false;
  }

  write<R>(fn: () => R): Promise<R> {
    if (this.closed) return Promise.reject(storeUnavailable('lmdb storage is closed'));
    this.flushHeld();
    // Inside an lmdb transaction callback, put/remove apply synchronously to the open write transaction
    // and get/getRange read it; the promise settles after the synchronous commit (fsync).
    const written = this.env.transaction(fn);
    this.observeTurnCommit();
    return written.catch(async (error: unknown) => {
      throw await commitFailure(error, this.freeSpace);
    });
  }

  writeQueued(mutations: readonly KvMutation[]): Promise<void> {
    if (this.closed) return Promise.reject(storeUnavailable('lmdb storage is closed'));
    if (this.held === undefined && performance.now() - this.lastCommitAt >= this.commitIntervalMs)
      return this.commit([mutations]);
    if (this.held === undefined) {
      let settle!: (committed: Promise<void>) => void;
      const written = new Promise<void>((resolve) => {
        settle = resolve;
      });
      this.held = { mutations: [], written, settle };
      const wait = Math.max(0, this.lastCommitAt + this.commitIntervalMs - performance.now());
      this.holdTimer = setTimeout(() => this.flushHeld(), wait);
    }
    this.held.mutations.push(mutations);
    return this.held.written;
  }

  /** Commits the held writes now (before a transaction callback, which must not overtake them, and at close). */
  private flushHeld(): void {
    const group = this.held;
    if (group === undefined) return;
    clearTimeout(this.holdTimer);
    this.held = undefined;
    this.holdTimer = undefined;
    group.settle(this.commit(group.mutations));
  }

  /**
   * Queued as write instructions grouped into one transaction; the write thread applies them in order with
   * the other queued writes, with no JavaScript callback in between.
   */
  private commit(groups: readonly (readonly KvMutation[])[]): Promise<void> {
    this.lastCommitAt = performance.now();
    const written = this.env.batch(() => {
      for (const mutations of groups)
        for (const m of mutations) {
          const db = (m.space as LmdbSpace).db;
          if (m.value === undefined) void db.remove(m.key);
          else void db.put(m.key, m.value);
        }
    });
    this.observeTurnCommit();
    const committed = (written as Promise<unknown>).then(
      () => undefined,
      async (error: unknown) => {
        throw await commitFailure(error, this.freeSpace);
      },
    );
    this.lastCommit = committed.catch(ignore);
    return committed;
  }

  ping(): void {
    if (this.closed) throw storeUnavailable('lmdb storage is closed');
    this.env.getStats();
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.flushHeld();
    await this.lastCommit;
    await this.env.close();
  }
}

function commitInterval(options: LmdbStoreOptions): number {
  const ms = options.commitIntervalMs ?? DEFAULT_COMMIT_INTERVAL_MS;
  if (!Number.isFinite(ms) || ms < 0 || ms > 1000)
    throw badRequest('the LMDB commit interval must be a number of milliseconds from 0 to 1000');
  return ms;
}

export function createLmdbStoreProvider(options: LmdbStoreOptions): StoreProvider {
  if (typeof options.dataDir !== 'string' || options.dataDir.length === 0)
    throw badRequest('lmdb storage needs a data directory');
  mkdirSync(options.dataDir, { recursive: true });
  const env = open({
    path: options.dataDir,
    maxDbs: options.maxStores ?? 256,
    // Synchronous, fsynced commits: an awaited write is on disk (see the module comment).
    overlappingSync: false,
    noSync: false,
    useWritemap: false,
    encoding: 'string',
  });
  return new KvStoreProvider(
    'lmdb',
    new LmdbBackend(env, new FreeSpaceGuard(options.dataDir, options.minFreeBytes), commitInterval(options)),
    options,
  );
}
