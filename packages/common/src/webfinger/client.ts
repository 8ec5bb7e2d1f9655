import { createHttpClient, type HttpClient } from '../http-client/index.js';
import { TtlCache } from '../httpsig/ttl-cache.js';
import { parseJrd, webFingerUrl, type Jrd } from './jrd.js';

export interface WebFingerClientOptions {
  /** Outbound client (deadlines, TLS, tokens); default a fresh one with a 10 s deadline. */
  httpClient?: HttpClient;
  /** How long an answer is reused. Default 5 minutes (Orb's WebFinger client cache). */
  cacheTtlMs?: number;
  /** Most answers kept. Default 1,000 (as in Orb). */
  maxEntries?: number;
}

export interface WebFingerClient {
  /**
   * The JRD `baseUrl`'s host serves for `resource`, cached. Failures are the http-client's AppErrors
   * (404 from the peer → not_found, network trouble → retryable), or a `bad_request` for a malformed JRD;
   * failures are not cached.
   */
  lookup(baseUrl: string, resource: string): Promise<Jrd>;
  /** Forgets cached answers (all, or the one for a base URL and resource). */
  forget(baseUrl?: string, resource?: string): void;
}

export function createWebFingerClient(options: WebFingerClientOptions = {}): WebFingerClient {
  const ttlMs = options.cacheTtlMs ?? 5 * 60_000;
  const maxEntries = options.maxEntries ?? 1_000;
  let cache = new TtlCache<Jrd>(maxEntries);
  const inFlight = new Map<string, Promise<Jrd>>();
  let httpClient = options.httpClient;

  async function fetchJrd(url: string): Promise<Jrd> {
    httpClient ??= createHttpClient({ timeoutMs: 10_000 });
    const response = await httpClient.get(url, { headers: { accept: 'application/jrd+json, application/json' } });
    return parseJrd(response.data);
  }

  return {
    lookup(baseUrl, resource) {
      const url = webFingerUrl(baseUrl, resource);
      const cached = cache.get(url);
      if (cached) return Promise.resolve(cached);
      // Concurrent lookups of one resource share one request.
      let pending = inFlight.get(url);
      if (!pending) {
        pending = fetchJrd(url)
          .then((jrd) => {
            cache.set(url, jrd, ttlMs);
            return jrd;
          })
          .finally(() => inFlight.delete(url));
        inFlight.set(url, pending);
      }
      return pending;
    },
    forget(baseUrl, resource) {
      if (baseUrl === undefined || resource === undefined) cache = new TtlCache<Jrd>(maxEntries);
      else cache.delete(webFingerUrl(baseUrl, resource));
    },
  };
}

let defaultClient: WebFingerClient | undefined;

/** `lookup` on a process-wide client with the default cache (5 minutes, 1,000 answers). */
export function lookupWebFinger(baseUrl: string, resource: string): Promise<Jrd> {
  defaultClient ??= createWebFingerClient();
  return defaultClient.lookup(baseUrl, resource);
}
