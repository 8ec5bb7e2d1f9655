import { AppError, errorMessage, isRetryable, transient, unauthorized } from '../errors/index.js';
import { isHttpSigKeyType, type HttpSigKeyType, type VerificationKey } from './algorithms.js';
import { ACTIVITY_JSON_ACCEPT, createFetchJson, type FetchJson } from './fetch-json.js';
import { actorPublicKeyIds, isHttpUrl, isObject, KeyDocumentError, parsePublicKeyDocument } from './key-document.js';
import { parsePublicKeyPem, PublicKeyFormatError, toVerificationKey, type PublicKeySource } from './public-key-pem.js';
import { TtlCache } from './ttl-cache.js';

/**
 * Resolves a DID URL keyId (`did:web:host:services:node#main-key`) to its verification key, e.g. through the
 * `did` module's resolver registry. A returned `KeyPair` (anything with `publicKeyPem()`) is converted to a
 * Node key here so all keys verify the same way. Reject like `FetchJson` does (retryable `AppError` for
 * transient failures).
 */
export type DidKeyResolver = (
  didUrl: string,
  options: { signal: AbortSignal },
) => Promise<VerificationKey | (VerificationKey & PublicKeySource)>;

export interface KeyResolverOptions {
  /** How key and actor documents are fetched (default: global fetch with the ActivityStreams Accept header). */
  fetchJson?: FetchJson;
  /** Needed to accept DID URL keyIds; without it they are refused with a 401. */
  resolveDidKey?: DidKeyResolver;
  /** Per fetch or DID resolution. Default 10 s. */
  fetchTimeoutMs?: number;
  /** How long fetched keys and actors are trusted. Default 10 minutes. */
  cacheTtlMs?: number;
  /** How long a permanent failure (404, bad document, key/actor mismatch) is remembered. Default 30 s. */
  negativeCacheTtlMs?: number;
  /** Bound of each cache (keys, actors). Default 1000. */
  maxCacheEntries?: number;
  /**
   * A cached key that fails to verify is refetched once (key rotation), and a cached actor that does not list
   * the keyId likewise, but not if it was fetched less than this long ago: a stream of forged requests then
   * costs at most one fetch per document per interval. Default 1 s.
   */
  minRefetchIntervalMs?: number;
  now?: () => number;
}

export interface ResolvedKey {
  key: VerificationKey;
  type: HttpSigKeyType;
  /** The verified signer: the actor document's `id`, or the DID for a DID URL keyId. */
  actor: string;
  /** True when served from cache, so a verification failure may be due to a rotated key. */
  fromCache: boolean;
}

type Cached<T> = { ok: true; value: T; fetchedAt: number } | { ok: false; error: AppError };
interface KeyRecord {
  key: VerificationKey;
  type: HttpSigKeyType;
  /** Actor URL to check for HTTP keyIds; undefined for DID keys (the DID is the actor). */
  owner?: string;
  did?: string;
}
interface ActorRecord {
  id: string;
  keyIds: string[];
}

/**
 * keyId → verification key and verified actor, with bounded TTL caches for keys and actors, short negative
 * caching of permanent failures, and de-duplication of concurrent fetches of the same document.
 */
export class KeyResolver {
  private readonly fetchJson: FetchJson;
  private readonly keys: TtlCache<Cached<KeyRecord>>;
  private readonly actors: TtlCache<Cached<ActorRecord>>;
  private readonly inflight = new Map<string, Promise<unknown>>();
  private readonly now: () => number;
  private readonly fetchTimeoutMs: number;
  private readonly cacheTtlMs: number;
  private readonly negativeCacheTtlMs: number;
  private readonly minRefetchIntervalMs: number;

  constructor(private readonly options: KeyResolverOptions = {}) {
    this.fetchJson = options.fetchJson ?? createFetchJson();
    this.now = options.now ?? Date.now;
    this.fetchTimeoutMs = options.fetchTimeoutMs ?? 10_000;
    this.cacheTtlMs = options.cacheTtlMs ?? 10 * 60_000;
    this.negativeCacheTtlMs = options.negativeCacheTtlMs ?? 30_000;
    this.minRefetchIntervalMs = options.minRefetchIntervalMs ?? 1_000;
    const maxEntries = options.maxCacheEntries ?? 1000;
    this.keys = new TtlCache(maxEntries, this.now);
    this.actors = new TtlCache(maxEntries, this.now);
  }

  /**
   * Resolves `keyId`. With `refresh`, the key is fetched again unless it was fetched within
   * `minRefetchIntervalMs` (the caller saw the cached key fail, so the owner may have rotated it).
   */
  async resolve(keyId: string, refresh = false): Promise<ResolvedKey> {
    const { record, fromCache } = await this.loadKey(keyId, refresh);
    if (record.did !== undefined) return { key: record.key, type: record.type, actor: record.did, fromCache };

    const owner = record.owner as string;
    let actor = await this.loadActor(owner, false);
    if (!actor.record.keyIds.includes(keyId) && actor.fromCache) actor = await this.loadActor(owner, true);
    if (!actor.record.keyIds.includes(keyId)) {
      const listed = actor.record.keyIds.length > 0 ? actor.record.keyIds.join(', ') : 'no key';
      throw unauthorized(`actor/key mismatch: actor ${owner} lists ${listed}, not the signature's keyId ${keyId}`);
    }
    return { key: record.key, type: record.type, actor: actor.record.id, fromCache };
  }

  private loadKey(keyId: string, refresh: boolean): Promise<{ record: KeyRecord; fromCache: boolean }> {
    return this.load(this.keys, `key ${keyId}`, keyId, refresh, () => this.fetchKey(keyId));
  }

