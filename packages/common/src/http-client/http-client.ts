import http, { type IncomingHttpHeaders, type IncomingMessage } from 'node:http';
import https from 'node:https';
import { AppError, isRetryable, transient } from '../errors/index.js';
import type { RequestSigner } from '../http/principal.js';
import { errorCodeForStatus } from '../http/status-codes.js';
import type { Metrics } from '../metrics/index.js';
import { injectTraceHeaders } from '../tracing/index.js';
import { withBundledRoots } from './ca-certificates.js';

export interface HttpClientOptions {
  /** Whole-request deadline (connect, send, receive). Default 20 s, Orb's `HTTP_TIMEOUT`. */
  timeoutMs?: number;
  /** Adds HTTP signature headers over the exact bytes sent (the httpsig module provides one). */
  signer?: RequestSigner;
  /**
   * Which requests to sign; default every request when a signer is set. To sign as Orb does (only where
   * client token rules require a token for the target), reuse the server's `TokenRules`:
   * `shouldSign: ({ method, url }) => clientRules.tokensFor(url.pathname, method).length > 0`. (Its client
   * check skipped matching definitions without tokens, unlike the server's first-match rule; reusing
   * `TokenRules` gives both sides the same first-match semantics.)
   */
  shouldSign?: (request: { method: string; url: URL }) => boolean;
  /** Bearer token to send to a target, e.g. the log's write token for `{vct_url}` calls. */
  bearerToken?: (url: URL) => string | undefined;
  /** Connections per host. Default 100, as in Orb. */
  maxSockets?: number;
  /** An idle pooled connection is closed after this. Default 4 s, under the common 5 s server keep-alive. */
  idleSocketMs?: number;
  /** Responses larger than this fail (not retryable). Default 16 MiB. */
  maxResponseBytes?: number;
  /** Redirects followed for unsigned requests; signed ones never follow (the signature names one target). Default 5. */
  maxRedirects?: number;
  /**
   * CA certificates trusted besides Node's bundled roots (`--tls-cacerts`, see `readCaCertificates`), and
   * `rejectUnauthorized: false` for development only.
   */
  tls?: { ca?: string | Buffer | Array<string | Buffer>; rejectUnauthorized?: boolean };
  userAgent?: string;
  /**
   * Sends a request again after a retryable failure (network error, timeout, 5xx, 408, 429), each attempt
   * signed afresh. Default: one attempt. Requests that must not repeat (creating something) pass `retry: false`.
   */
  retry?: RetryPolicy;
  /** Times every exchange into `<prefix>http_client_request_seconds{method, status}` (status `error` when none came). */
  metrics?: Metrics;
}

/** Attempts in all, and the wait before attempt n+1: `min(maxMs, initialMs x multiplier^(n-1))`. */
export interface RetryPolicy {
  attempts: number;
  initialMs: number;
  multiplier: number;
  maxMs: number;
}

export interface RequestOptions {
  method?: string;
  headers?: Record<string, string>;
  /** Serialised as JSON; `Content-Type` defaults to application/json (set it for ld+json etc.). */
  json?: unknown;
  /** Sent as is (a string as UTF-8). */
  body?: Buffer | string;
  /** How to read the body: parsed JSON (default; empty body gives undefined), text, or bytes. */
  responseType?: 'json' | 'text' | 'buffer';
  /** Overrides the client's bearer token for this request. */
  token?: string;
  /** Overrides `shouldSign` for this request. */
  sign?: boolean;
  /** `false`: one attempt whatever the client's retry policy (for requests that are not safe to repeat). */
  retry?: boolean;
  /** Statuses >= 300 answered as responses (body parsed) instead of thrown, e.g. a 400 whose body is a result. */
  answerStatuses?: readonly number[];
  timeoutMs?: number;
  signal?: AbortSignal;
}

export interface HttpResponse<T> {
  status: number;
  headers: Record<string, string>;
  data: T;
}

