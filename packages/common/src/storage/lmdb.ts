/**
 * The embedded durable adapter: one LMDB environment (a directory) per provider, one named database per
 * store holding its records, index entries and expiry entries (layout in kv-layout.ts).
 *
 * Durability: the environment is opened with LMDB's synchronous commits (overlappingSync off, no noSync,
 * no writemap), so a write's promise resolves only after its transaction has been committed and fsynced.
 * Every write of this adapter (put, insert, delete, batch, provider batch) is one LMDB transaction, so
 * after a crash each is either wholly present, indexes included, or wholly absent.
 */
import { mkdirSync } from 'node:fs';
import { open, type Database, type RootDatabase } from 'lmdb';
import { badRequest, unavailable } from '../errors/index.js';
import { KvStoreProvider, type KvProviderOptions } from './kv-provider.js';
import type { KvBackend, KvEntry, KvMutation, KvRange, KvSpace } from './ordered-kv.js';
import type { StoreProvider } from './types.js';

export interface LmdbStoreOptions extends KvProviderOptions {
  /** The environment's directory (created if missing). */
  dataDir: string;
  /** Most stores (named databases) the environment can hold. Default 256. */
  maxStores?: number;
}

/** LMDB's key size limit. Stored keys never exceed it; query bounds (built from query values) may. */
const MAX_KEY = 1978;

/**
 * A bound too long to be an LMDB key is replaced by a nearby short key on the safe side (the truncated
 * prefix below, or the truncated prefix + FF above, which is at least every storable key under the bound),
 * and the entries between it and the real bound are filtered out here.
 */
function lmdbBounds(range: KvRange): { low: Buffer; lowInclusive: boolean; high: Buffer; highInclusive: boolean; exact: boolean } {
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
    return this.db.getKeysCount({ start: b.low, end: b.high, exclusiveStart: !b.lowInclusive, inclusiveEnd: b.highInclusive });
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

class LmdbBackend implements KvBackend {
  private closed = false;

  constructor(private readonly env: RootDatabase) {}

  space(name: string): KvSpace {
    return new LmdbSpace(this.env.openDB<string, Buffer>(name, { keyEncoding: 'binary', encoding: 'string', cache: false }));
  }

  write<R>(fn: () => R): Promise<R> {
    if (this.closed) return Promise.reject(unavailable('lmdb storage is closed'));
    // Inside an lmdb transaction callback, put/remove apply synchronously to the open write transaction
    // and get/getRange read it; the promise settles after the synchronous commit (fsync).
    return this.env.transaction(fn);
  }

  async writeQueued(mutations: readonly KvMutation[]): Promise<void> {
    if (this.closed) throw unavailable('lmdb storage is closed');
    // Queued as write instructions grouped into one transaction; the write thread applies them in order
    // with the other queued writes, with no JavaScript callback in between.
    await this.env.batch(() => {
      for (const m of mutations) {
        const db = (m.space as LmdbSpace).db;
        if (m.value === undefined) void db.remove(m.key);
        else void db.put(m.key, m.value);
      }
    });
  }

  ping(): void {
    if (this.closed) throw unavailable('lmdb storage is closed');
    this.env.getStats();
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.env.close();
  }
}

export function createLmdbStoreProvider(options: LmdbStoreOptions): StoreProvider {
  if (typeof options.dataDir !== 'string' || options.dataDir.length === 0) throw badRequest('lmdb storage needs a data directory');
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
  return new KvStoreProvider('lmdb', new LmdbBackend(env), options);
}