  private loadActor(actorUrl: string, refresh: boolean): Promise<{ record: ActorRecord; fromCache: boolean }> {
    return this.load(this.actors, `actor ${actorUrl}`, actorUrl, refresh, () => this.fetchActor(actorUrl));
  }

  /**
   * Serves from `cache` unless `refresh` asks for a new copy. A refresh within `minRefetchIntervalMs` of the
   * last fetch serves the cached copy (reported as not cached, since it is as fresh as a refetch would be):
   * that bounds what a stream of forged requests can make us fetch, for keys and for actors alike.
   */
  private async load<T>(
    cache: TtlCache<Cached<T>>,
    what: string,
    id: string,
    refresh: boolean,
    fetch: () => Promise<T>,
  ): Promise<{ record: T; fromCache: boolean }> {
    const cached = cache.get(id);
    const recentlyFetched = cached?.ok === true && this.now() - cached.fetchedAt < this.minRefetchIntervalMs;
    if (cached && (!refresh || recentlyFetched || !cached.ok)) {
      if (!cached.ok) throw cached.error;
      return { record: cached.value, fromCache: !recentlyFetched };
    }
    const record = await this.once(what, () => this.cachePermanentFailure(cache, id, fetch));
    return { record, fromCache: false };
  }

  private async fetchKey(keyId: string): Promise<KeyRecord> {
    if (keyId.startsWith('did:')) return this.resolveDidKey(keyId);
    if (!isHttpUrl(keyId))
      throw unauthorized(`keyId must be an http(s) URL or a DID URL: ${JSON.stringify(keyId.slice(0, 100))}`);
    const document = await this.fetchDocument(keyId, 'key');
    try {
      const keyDocument = parsePublicKeyDocument(document, keyId);
      const key = parsePublicKeyPem(keyDocument.publicKeyPem);
      return { key, type: key.type, owner: keyDocument.owner };
    } catch (error) {
      if (error instanceof KeyDocumentError || error instanceof PublicKeyFormatError)
        throw unauthorized(`unusable key ${keyId}: ${error.message}`);
      throw error;
    }
  }

  private async fetchActor(actorUrl: string): Promise<ActorRecord> {
    const document = await this.fetchDocument(actorUrl, 'actor');
    if (!isObject(document)) throw unauthorized(`the actor document at ${actorUrl} is not a JSON object`);
    if (document.id !== actorUrl)
      throw unauthorized(`the actor document at ${actorUrl} has id ${JSON.stringify(document.id)}`);
    return { id: actorUrl, keyIds: actorPublicKeyIds(document) };
  }

  private async resolveDidKey(keyId: string): Promise<KeyRecord> {
    const resolveDidKey = this.options.resolveDidKey;
    if (!resolveDidKey) throw unauthorized(`DID keyIds are not accepted here (no DID resolver configured): ${keyId}`);
    const hash = keyId.indexOf('#');
    if (hash <= 4 || hash === keyId.length - 1)
      throw unauthorized(`a DID keyId must name a verification method (did:...#fragment): ${keyId}`);
    const resolved = await this.withTimeout(`resolving ${keyId}`, (signal) => resolveDidKey(keyId, { signal }));
    if (!isHttpSigKeyType(resolved.type))
      throw unauthorized(`the key ${keyId} is of unsupported type ${resolved.type}`);
    let key: VerificationKey = resolved;
    if ('publicKey' in resolved || 'publicKeyPem' in resolved) {
      try {
        key = toVerificationKey(resolved as PublicKeySource);
      } catch (error) {
        throw unauthorized(`unusable key ${keyId}: ${errorMessage(error)}`);
      }
    }
    return { key, type: resolved.type, did: keyId.slice(0, hash) };
  }

  private fetchDocument(url: string, what: string): Promise<unknown> {
    return this.withTimeout(`fetching ${what} ${url}`, (signal) =>
      this.fetchJson(url, { accept: ACTIVITY_JSON_ACCEPT, signal }),
    );
  }

  /** Runs a fetch under the timeout and classifies failures: retryable → `transient` (503), otherwise 401. */
  private async withTimeout<T>(what: string, run: (signal: AbortSignal) => Promise<T>): Promise<T> {
    const signal = AbortSignal.timeout(this.fetchTimeoutMs);
    try {
      return await run(signal);
    } catch (error) {
      if (error instanceof AppError && error.code === 'unauthorized') throw error;
      if (signal.aborted || isRetryable(error)) throw transient(`${what} failed: ${errorMessage(error)}`, error);
      throw unauthorized(`${what} failed: ${errorMessage(error)}`);
    }
  }

  /** Remembers permanent failures (401s) for `negativeCacheTtlMs`, successes for `cacheTtlMs`; transient failures not at all. */
  private async cachePermanentFailure<T>(cache: TtlCache<Cached<T>>, key: string, load: () => Promise<T>): Promise<T> {
    try {
      const value = await load();
      cache.set(key, { ok: true, value, fetchedAt: this.now() }, this.cacheTtlMs);
      return value;
    } catch (error) {
      if (error instanceof AppError && !error.retryable) cache.set(key, { ok: false, error }, this.negativeCacheTtlMs);
      throw error;
    }
  }

  /** Concurrent requests for the same uncached document share one fetch. */
  private once<T>(key: string, load: () => Promise<T>): Promise<T> {
    const running = this.inflight.get(key);
    if (running) return running as Promise<T>;
    const promise = load().finally(() => this.inflight.delete(key));
    this.inflight.set(key, promise);
    return promise;
  }
}