export interface HttpClient {
  /**
   * Sends a request and resolves for 2xx. Fails with an AppError: network errors, timeouts and 5xx are
   * retryable (`isRetryable`); 4xx are not (except 408 and 429, which ask to retry) and carry the peer's
   * status (`peerStatusOf`) and message.
   */
  request<T = unknown>(url: string, options?: RequestOptions): Promise<HttpResponse<T>>;
  get<T = unknown>(url: string, options?: Omit<RequestOptions, 'method' | 'json' | 'body'>): Promise<HttpResponse<T>>;
  post<T = unknown>(
    url: string,
    json: unknown,
    options?: Omit<RequestOptions, 'method' | 'json'>,
  ): Promise<HttpResponse<T>>;
  /** Closes pooled connections. */
  close(): void;
}

/** The status a peer answered with, when an AppError came from `HttpClient` (whatever its own code). */
export function peerStatusOf(error: unknown): number | undefined {
  const status = error instanceof AppError ? error.details?.peerStatus : undefined;
  return typeof status === 'number' ? status : undefined;
}

const RETRY_LATER_4XX = new Set([408, 429]);
/** Several pooled sockets may have gone stale together; each retry takes another or opens one. */
const STALE_SOCKET_RETRIES = 3;

class StaleSocketError extends Error {
  constructor(override readonly cause: Error) {
    super(cause.message);
  }
}

