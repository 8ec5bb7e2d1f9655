import { badRequest } from '../errors/index.js';

/**
 * DID and DID URL syntax, W3C DID Core §3.1 / §3.2 (ABNF, with RFC 3986 for path, query and fragment):
 *
 *   did                = "did:" method-name ":" method-specific-id
 *   method-name        = 1*( %x61-7A / DIGIT )
 *   method-specific-id = *( *idchar ":" ) 1*idchar
 *   idchar             = ALPHA / DIGIT / "." / "-" / "_" / pct-encoded
 *   did-url            = did path-abempty [ "?" query ] [ "#" fragment ]
 */
const PCT = '%[0-9A-Fa-f]{2}';
const IDCHAR = `(?:[A-Za-z0-9._-]|${PCT})`;
const PCHAR = `(?:[A-Za-z0-9._~!$&'()*+,;=:@-]|${PCT})`;
const DID = `did:([a-z0-9]+):((?:${IDCHAR}*:)*${IDCHAR}+)`;
const DID_PATTERN = new RegExp(`^${DID}$`);
const DID_URL_PATTERN = new RegExp(`^${DID}((?:/${PCHAR}*)*)(?:\\?((?:${PCHAR}|[/?])*))?(?:#((?:${PCHAR}|[/?])*))?$`);

export interface ParsedDid {
  /** The DID alone, e.g. `did:web:example.com`. */
  did: string;
  /** Method name, e.g. `web`. */
  method: string;
  /** Method-specific identifier, e.g. `example.com`. */
  id: string;
}

export interface ParsedDidUrl extends ParsedDid {
  /** The whole DID URL as given. */
  didUrl: string;
  /** Path-abempty: `''` or `/seg/...`. */
  path: string;
  /** Query without `?`; undefined when absent (an empty query `?` is `''`). */
  query: string | undefined;
  /** Fragment without `#`; undefined when absent. */
  fragment: string | undefined;
  /** Query parameters, percent-decoded (the DID Core parameters: service, relativeRef, versionId, versionTime, hl). */
  params: Record<string, string>;
}

export function isDid(text: unknown): text is string {
  return typeof text === 'string' && DID_PATTERN.test(text);
}

export function isDidUrl(text: unknown): text is string {
  return typeof text === 'string' && DID_URL_PATTERN.test(text);
}

/** Parses a bare DID (no path, query or fragment); throws bad_request naming what is wrong. */
export function parseDid(text: string): ParsedDid {
  const match = typeof text === 'string' ? DID_PATTERN.exec(text) : null;
  if (!match) throw badRequest(`invalid DID ${describe(text)}${hint(text)}`);
  return { did: text, method: match[1]!, id: match[2]! };
}

/** Parses a DID URL (a DID with optional path, query and fragment); throws bad_request when malformed. */
export function parseDidUrl(text: string): ParsedDidUrl {
  const match = typeof text === 'string' ? DID_URL_PATTERN.exec(text) : null;
  if (!match) {
    const didPart = typeof text === 'string' ? (text.split(/[/?#]/)[0] ?? '') : text;
    const reason = DID_PATTERN.test(String(didPart))
      ? ': its path, query or fragment has characters a URL does not allow'
      : hint(didPart);
    throw badRequest(`invalid DID URL ${describe(text)}${reason}`);
  }
  const [, method, id, path, query, fragment] = match as unknown as [
    string,
    string,
    string,
    string,
    string | undefined,
    string | undefined,
  ];
  return { did: `did:${method}:${id}`, method, id, didUrl: text, path, query, fragment, params: parseQuery(query) };
}

/** Builds a DID URL from a DID and optional path, query (string or parameters) and fragment, validating the result. */
export function buildDidUrl(
  did: string,
  parts: { path?: string; query?: string | Record<string, string>; fragment?: string } = {},
): string {
  parseDid(did);
  const path =
    parts.path === undefined || parts.path === '' ? '' : parts.path.startsWith('/') ? parts.path : `/${parts.path}`;
  const query =
    parts.query === undefined
      ? ''
      : `?${typeof parts.query === 'string' ? parts.query : new URLSearchParams(parts.query).toString()}`;
  const fragment = parts.fragment === undefined ? '' : `#${parts.fragment}`;
  const url = `${did}${path}${query}${fragment}`;
  parseDidUrl(url);
  return url;
}

function parseQuery(query: string | undefined): Record<string, string> {
  const params: Record<string, string> = {};
  if (!query) return params;
  for (const [name, value] of new URLSearchParams(query)) params[name] = value;
  return params;
}

function describe(text: unknown): string {
  if (typeof text !== 'string') return `(a ${text === null ? 'null' : typeof text}, not a string)`;
  return `'${text.length > 120 ? `${text.slice(0, 120)}…` : text}'`;
}

/** Names the most common mistakes, so the error says more than "invalid". */
function hint(text: unknown): string {
  if (typeof text !== 'string') return '';
  if (!text.startsWith('did:')) return ': must start with "did:"';
  const method = text.slice(4).split(':')[0] ?? '';
  if (!/^[a-z0-9]+$/.test(method)) return ': the method name must be lowercase letters and digits';
  if (!text.slice(5 + method.length)) return ': the method-specific id is missing';
  return ': the method-specific id allows only letters, digits, ".", "-", "_", ":" and %-escapes, and may not end with ":"';
}
