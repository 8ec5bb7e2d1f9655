import { parseNodeDid, renderNodeResolution, resolveNodeDid, type ParsedNodeDid } from '@anchor/sidetree';
import type { NodeMetrics } from '../observability/node-metrics.js';
import type { DidOperations, DidOperationsLoader } from './did-operations.js';
import { ResolutionCache, type CachedDid, type ResolvedDid } from './resolution-cache.js';

export type { ResolvedDid } from './resolution-cache.js';

export interface VersionOptions {
  versionId?: string | undefined;
  versionTime?: string | undefined;
}

export interface ResolutionServiceOptions {
  namespace: string;
  aliases: readonly string[];
  /** `host[:port]` of this node: the https-hinted equivalent ids. */
  domain: string;
  includePublishedOperations: boolean;
  /** DIDs kept in memory at most; 0 disables caching. */
  cacheSize: number;
  /** Estimated bytes the cached DIDs may take; 0 disables caching. */
  cacheMaxBytes: number;
  metrics: NodeMetrics;
}

/** Rendered results kept per DID: one per requested form and version (a DID is rarely asked under many). */
const RESULTS_PER_DID = 16;

/**
 * did:node resolution on this node (orb.md §2.10): every identifier form (`uAAA`, canonical, `hl:` and
 * https hints, long form), versionId / versionTime, the CID check, and the spec's metadata.
 *
 * Caching: per DID, the parsed operations and the rendered results, validated on every request by the
 * DID's version (two keyed reads: the intake's token and the observer's version; every change to a DID's
 * operations rewrites one of them in the same atomic batch), so the cache is right on every instance
 * sharing the database, not only this one. DIDs without operations are not cached (a create moves no
 * version). An entry also expires when its earliest unpublished operation does. The cache is bounded by the
 * estimated bytes of its entries and by their number (`ResolutionCache`).
 */
export class ResolutionService {
  private readonly cache: ResolutionCache;

  constructor(
    private readonly loader: DidOperationsLoader,
    private readonly options: ResolutionServiceOptions,
  ) {
    this.cache = new ResolutionCache({
      maxEntries: options.cacheSize,
      maxBytes: options.cacheMaxBytes,
      gauges: { bytes: options.metrics.resolutionCacheBytes, entries: options.metrics.resolutionCacheEntries },
    });
  }

  /** Estimated bytes and number of the cached DIDs. */
  get cacheUsage(): { bytes: number; entries: number } {
    return { bytes: this.cache.bytes, entries: this.cache.entries };
  }

  get namespace(): string {
    return this.options.namespace;
  }

  parse(did: string): ParsedNodeDid {
    return parseNodeDid(did, { namespace: this.options.namespace, aliases: this.options.aliases });
  }

  async resolve(did: string, versions: VersionOptions = {}): Promise<ResolvedDid> {
    const started = performance.now();
    let outcome = 'error';
    try {
      const parsed = this.parse(did);
      const { entry, fresh } = await this.entry(parsed.suffix);
      const key = `${did}\n${versions.versionId ?? ''}\n${versions.versionTime ?? ''}`;
      let resolved = entry.results.get(key);
      if (!resolved) {
        const model = resolveNodeDid(parsed, entry.operations, {
          ...(versions.versionId !== undefined ? { versionId: versions.versionId } : {}),
          ...(versions.versionTime !== undefined ? { versionTime: versions.versionTime } : {}),
        });
        const result = renderNodeResolution(model, {
          did: parsed,
          namespace: this.options.namespace,
          aliases: this.options.aliases,
          domain: this.options.domain,
          includePublishedOperations: this.options.includePublishedOperations,
        });
        resolved = { result, json: JSON.stringify(result) };
        if (entry.results.size >= RESULTS_PER_DID) entry.results.clear();
        entry.results.set(key, resolved);
        // A fresh entry is cached once, with its first result (one size count); a cached one that gains
        // another form or version (rare) is counted again.
        if (fresh) this.keep(parsed.suffix, entry);
        else this.cache.resized(parsed.suffix, entry);
      }
      outcome = resolved.result.didDocumentMetadata.deactivated === true ? 'deactivated' : 'found';
      return resolved;
    } catch (error) {
      outcome = (error as { status?: number }).status === 404 ? 'not_found' : 'error';
      throw error;
    } finally {
      this.options.metrics.resolutionSeconds.observe({ result: outcome }, (performance.now() - started) / 1000);
    }
  }

  /** The DID's operations as this instance knows them now (cached, token-checked). */
  async didOperations(suffix: string): Promise<DidOperations> {
    const { entry, fresh } = await this.entry(suffix);
    if (fresh) this.keep(suffix, entry);
    return entry.operations;
  }

  /** Forgets what this instance cached about a DID (after its operations changed here). */
  invalidate(suffix: string): void {
    this.cache.delete(suffix);
  }

  /** The cached entry if it is still current, else a fresh one loaded from the store (not cached yet: see `keep`). */
  private async entry(suffix: string): Promise<{ entry: CachedDid; fresh: boolean }> {
    const cached = this.cache.get(suffix);
    if (cached) {
      const token = await this.loader.token(suffix);
      if (token === cached.operations.token && Date.now() < cached.operations.validUntil)
        return { entry: cached, fresh: false };
    }
    const entry: CachedDid = { operations: await this.loader.load(suffix, cached?.operations), results: new Map() };
    return { entry, fresh: true };
  }

  private keep(suffix: string, entry: CachedDid): void {
    // A DID with no operation is never cached: its create is accepted without a version change (see the intake).
    if (entry.operations.published.length > 0 || entry.operations.pending.length > 0) this.cache.set(suffix, entry);
    else this.cache.delete(suffix);
  }
}
