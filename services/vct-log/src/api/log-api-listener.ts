import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { AppError, unauthorized } from '@anchor/common/errors';
import { bearerToken, errorResponse, type TokenRules } from '@anchor/common/http';
import { getLogger } from '@anchor/common/log';
import type { Metrics } from '@anchor/common/metrics';
import type { Operation, VctMetrics } from '../metrics.js';
import type { LogApi } from './log-api.js';
import type { QueryParams } from './query-params.js';

const log = getLogger('vct-api');

export interface LogApiListenerOptions {
  api: LogApi;
  metrics: VctMetrics;
  /** The service registry the HTTP kit records `http_request_duration_seconds` in; log API requests go there too. */
  registry: Metrics;
  /** The same bearer-token rules the HTTP kit applies to the other routes. */
  tokenRules: TokenRules;
  /** Largest add-vc body (bytes); a larger one is 413. */
  bodyLimitBytes: number;
  /** Everything that is not the log API (WebFinger, /healthcheck, /metrics, /loglevels, 404s): the HTTP kit's app. */
  fallback: RequestListener;
}

interface Route {
  method: 'GET' | 'POST';
  op: Operation;
  /** Route label of the request-duration metric, as the kit names express routes. */
  template: string;
  handle(api: LogApi, alias: string, query: QueryParams, body: string | undefined): string | Promise<string>;
}

const ROUTES: ReadonlyMap<string, Route> = new Map<string, Route>([
  ['add-vc', { method: 'POST', op: 'add_vc', template: '/:alias/v1/add-vc', handle: (api, alias, _q, body) => api.addVc(alias, body) }],
  ['get-sth', { method: 'GET', op: 'get_sth', template: '/:alias/v1/get-sth', handle: (api, alias) => api.getSth(alias) }],
  ['get-sth-consistency', { method: 'GET', op: 'get_sth_consistency', template: '/:alias/v1/get-sth-consistency', handle: (api, alias, q) => api.getSthConsistency(alias, q) }],
  ['get-proof-by-hash', { method: 'GET', op: 'get_proof_by_hash', template: '/:alias/v1/get-proof-by-hash', handle: (api, alias, q) => api.getProofByHash(alias, q) }],
  ['get-entries', { method: 'GET', op: 'get_entries', template: '/:alias/v1/get-entries', handle: (api, alias, q) => api.getEntries(alias, q) }],
  ['get-entry-and-proof', { method: 'GET', op: 'get_entry_and_proof', template: '/:alias/v1/get-entry-and-proof', handle: (api, alias, q) => api.getEntryAndProof(alias, q) }],
  ['get-issuers', { method: 'GET', op: 'get_issuers', template: '/:alias/v1/get-issuers', handle: (api, alias) => api.getIssuers(alias) }],
]);

/** `/<alias>/v1/<action>`, and `/<alias>/get-issuers` (the spec gives get-issuers both ways). */
const LOG_API_PATH = /^\/([^/]+)\/(?:v1\/([a-z-]+)|(get-issuers))$/;

const NO_QUERY: QueryParams = { get: () => null };

/**
 * Serves the log API (`/<alias>/v1/...`) on a lean path in front of the HTTP kit's express app, which
 * serves everything else. Express's per-request machinery cost about three times what a proof costs to
 * compute, which capped the log near 3,000 proofs/s on two cores with high tail latency; this path keeps
 * the kit's behaviour for these routes (the same token rules, the same JSON error body, the same request
 * metric) and leaves the browser-oriented headers of helmet out: the API speaks JSON to programs.
 */
