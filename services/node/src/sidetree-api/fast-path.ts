import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { AppError, badRequest } from '@anchor/common/errors';
import { errorResponse, type TokenRules } from '@anchor/common/http';
import type { Logger } from '@anchor/common/log';
import type { Metrics } from '@anchor/common/metrics';
import { IDENTIFIERS_PATH, OPERATIONS_PATH, queryValue, type SidetreeAnswer, type SidetreeApi } from './sidetree-api.js';

export interface FastPathOptions {
  api: SidetreeApi;
  /** The express app: everything the fast path does not take. */
  fallback: RequestListener;
  /** The server's bearer-token rules: a request they cover goes to express (with signatures and all). */
  tokenRules: TokenRules;
  /** The kit's security headers (`securityHeaders()`), sent on every answer as express would. */
  securityHeaders: ReadonlyArray<readonly [string, string]>;
  /** The kit's registry: the same `http_request_duration_seconds` series express observes. */
  metrics: Metrics;
  /** The kit's body limit (`--body-limit`). */
  bodyLimitBytes: number;
  log: Logger;
}

const OPERATIONS_ROUTE = OPERATIONS_PATH;
const IDENTIFIERS_ROUTE = `${IDENTIFIERS_PATH}/:did`;

/**
 * The Sidetree endpoints answered in front of express: the HTTP kit's middleware stack (routers, body
 * parsers, helmet, ETags) costs more CPU than a cached resolution or an operation's intake, which the
 * throughput and latency targets of these two endpoints cannot afford. The fast path takes a request only
 * when the kit would let it through without credentials anyway — no token rule covers its path and method,
 * and it carries no HTTP signature to verify — and answers exactly as the kit's routes do: the same
 * handlers (`SidetreeApi`), status codes, `{"message"}` error bodies (the kit's `errorResponse`), security
 * headers, body limit (413) and request metrics. Anything else — token-protected deployments, signed
 * requests, other paths — goes to express unchanged.
 */
export function sidetreeFastPath(options: FastPathOptions): RequestListener {
  const { api, fallback, tokenRules, metrics, bodyLimitBytes, log } = options;
  const requestSeconds = metrics.histogram({ name: 'http_request_duration_seconds', help: 'Seconds to serve an HTTP request', labelNames: ['method', 'route', 'status'] });
  const headers = options.securityHeaders;

  return (req, res) => {
    const url = req.url ?? '/';
    const queryAt = url.indexOf('?');
    const path = queryAt < 0 ? url : url.slice(0, queryAt);
    const route = routeOf(req.method, path);
    if (route === undefined || req.headers.signature !== undefined || tokenRules.tokensFor(path, req.method ?? 'GET').length > 0) {
      fallback(req, res);
      return;
    }
    const started = process.hrtime.bigint();
    res.once('close', () => {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      const status = res.writableFinished ? String(res.statusCode) : 'aborted';
      requestSeconds.observe({ method: req.method ?? 'GET', route, status }, seconds);
      log.debug('request', () => ({ method: req.method, path, status, durationMs: Math.round(seconds * 1e4) / 10 }));
    });
    const answering =
      route === OPERATIONS_ROUTE
        ? readBody(req, bodyLimitBytes).then((body) => api.postOperation(body))
        : identifier(api, path, queryAt < 0 ? undefined : new URLSearchParams(url.slice(queryAt + 1)));
    answering.then(
      (answer) => send(res, headers, 200, answer.contentType, answer.body),
      (error: unknown) => sendError(res, headers, error, log, req.method ?? 'GET', path),
    );
  };
}

function routeOf(method: string | undefined, path: string): string | undefined {
  if (method === 'POST' && path === OPERATIONS_PATH) return OPERATIONS_ROUTE;
  if (method === 'GET' && path.startsWith(`${IDENTIFIERS_PATH}/`) && path.length > IDENTIFIERS_PATH.length + 1 && !path.includes('/', IDENTIFIERS_PATH.length + 1)) {
    return IDENTIFIERS_ROUTE;
  }
  return undefined;
}

async function identifier(api: SidetreeApi, path: string, query: URLSearchParams | undefined): Promise<SidetreeAnswer> {
  return api.getIdentifier(path.slice(IDENTIFIERS_PATH.length + 1), {
    versionId: queryValue(query?.getAll('versionId').length ? query.getAll('versionId') : undefined, 'versionId'),
    versionTime: queryValue(query?.getAll('versionTime').length ? query.getAll('versionTime') : undefined, 'versionTime'),
  });
}

/** The body's bytes (undefined when empty), refused with the kit's 413 beyond the limit. */
function readBody(req: IncomingMessage, limit: number): Promise<Buffer | undefined> {
  const tooLarge = () => new AppError('payload_too_large', `request body exceeds the limit of ${limit} bytes`, { headers: { Connection: 'close' } });
  if (Number(req.headers['content-length']) > limit) return Promise.reject(tooLarge());
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let received = 0;
    req.on('data', (chunk: Buffer) => {
      received += chunk.length;
      if (received > limit) {
        req.removeAllListeners('data');
        req.pause();
        reject(tooLarge());
      } else chunks.push(chunk);
    });
    req.once('end', () => resolve(received === 0 ? undefined : chunks.length === 1 ? chunks[0] : Buffer.concat(chunks)));
    req.once('error', reject);
  });
}

function send(res: ServerResponse, headers: FastPathOptions['securityHeaders'], status: number, contentType: string, body: string, extra?: Record<string, string>): void {
  if (res.headersSent) return;
  res.statusCode = status;
  for (const [name, value] of headers) res.setHeader(name, value);
  if (extra) for (const [name, value] of Object.entries(extra)) res.setHeader(name, value);
  res.setHeader('Content-Type', `${contentType}; charset=utf-8`);
  res.setHeader('Content-Length', Buffer.byteLength(body));
  res.end(body);
}

/** The kit's error mapping (`errorResponse`), logged as the kit's error handler logs. */
function sendError(res: ServerResponse, headers: FastPathOptions['securityHeaders'], error: unknown, log: Logger, method: string, path: string): void {
  if (res.headersSent) {
    log.error('request failed after its response started', { method, path, err: error });
    res.destroy();
    return;
  }
  const response = errorResponse(error);
  const appError = response.appError;
  if (!appError) log.error('unhandled error', { method, path, err: error instanceof Error ? error : String(error) });
  else if (appError.status >= 500) log.warn('request failed', { method, path, status: appError.status, err: appError });
  else log.debug('request rejected', { method, path, status: appError.status, reason: appError.message });
  send(res, headers, response.status, 'application/json', JSON.stringify(response.body), response.headers);
}

/** `2mb`, `100kb`, `512b` or a byte count, as express's body limit reads them (powers of 1024). */
export function parseByteSize(text: string | number): number {
  if (typeof text === 'number') return text;
  const match = /^\s*(\d+(?:\.\d+)?)\s*(b|kb|mb|gb)?\s*$/i.exec(text);
  if (!match) throw badRequest(`'${text}' is not a size such as 2mb, 100kb or 512`);
  const unit = { b: 1, kb: 1024, mb: 1024 ** 2, gb: 1024 ** 3 }[(match[2] ?? 'b').toLowerCase() as 'b' | 'kb' | 'mb' | 'gb'];
  return Math.floor(Number(match[1]) * unit);
}
