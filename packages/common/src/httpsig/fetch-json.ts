import { AppError, permanent, transient } from '../errors/index.js';

/**
 * How the verifier fetches key and actor documents. Injectable so services can route it through their own
 * HTTP client (e.g. one that signs GETs) and tests can serve documents directly.
 *
 * Contract: resolve with the parsed JSON; reject with a retryable `AppError` (e.g. `transient`) when trying
 * again later may succeed (network failure, timeout, 5xx), and with a non-retryable one otherwise (4xx,
 * not JSON). Rejections that are not `AppError`s count as retryable.
 */
export type FetchJson = (url: string, options: { accept: string; signal: AbortSignal }) => Promise<unknown>;

/** The Accept header Orb sends for actors and keys, with plain JSON as a fallback. */
export const ACTIVITY_JSON_ACCEPT =
  'application/ld+json; profile="https://www.w3.org/ns/activitystreams", application/json';

export interface FetchJsonOptions {
  fetch?: typeof globalThis.fetch;
  /** Larger documents are refused: a key or actor document is a few kilobytes. Default 256 KiB. */
  maxBytes?: number;
}

/** The default `FetchJson` over global `fetch`. */
export function createFetchJson(options: FetchJsonOptions = {}): FetchJson {
  const doFetch = options.fetch ?? globalThis.fetch;
  const maxBytes = options.maxBytes ?? 256 * 1024;
  return async (url, { accept, signal }) => {
    let response: Response;
    try {
      response = await doFetch(url, { headers: { accept }, signal, redirect: 'follow' });
    } catch (error) {
      throw transient(`GET ${url} failed: ${describe(error, signal)}`, error);
    }
    if (!response.ok) {
      await response.body?.cancel().catch(() => undefined);
      const retryable = response.status >= 500 || response.status === 408 || response.status === 429;
      const message = `GET ${url} answered ${response.status}`;
      throw retryable ? transient(message) : permanent(message);
    }
    let text: string;
    try {
      text = await readLimited(response, maxBytes);
    } catch (error) {
      if (error instanceof AppError) throw error;
      throw transient(`GET ${url}: reading the body failed: ${describe(error, signal)}`, error);
    }
    try {
      return JSON.parse(text) as unknown;
    } catch {
      throw permanent(`GET ${url} did not return JSON`);
    }
  };
}

async function readLimited(response: Response, maxBytes: number): Promise<string> {
  const declared = Number(response.headers.get('content-length'));
  if (declared > maxBytes) throw permanent(`document larger than ${maxBytes} bytes`);
  if (!response.body) return '';
  const chunks: Uint8Array[] = [];
  let total = 0;
  for await (const chunk of response.body) {
    total += chunk.byteLength;
    if (total > maxBytes) throw permanent(`document larger than ${maxBytes} bytes`);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function describe(error: unknown, signal: AbortSignal): string {
  if (signal.aborted) return 'timed out';
  return error instanceof Error
    ? error.cause instanceof Error
      ? `${error.message} (${error.cause.message})`
      : error.message
    : String(error);
}