export function logApiListener(options: LogApiListenerOptions): RequestListener {
  const { api, metrics, tokenRules, bodyLimitBytes, fallback } = options;
  const requestSeconds = options.registry.histogram({
    name: 'http_request_duration_seconds',
    help: 'Seconds to serve an HTTP request',
    labelNames: ['method', 'route', 'status'],
  });

  return (req, res) => {
    const url = req.url ?? '/';
    const queryAt = url.indexOf('?');
    const path = queryAt < 0 ? url : url.slice(0, queryAt);
    const match = LOG_API_PATH.exec(path);
    const route = match ? ROUTES.get(match[2] ?? match[3] ?? '') : undefined;
    if (!match || !route || req.method !== route.method) {
      fallback(req, res);
      return;
    }
    const started = process.hrtime.bigint();
    const alias = decodeSegment(match[1] ?? '');
    res.once('close', () => {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      const status = res.writableFinished ? String(res.statusCode) : 'aborted';
      requestSeconds.observe({ method: route.method, route: route.template, status }, seconds);
      log.debug('request', () => ({ method: route.method, path, status, durationMs: Math.round(seconds * 1e4) / 10 }));
    });
    void serve(req, res, route, alias, queryAt < 0 ? NO_QUERY : new URLSearchParams(url.slice(queryAt + 1)), path).catch((error: unknown) => {
      log.error('log API request failed after its response started', { path, err: error as Error });
      res.destroy();
    });
  };

  async function serve(req: IncomingMessage, res: ServerResponse, route: Route, alias: string, query: QueryParams, path: string): Promise<void> {
    const done = metrics.time(route.op, alias);
    try {
      checkToken(req, path, route.method);
      const body = route.method === 'POST' ? await readBody(req) : undefined;
      send(res, 200, await route.handle(api, alias, query, body));
      done(true);
    } catch (error) {
      done(false);
      sendError(res, error, path);
    }
  }

  /** The kit's bearer-token check: a token where the rules define some, compared in constant time. */
  function checkToken(req: IncomingMessage, path: string, method: string): void {
    const tokens = tokenRules.tokensFor(path, method);
    if (tokens.length === 0) return;
    const presented = bearerToken(req.headers.authorization);
    if (presented === undefined) throw unauthorized('credentials required: a bearer token or an HTTP signature', { headers: { 'WWW-Authenticate': 'Bearer' } });
    if (!tokenRules.match(tokens, presented)) throw unauthorized('invalid bearer token', { headers: { 'WWW-Authenticate': 'Bearer error="invalid_token"' } });
  }

  /**
   * The add-vc body as text, whatever its Content-Type (the original reads any body); undefined when empty.
   * It is parsed on a worker thread with the rest of the credential work. Larger than the limit is 413
   * (the connection is then closed rather than read to its end).
   */
  function readBody(req: IncomingMessage): Promise<string | undefined> {
    if (Number(req.headers['content-length']) > bodyLimitBytes) return Promise.reject(tooLarge());
    return new Promise((resolve, reject) => {
      const chunks: Buffer[] = [];
      let received = 0;
      req.on('data', (chunk: Buffer) => {
        received += chunk.length;
        if (received > bodyLimitBytes) {
          req.removeAllListeners('data');
          req.pause();
          reject(tooLarge());
        } else chunks.push(chunk);
      });
      req.once('end', () => resolve(received === 0 ? undefined : (chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks)).toString('utf8')));
      req.once('error', reject);
    });
  }

  function tooLarge(): AppError {
    return new AppError('payload_too_large', `request body exceeds the limit of ${bodyLimitBytes} bytes`, { headers: { Connection: 'close' } });
  }
}

function send(res: ServerResponse, status: number, body: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(body),
    'x-content-type-options': 'nosniff',
    ...headers,
  });
  res.end(body);
}

/** The kit's error body (`errorResponse`), ending with a newline as the original's bodies do; non-AppErrors are logged 500s. */
function sendError(res: ServerResponse, error: unknown, path: string): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const response = errorResponse(error);
  if (!response.appError) log.error('unhandled error', { path, err: error instanceof Error ? error : String(error) });
  else if (response.status >= 500) log.warn('request failed', { path, status: response.status, err: response.appError });
  send(res, response.status, `${JSON.stringify(response.body)}\n`, response.headers);
  if (response.appError?.code === 'payload_too_large') res.once('finish', () => res.socket?.destroy());
}

function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}
