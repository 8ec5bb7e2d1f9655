/**
 * The in-memory adapter: the same store logic as LMDB (kv-store.ts) over sorted in-memory key spaces, so
 * unit tests see exactly the production semantics (indexes, expiry, paging, batch atomicity, rejections).
 * Nothing survives the process.
 */
import { storeUnavailable } from './unavailable.js';
import { KvStoreProvider, type KvProviderOptions } from './kv-provider.js';
import type { KvBackend, KvEntry, KvMutation, KvRange, KvSpace } from './ordered-kv.js';
import type { StoreProvider } from './types.js';

/** Most keys per chunk of a SortedKeys list: inserts and deletes move at most this many entries. */
const CHUNK = 512;

/**
 * Sorted keys in chunks (a two-level B-tree): binary search over the chunks' first keys, then within one
 * chunk. Keys are latin1 strings (one char per byte), whose native order is bytewise order.
 */
export class SortedKeys {
  private chunks: string[][] = [];

  get size(): number {
    let n = 0;
    for (const c of this.chunks) n += c.length;
    return n;
  }

  /** Position of the first key >= k (or > k when `after`), as [chunk, index]. */
  seek(k: string, after: boolean): [number, number] {
    const chunks = this.chunks;
    let lo = 0;
    let hi = chunks.length;
    // The last chunk whose first key is <= k (or < k, when seeking the first key >= k).
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const first = chunks[mid]![0]!;
      if (after ? first <= k : first < k) lo = mid + 1;
      else hi = mid;
    }
    const ci = Math.max(0, lo - 1);
    const chunk = chunks[ci];
    if (!chunk) return [0, 0];
    let a = 0;
    let b = chunk.length;
    while (a < b) {
      const mid = (a + b) >>> 1;
      const key = chunk[mid]!;
      if (after ? key <= k : key < k) a = mid + 1;
      else b = mid;
    }
    return a === chunk.length && ci + 1 < chunks.length ? [ci + 1, 0] : [ci, a];
  }

  insert(k: string): void {
    if (this.chunks.length === 0) {
      this.chunks.push([k]);
      return;
    }
    const [ci, i] = this.seek(k, false);
    const chunk = this.chunks[ci]!;
    chunk.splice(i, 0, k);
    if (chunk.length > CHUNK) this.chunks.splice(ci + 1, 0, chunk.splice(CHUNK >>> 1));
  }

  delete(k: string): void {
    const [ci, i] = this.seek(k, false);
    const chunk = this.chunks[ci];
    if (!chunk || chunk[i] !== k) return;
    chunk.splice(i, 1);
    if (chunk.length === 0) this.chunks.splice(ci, 1);
  }

  /** Number of keys before position [ci, i]. */
  rank([ci, i]: [number, number]): number {
    let n = i;
    for (let c = 0; c < ci && c < this.chunks.length; c++) n += this.chunks[c]!.length;
    return n;
  }

  *forward(from: [number, number], to: string, toInclusive: boolean): Generator<string> {
    let [ci, i] = from;
    for (; ci < this.chunks.length; ci++, i = 0) {
      const chunk = this.chunks[ci]!;
      for (; i < chunk.length; i++) {
        const k = chunk[i]!;
        if (k > to || (k === to && !toInclusive)) return;
        yield k;
      }
    }
  }

  *backward(from: [number, number], to: string, toInclusive: boolean): Generator<string> {
    // `from` is the first position past the range's end: step back from it.
    let [ci, i] = from;
    i--;
    for (; ci >= 0; ci--, i = (this.chunks[ci]?.length ?? 0) - 1) {
      const chunk = this.chunks[ci]!;
      for (; i >= 0; i--) {
        const k = chunk[i]!;
        if (k < to || (k === to && !toInclusive)) return;
        yield k;
      }
    }
  }
}

/** One in-memory key space. Scans are lazy; writing to the space while a scan is running is refused. */
class SortedSpace implements KvSpace {
  private readonly keys = new SortedKeys();
  private readonly values = new Map<string, string>();
  private version = 0;

  constructor(private readonly inWrite: () => boolean) {}

  get(key: Buffer): string | undefined {
    return this.values.get(key.toString('latin1'));
  }

  *scan(range: KvRange): Iterable<KvEntry> {
    const low = range.low.toString('latin1');
    const high = range.high.toString('latin1');
    const version = this.version;
    const keys = range.reverse
      ? this.keys.backward(this.keys.seek(high, range.highInclusive), low, range.lowInclusive)
      : this.keys.forward(this.keys.seek(low, !range.lowInclusive), high, range.highInclusive);
    for (const k of keys) {
      if (this.version !== version) throw new Error('mem storage: space modified during a scan');
      yield { key: Buffer.from(k, 'latin1'), value: this.values.get(k)! };
    }
  }

  count(range: KvRange): number {
    const low = range.low.toString('latin1');
    const high = range.high.toString('latin1');
    const start = this.keys.rank(this.keys.seek(low, !range.lowInclusive));
    const end = this.keys.rank(this.keys.seek(high, range.highInclusive));
    return Math.max(0, end - start);
  }

  put(key: Buffer, value: string): void {
    this.assertWrite();
    const k = key.toString('latin1');
    if (!this.values.has(k)) {
      this.keys.insert(k);
      this.version++;
    }
    this.values.set(k, value);
  }

  remove(key: Buffer): void {
    this.assertWrite();
    const k = key.toString('latin1');
    if (!this.values.delete(k)) return;
    this.keys.delete(k);
    this.version++;
  }

  private assertWrite(): void {
    if (!this.inWrite()) throw new Error('mem storage: writes must happen inside a backend write');
  }
}

class MemBackend implements KvBackend {
  private readonly spaces = new Map<string, SortedSpace>();
  private writing = false;
  private closed = false;

  space(name: string): KvSpace {
    let s = this.spaces.get(name);
    if (!s) this.spaces.set(name, (s = new SortedSpace(() => this.writing)));
    return s;
  }

  hasSpace(name: string): boolean {
    return this.spaces.has(name);
  }

  async write<R>(fn: () => R): Promise<R> {
    if (this.closed) throw storeUnavailable('mem storage is closed');
    // Like an LMDB commit, the write happens asynchronously to the caller (never within its own turn).
    await Promise.resolve();
    this.writing = true;
    try {
      return fn();
    } finally {
      this.writing = false;
    }
  }

  async writeQueued(mutations: readonly KvMutation[]): Promise<void> {
    await this.write(() => {
      for (const m of mutations) {
        if (m.value === undefined) m.space.remove(m.key);
        else m.space.put(m.key, m.value);
      }
    });
  }

  checkRoom(): void {
    // memory runs out by the process dying, not by a refused write
  }

  ping(): void {
    if (this.closed) throw storeUnavailable('mem storage is closed');
  }

  async close(): Promise<void> {
    this.closed = true;
    this.spaces.clear();
  }
}

export type MemStoreOptions = KvProviderOptions;

export function createMemStoreProvider(options: MemStoreOptions = {}): StoreProvider {
  return new KvStoreProvider('mem', new MemBackend(), options);
}
