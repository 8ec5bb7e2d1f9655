/**
 * DID URLs as DID Core 1.0 §3.2 writes them, and the part of a DID document a fragment names: pure, no I/O.
 * The binding dereferences with them (`did-resolution-binding.ts`).
 */

const DID = /^did:([a-z0-9]+):((?:[A-Za-z0-9._:-]|%[0-9A-Fa-f]{2})*(?:[A-Za-z0-9._-]|%[0-9A-Fa-f]{2}))$/;
/** RFC 3986 path, query and fragment characters (pchar, plus `/` and `?` where allowed). */
const PCHARS = "(?:[A-Za-z0-9._~!$&'()*+,;=:@-]|%[0-9A-Fa-f]{2})";
const DID_URL = new RegExp(`^(did:[^/?#]*)((?:/${PCHARS}*)*)(?:\\?((?:${PCHARS}|[/?])*))?(?:#((?:${PCHARS}|[/?])*))?$`);

export interface DidUrl {
  did: string;
  method: string;
  path: string;
  /** The query's parameters, in order; undefined without a `?`. */
  query: URLSearchParams | undefined;
  /** Without the `#`; undefined without one. */
  fragment: string | undefined;
}

/** The method of a conformant DID (DID Core §3.1), or undefined. */
export function didMethodOf(did: string): string | undefined {
  return DID.exec(did)?.[1];
}

/** Parses a DID URL (a DID alone is one too), or undefined when it is not a conformant one. */
export function parseDidUrl(text: string): DidUrl | undefined {
  const match = DID_URL.exec(text);
  if (!match) return undefined;
  const [, did = '', path = '', query, fragment] = match;
  const method = didMethodOf(did);
  if (method === undefined) return undefined;
  return { did, method, path, query: query === undefined ? undefined : new URLSearchParams(query), fragment };
}

/**
 * The node of `document` whose `id` is `did#fragment` (or the relative `#fragment`): a verification method,
 * listed or embedded in a verification relationship, or a service. Undefined when none is.
 */
export function resourceOf(
  document: Record<string, unknown>,
  did: string,
  fragment: string,
): Record<string, unknown> | undefined {
  const ids = new Set([`${did}#${fragment}`, `#${fragment}`]);
  const candidates: unknown[] = [];
  for (const [key, value] of Object.entries(document)) {
    if (key === '@context' || !Array.isArray(value)) continue;
    candidates.push(...value);
  }
  return candidates.find(
    (node): node is Record<string, unknown> =>
      typeof node === 'object' && node !== null && ids.has(String((node as { id?: unknown }).id)),
  );
}
