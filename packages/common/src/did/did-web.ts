import { AppError, badRequest, notFound, transient } from '../errors/index.js';
import type { DidDocument } from './document.js';
import { parseDid } from './syntax.js';

/**
 * did:web (W3C CCG did:web): `did:web:<host>[%3A<port>][:<path segment>]*` names
 * `https://<host>[:<port>]/<path>/did.json`, or `https://<host>[:<port>]/.well-known/did.json` without a path.
 * Plain http is used only for loopback hosts (local federations and tests) unless explicitly allowed.
 */
export type DidWebHttpPolicy = 'loopback' | 'always' | 'never';

export interface DidWebOptions {
  /** When to use http instead of https: 'loopback' (default) for localhost / 127.0.0.1 only, 'always', 'never'. */
  http?: DidWebHttpPolicy;
}

/** The slice of `fetch` the resolver uses; inject one in tests so nothing leaves the process. */
export type FetchLike = (
  url: string,
  init: { headers: Record<string, string>; signal: AbortSignal; redirect: 'follow' | 'error' | 'manual' },
) => Promise<{ status: number; text(): Promise<string> }>;

export interface DidWebResolveOptions extends DidWebOptions {
  fetch?: FetchLike;
  /** Milliseconds before giving up on the host (default 10 s). */
  timeoutMs?: number;
  /** Largest document accepted, in characters (default 1 MiB). */
  maxBytes?: number;
}

const HOSTNAME = /^(?=.{1,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$/i;
const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1']);

/** The https (or loopback http) URL of a did:web document. */
export function didWebToUrl(did: string, options: DidWebOptions = {}): string {
  const { method, id } = parseDid(did);
  if (method !== 'web') throw badRequest(`${did} is not a did:web`);
  const [hostPart, ...pathSegments] = id.split(':');
  const authority = decodeAuthority(hostPart!, did);
  const scheme = useHttp(authority.host, options.http ?? 'loopback') ? 'http' : 'https';
  const path = pathSegments.length > 0 ? `/${pathSegments.join('/')}/did.json` : '/.well-known/did.json';
  return `${scheme}://${authority.host}${authority.port ? `:${authority.port}` : ''}${path}`;
}

/** The did:web of a document URL (`.../did.json` or `/.well-known/did.json`) or of a site / path URL. */
export function urlToDidWeb(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw badRequest(`invalid URL '${url}'`);
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:')
    throw badRequest(`did:web needs an http(s) URL, got ${parsed.protocol}`);
  if (parsed.search || parsed.hash || parsed.username || parsed.password)
    throw badRequest('a did:web URL has no query, fragment or credentials');
  if (!HOSTNAME.test(parsed.hostname))
    throw badRequest(`did:web host '${parsed.hostname}' must be a domain name or IPv4 address`);
  let path = parsed.pathname.replace(/\/+$/, '');
  if (path === '/.well-known/did.json' || path === '/.well-known') path = '';
  else if (path.endsWith('/did.json')) path = path.slice(0, -'/did.json'.length);
  const segments = path.split('/').filter((segment) => segment.length > 0);
  const host = parsed.port ? `${parsed.hostname}%3A${parsed.port}` : parsed.hostname;
  return parseDid(['did:web', host, ...segments].join(':')).did;
}

/** Fetches and checks a did:web document: HTTP 404/410 → not_found, network trouble → retryable unavailable. */
export async function resolveDidWeb(did: string, options: DidWebResolveOptions = {}): Promise<DidDocument> {
  const url = didWebToUrl(did, options);
  const fetchDocument = options.fetch ?? (globalThis.fetch as unknown as FetchLike);
  let response: Awaited<ReturnType<FetchLike>>;
  let body: string;
  try {
    response = await fetchDocument(url, {
      headers: { accept: 'application/did+json, application/json' },
      signal: AbortSignal.timeout(options.timeoutMs ?? 10_000),
      // A redirect could lead anywhere, including to http; did:web documents live at their own URL.
      redirect: 'error',
    });
    body = await response.text();
  } catch (error) {
    // A guarded fetch refusing the address (private, link-local, ...): the DID is what is wrong, not the network.
    if (error instanceof AppError && error.code === 'bad_request')
      throw badRequest(`${did}: ${error.message}`, { retryable: false, cause: error });
    throw transient(`cannot fetch ${url} for ${did}: ${(error as Error).message}`, error);
  }
  if (response.status === 404 || response.status === 410)
    throw notFound(`${did} not found (${url} answered ${response.status})`);
  if (response.status !== 200) {
    throw new AppError('bad_gateway', `${url} answered ${response.status} for ${did}`, {
      retryable: response.status >= 500,
    });
  }
  if (body.length > (options.maxBytes ?? 1024 * 1024)) throw badDocument(`the document at ${url} is too large`);
  let document: unknown;
  try {
    document = JSON.parse(body);
  } catch {
    throw badDocument(`the document at ${url} is not JSON`);
  }
  if (typeof document !== 'object' || document === null || Array.isArray(document))
    throw badDocument(`the document at ${url} is not a JSON object`);
  if ((document as DidDocument).id !== did) {
    throw badDocument(`the document at ${url} is for ${String((document as DidDocument).id)}, not ${did}`);
  }
  return document as DidDocument;
}

/** The host answered, but with something that is not this DID's document: retrying will not fix it. */
function badDocument(message: string): AppError {
  return new AppError('bad_gateway', message, { retryable: false });
}

function decodeAuthority(hostPart: string, did: string): { host: string; port: string | undefined } {
  const decoded = hostPart.replace(/%3A/gi, ':');
  if (decoded.includes('%')) throw badRequest(`${did}: only the port colon may be percent-encoded in a did:web host`);
  const [host, port, extra] = decoded.split(':');
  if (extra !== undefined || !host || !HOSTNAME.test(host))
    throw badRequest(`${did}: '${decoded}' is not a valid host[:port]`);
  if (port !== undefined && !(/^\d{1,5}$/.test(port) && Number(port) > 0 && Number(port) < 65536)) {
    throw badRequest(`${did}: port '${port}' is not a valid TCP port`);
  }
  return { host: host.toLowerCase(), port };
}

function useHttp(host: string, policy: DidWebHttpPolicy): boolean {
  if (policy === 'always') return true;
  return policy === 'loopback' && LOOPBACK_HOSTS.has(host);
}
