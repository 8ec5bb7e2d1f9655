import { LRUCache } from 'lru-cache';

/**
 * A bounded least-recently-used cache (lru-cache) whose entries each carry their own deadline. Used for
 * fetched keys, actors and DID documents, including short-lived negative entries. The deadline is kept
 * here rather than in lru-cache's `ttl` because callers rely on three rules lru-cache reads differently
 * (README): a TTL of 0 or less stores nothing, an entry is gone AT its deadline, and any clock (a test's,
 * starting at 0) works.
 */
export class TtlCache<V> {
  private readonly entries: LRUCache<string, { value: V; expiresAt: number }>;

  constructor(
    maxEntries: number,
    private readonly now: () => number = Date.now,
  ) {
    if (!(maxEntries >= 1)) throw new RangeError('a cache needs room for at least one entry');
    this.entries = new LRUCache({ max: maxEntries });
  }

  get(key: string): V | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (entry.expiresAt <= this.now()) {
      this.entries.delete(key);
      return undefined;
    }
    return entry.value;
  }

  set(key: string, value: V, ttlMs: number): void {
    if (ttlMs <= 0) this.entries.delete(key);
    else this.entries.set(key, { value, expiresAt: this.now() + ttlMs });
  }

  delete(key: string): void {
    this.entries.delete(key);
  }

  get size(): number {
    return this.entries.size;
  }
}