export function createHttpClient(options: HttpClientOptions = {}): HttpClient {
  const maxSockets = options.maxSockets ?? 100;
  // Idle pooled connections are closed before the server's keep-alive ends them: without an agent timeout
  // Node ignores the server's Keep-Alive hint and keeps idle sockets until the server resets them.
  const timeout = options.idleSocketMs ?? 4_000;
  const httpAgent = new http.Agent({ keepAlive: true, maxSockets, timeout });
  const httpsAgent = new https.Agent({
    keepAlive: true,
    maxSockets,
    timeout,
    ...(options.tls?.ca !== undefined ? { ca: withBundledRoots(options.tls.ca) } : {}),
    rejectUnauthorized: options.tls?.rejectUnauthorized ?? true,
  });
  const maxResponseBytes = options.maxResponseBytes ?? 16 * 1024 * 1024;
  const defaultTimeoutMs = options.timeoutMs ?? 20_000;
  const exchangeSeconds = options.metrics?.histogram({
    name: 'http_client_request_seconds',
    help: 'Seconds per outbound HTTP exchange (redirects included)',
    labelNames: ['method', 'status'],
  });

  async function request<T>(target: string, request: RequestOptions = {}): Promise<HttpResponse<T>> {
    const policy = request.retry === false ? undefined : options.retry;
    for (let attempt = 1; ; attempt++) {
      try {
        return await requestOnce<T>(target, request);
      } catch (error) {
        if (!policy || attempt >= policy.attempts || !isRetryable(error) || request.signal?.aborted) throw error;
        const delay = Math.min(policy.maxMs, policy.initialMs * policy.multiplier ** (attempt - 1));
        await new Promise((resolve) => setTimeout(resolve, delay));
      }
    }
  }

  async function requestOnce<T>(target: string, request: RequestOptions): Promise<HttpResponse<T>> {
    const method = (request.method ?? 'GET').toUpperCase();
    let url: URL;
    try {
      url = new URL(target);
    } catch {
      throw new AppError('bad_request', `invalid URL ${JSON.stringify(target)}`, { retryable: false });
    }
    const what = `${method} ${url.href}`;
    const headers: Record<string, string> = {
      host: url.host,
      accept: 'application/json',
      ...lowerCaseKeys(request.headers),
    };
    if (options.userAgent) headers['user-agent'] ??= options.userAgent;
    let body: Buffer | undefined;
    if (request.json !== undefined) {
      body = Buffer.from(JSON.stringify(request.json), 'utf8');
      headers['content-type'] ??= 'application/json';
    } else if (request.body !== undefined) {
      body = typeof request.body === 'string' ? Buffer.from(request.body, 'utf8') : request.body;
    }
    const token = request.token ?? options.bearerToken?.(url);
    if (token !== undefined) headers.authorization = `Bearer ${token}`;
    const signed = options.signer !== undefined && (request.sign ?? options.shouldSign?.({ method, url }) ?? true);
    if (signed && options.signer) {
      const added = await options.signer({ method, url: url.href, headers: { ...headers }, body });
      Object.assign(headers, lowerCaseKeys(added));
    }
    // After signing: the trace context is never a signed component, so a hop that rewrites it breaks nothing.
    injectTraceHeaders(headers);

    const timeoutMs = request.timeoutMs ?? defaultTimeoutMs;
    const deadline = AbortSignal.timeout(timeoutMs);
    let response: RawResponse;
    const exchangeEnd = exchangeSeconds?.startTimer({ method });
    try {
      const signal = request.signal ? AbortSignal.any([deadline, request.signal]) : deadline;
      response = await send({ url, method, headers, body, signal }, signed ? 0 : (options.maxRedirects ?? 5));
    } catch (error) {
      exchangeEnd?.({ status: 'error' });
      throw failure(what, error, deadline.aborted ? timeoutMs : undefined);
    }
    exchangeEnd?.({ status: response.status });
    const { status, data } = response;
    if (status >= 300 && !(request.answerStatuses?.includes(status) ?? false)) throw statusFailure(what, status, data);
    return {
      status,
      headers: flattenHeaders(response.headers),
      data: decode(what, data, request.responseType ?? 'json') as T,
    };
  }

  /**
   * One exchange over the keep-alive agents (node:http directly: a general-purpose client's per-request
   * configuration merging and header normalisation cost more CPU than a loopback delivery itself), following
   * up to `redirectsLeft` redirects as browsers do: 303, and 301/302 after a POST, become a GET without body;
   * credentials are not sent to another host.
   */
  async function send(exchange: Exchange, redirectsLeft: number): Promise<RawResponse> {
    const response = await exchangeOnce(exchange);
    const location = response.headers.location;
    if (response.status < 300 || response.status >= 400 || response.status === 304 || location === undefined)
      return response;
    if (redirectsLeft === 0) return response;
    const url = new URL(location, exchange.url);
    const asGet =
      response.status === 303 || ((response.status === 301 || response.status === 302) && exchange.method === 'POST');
    const headers: Record<string, string> = { ...exchange.headers, host: url.host };
    if (asGet) for (const name of ['content-type', 'content-length', 'digest']) delete headers[name];
    if (url.host !== exchange.url.host) delete headers.authorization;
    return send(
      {
        url,
        method: asGet ? 'GET' : exchange.method,
        headers,
        body: asGet ? undefined : exchange.body,
        signal: exchange.signal,
      },
      redirectsLeft - 1,
    );
  }

  /**
   * A server may close an idle keep-alive connection just as a request is written to it; the request was
   * then never read, and Node reports ECONNRESET or EPIPE on the reused socket before any response. Such an
   * exchange is sent again on another connection (what Node's documentation advises); an error on a fresh
   * connection, or after response bytes arrived, is not retried here.
   */
  async function exchangeOnce(exchange: Exchange): Promise<RawResponse> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await exchangeOnSocket(exchange);
      } catch (error) {
        if (!(error instanceof StaleSocketError) || attempt > STALE_SOCKET_RETRIES)
          throw error instanceof StaleSocketError ? error.cause : error;
      }
    }
  }

  function exchangeOnSocket({ url, method, headers, body, signal }: Exchange): Promise<RawResponse> {
    const secure = url.protocol === 'https:';
    if (!secure && url.protocol !== 'http:')
      return Promise.reject(new AppError('bad_request', `unsupported protocol ${url.protocol}`, { retryable: false }));
    const sent = body === undefined ? headers : { ...headers, 'content-length': String(body.length) };
    return new Promise((resolve, reject) => {
      let answered = false;
      const req = (secure ? https : http).request(
        url,
        { method, headers: sent, agent: secure ? httpsAgent : httpAgent, signal },
        (res: IncomingMessage) => {
          answered = true;
          const chunks: Buffer[] = [];
          let size = 0;
          res.on('data', (chunk: Buffer) => {
            size += chunk.length;
            if (size > maxResponseBytes) {
              res.destroy();
              reject(
                new AppError('bad_gateway', `maxContentLength size of ${maxResponseBytes} exceeded`, {
                  retryable: false,
                }),
              );
              return;
            }
            chunks.push(chunk);
          });
          res.on('end', () =>
            resolve({
              status: res.statusCode ?? 0,
              headers: res.headers,
              data: chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks),
            }),
          );
          res.on('error', reject);
          res.on('close', () => {
            if (!res.complete) reject(Object.assign(new Error('the response was cut off'), { code: 'ECONNRESET' }));
          });
        },
      );
      req.on('error', (error: NodeJS.ErrnoException) => {
        const stale = req.reusedSocket && !answered && (error.code === 'ECONNRESET' || error.code === 'EPIPE');
        reject(stale ? new StaleSocketError(error) : error);
      });
      req.end(body);
    });
  }

  return {
    request,
    get: (url, requestOptions) => request(url, { ...requestOptions, method: 'GET' }),
    post: (url, json, requestOptions) => request(url, { ...requestOptions, method: 'POST', json }),
    close: () => {
      httpAgent.destroy();
      httpsAgent.destroy();
    },
  };
}

