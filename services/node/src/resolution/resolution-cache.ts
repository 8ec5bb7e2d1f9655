import type { DidResolutionResult } from '@anchor/sidetree';
import { LRUCache } from 'lru-cache';
import type { Gauge } from 'prom-client';
import type { DidOperations } from './did-operations.js';

/** A resolution result and its JSON text (what the identifiers endpoint sends, cached as text). */
export interface ResolvedDid {
  result: DidResolutionResult;
  json: string;
}

/** What the cache keeps per DID: its parsed operations and the results rendered from them. */
export interface CachedDid {
  operations: DidOperations;
  results: Map<string, ResolvedDid>;
}

export interface ResolutionCacheOptions {
  /** Bound on the estimated bytes of all entries (`estimateCachedDidBytes`); 0 disables the cache. */
  maxBytes: number;
  /** Bound on the number of DIDs; 0 disables the cache. */
  maxEntries: number;
  /** Set after every change: `node_resolution_cache_bytes` and `node_resolution_cache_entries`. */
  gauges: { bytes: Gauge<string>; entries: Gauge<string> };
}

/**
 * Heap bytes (V8 heap and external) per unit of what an entry is made of, fitted to what
 * `resolution-cache.test.ts` measures over DIDs of several shapes (figures in the node README, Resolution):
 * a parsed operation holds its canonical request decoded into delta, patches and keys; a signed one (update,
 * recover, deactivate) its JWS and signing key besides; a rendered result its JSON text and the result's object
 * tree. The fixed part is the entry's own objects.
 */
const BYTES_PER_ENTRY = 300;
const BYTES_PER_REQUEST_BYTE = 4.5;
const BYTES_PER_SIGNED_OPERATION = 7_500;
const BYTES_PER_RESULT_CHAR = 2.2;

/**
 * An entry's heap footprint, estimated from lengths already at hand (no serialisation): the canonical request
 * of each operation and the JSON text of each rendered result.
 */
export function estimateCachedDidBytes(entry: CachedDid): number {
  let requestBytes = 0;
  let signed = 0;
  for (const records of [entry.operations.published, entry.operations.pending])
    for (const { operation } of records) {
      requestBytes += operation.canonicalRequest.length;
      if (operation.type !== 'create') signed++;
    }
  let resultChars = 0;
  for (const { json } of entry.results.values()) resultChars += json.length;
  return Math.ceil(
    BYTES_PER_ENTRY +
      BYTES_PER_REQUEST_BYTE * requestBytes +
      BYTES_PER_SIGNED_OPERATION * signed +
      BYTES_PER_RESULT_CHAR * resultChars,
  );
}

/**
 * The per-DID resolution cache, least recently used first out, bounded by the estimated bytes of its entries
 * (`--resolution-cache-max-bytes`) and by their number (`--resolution-cache-size`). An entry grows as results
 * are rendered into it, so the service calls `resized` after adding one.
 */
export class ResolutionCache {
  private readonly lru: LRUCache<string, CachedDid> | undefined;
  private readonly gauges: ResolutionCacheOptions['gauges'];

  constructor(options: ResolutionCacheOptions) {
    this.gauges = options.gauges;
    this.lru =
      options.maxBytes > 0 && options.maxEntries > 0
        ? new LRUCache<string, CachedDid>({ max: options.maxEntries, maxSize: options.maxBytes })
        : undefined;
  }

  get(suffix: string): CachedDid | undefined {
    return this.lru?.get(suffix);
  }

  set(suffix: string, entry: CachedDid): void {
    if (!this.lru) return;
    this.lru.set(suffix, entry, { size: estimateCachedDidBytes(entry) });
    this.measured();
  }

  /** Counts an entry's size again after it grew, if it is still the one cached (it may have been evicted). */
  resized(suffix: string, entry: CachedDid): void {
    if (this.lru?.peek(suffix) !== entry) return;
    // lru-cache keeps the size it has when a key is set again to the same value.
    this.lru.delete(suffix);
    this.set(suffix, entry);
  }

  delete(suffix: string): void {
    if (this.lru?.delete(suffix) === true) this.measured();
  }

  /** Estimated bytes of every entry (the `node_resolution_cache_bytes` gauge). */
  get bytes(): number {
    return this.lru?.calculatedSize ?? 0;
  }

  /** DIDs cached (the `node_resolution_cache_entries` gauge). */
  get entries(): number {
    return this.lru?.size ?? 0;
  }

  private measured(): void {
    this.gauges.bytes.set(this.bytes);
    this.gauges.entries.set(this.entries);
  }
}
