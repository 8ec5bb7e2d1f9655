import axios, { AxiosHeaders, type InternalAxiosRequestConfig } from 'axios';
import type { RequestSigner } from '../http/principal.js';

/**
 * Signing for callers outside the shared HTTP client. Both adapters serialise the body themselves, sign those
 * bytes, and hand the same bytes to the transport, so what is signed is what is sent.
 */

/**
 * An axios request interceptor: `instance.interceptors.request.use(axiosSigningInterceptor(signer))`.
 * Request interceptors run before axios serialises the body, so plain objects are JSON-encoded here (with
 * `Content-Type: application/json` unless set) and sent as a Buffer, which axios passes through untouched.
 */
export function axiosSigningInterceptor(
  signer: RequestSigner,
): (config: InternalAxiosRequestConfig) => Promise<InternalAxiosRequestConfig> {
  return async (config) => {
    const headers = AxiosHeaders.from(config.headers);
    const body = bodyBytes(config.data, (type) => {
      if (!headers.has('content-type')) headers.set('Content-Type', type);
    });
    if (body !== undefined) config.data = body;
    const signed = await signer({
      method: (config.method ?? 'get').toUpperCase(),
      url: axios.getUri(config),
      headers: plainHeaders(headers.toJSON()),
      ...(body === undefined ? {} : { body }),
    });
    for (const [name, value] of Object.entries(signed)) headers.set(name, value);
    config.headers = headers;
    return config;
  };
}

export type SignedFetch = (url: string | URL, init?: RequestInit) => Promise<Response>;

/** A `fetch` that signs every request: `const fetchSigned = createSignedFetch(signer); await fetchSigned(url, {method: 'POST', body})`. */
export function createSignedFetch(
  signer: RequestSigner,
  fetchImpl: typeof globalThis.fetch = globalThis.fetch,
): SignedFetch {
  return async (url, init = {}) => {
    const headers = new Headers(init.headers);
    const body = bodyBytes(init.body, (type) => {
      if (!headers.has('content-type')) headers.set('Content-Type', type);
    });
    const plain: Record<string, string> = {};
    headers.forEach((value, name) => (plain[name] = value));
    const signed = await signer({
      method: (init.method ?? 'GET').toUpperCase(),
      url: new URL(url).toString(),
      headers: plain,
      ...(body === undefined ? {} : { body }),
    });
    for (const [name, value] of Object.entries(signed)) headers.set(name, value);
    return fetchImpl(url, { ...init, headers, ...(body === undefined ? {} : { body: new Uint8Array(body) }) });
  };
}

/** The exact bytes for a body given in one of the common shapes; streams and multipart forms cannot be signed up front. */
function bodyBytes(data: unknown, setContentType: (type: string) => void): Buffer | undefined {
  if (data === undefined || data === null) return undefined;
  if (Buffer.isBuffer(data)) return data;
  if (data instanceof Uint8Array) return Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  if (data instanceof ArrayBuffer) return Buffer.from(data);
  if (typeof data === 'string') return Buffer.from(data, 'utf8');
  if (data instanceof URLSearchParams) {
    setContentType('application/x-www-form-urlencoded;charset=utf-8');
    return Buffer.from(data.toString(), 'utf8');
  }
  if (isPlainJson(data)) {
    setContentType('application/json');
    return Buffer.from(JSON.stringify(data), 'utf8');
  }
  throw new TypeError(
    'cannot sign this request body: pass a string, bytes, URLSearchParams or a JSON-serialisable object',
  );
}

function isPlainJson(data: unknown): boolean {
  if (Array.isArray(data)) return true;
  if (typeof data !== 'object' || data === null) return false;
  const proto = Object.getPrototypeOf(data) as unknown;
  return proto === Object.prototype || proto === null;
}

function plainHeaders(headers: Record<string, unknown>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || value === null || value === false) continue;
    out[name] = Array.isArray(value) ? value.join(', ') : String(value);
  }
  return out;
}