function lowerCaseKeys(headers: Record<string, string> | undefined): Record<string, string> {
  return Object.fromEntries(Object.entries(headers ?? {}).map(([name, value]) => [name.toLowerCase(), value]));
}

function flattenHeaders(headers: IncomingHttpHeaders): Record<string, string> {
  const flat: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined) flat[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return flat;
}

function decode(what: string, data: Buffer, type: 'json' | 'text' | 'buffer'): unknown {
  if (type === 'buffer') return data;
  const text = data.toString('utf8');
  if (type === 'text') return text;
  if (text.trim() === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new AppError('bad_gateway', `${what}: the response is not valid JSON`, { retryable: false });
  }
}

/** The peer's own explanation: `message` (this project), `errMessage` (Orb's discovery API), or text. */
function peerMessage(data: Buffer): string | undefined {
  const text = data.toString('utf8').trim();
  if (text === '') return undefined;
  try {
    const parsed = JSON.parse(text) as { message?: unknown; errMessage?: unknown };
    for (const candidate of [parsed.message, parsed.errMessage])
      if (typeof candidate === 'string' && candidate !== '') return candidate;
  } catch {
    // not JSON: use the text itself
  }
  return text.length > 300 ? `${text.slice(0, 300)}...` : text;
}

function statusFailure(what: string, status: number, data: Buffer): AppError {
  const explained = peerMessage(data);
  const message =
    `${what}: ${status} ${http.STATUS_CODES[status] ?? ''}`.trimEnd() + (explained ? `: ${explained}` : '');
  const details = { peerStatus: status };
  if (status >= 500) return new AppError('bad_gateway', message, { retryable: true, details });
  if (status < 400)
    return new AppError('bad_gateway', `${message} (redirect not followed)`, { retryable: false, details });
  return new AppError(errorCodeForStatus(status), message, { retryable: RETRY_LATER_4XX.has(status), details });
}

function failure(what: string, error: unknown, timedOutAfterMs: number | undefined): AppError {
  if (error instanceof AppError)
    return new AppError(error.code, `${what}: ${error.message}`, { retryable: error.retryable, cause: error });
  if (timedOutAfterMs !== undefined)
    return new AppError('timeout', `${what}: no response within ${timedOutAfterMs} ms`, {
      retryable: true,
      cause: error,
    });
  if (error instanceof Error && error.name === 'AbortError') return transient(`${what}: cancelled`, error);
  if (error instanceof TypeError && (error as NodeJS.ErrnoException).code === 'ERR_INVALID_URL') {
    return new AppError('bad_request', `${what}: ${error.message}`, { retryable: false, cause: error });
  }
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  const message = error instanceof Error ? error.message : String(error);
  return transient(`${what}: ${code ?? 'network error'}${message && message !== code ? ` (${message})` : ''}`, error);
}

interface Exchange {
  url: URL;
  method: string;
  headers: Record<string, string>;
  body: Buffer | undefined;
  signal: AbortSignal;
}

interface RawResponse {
  status: number;
  headers: IncomingHttpHeaders;
  data: Buffer;
}
