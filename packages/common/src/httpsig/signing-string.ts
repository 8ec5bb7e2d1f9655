/**
 * The draft-cavage signing string: one `name: value` line per signed header, in the order of the `headers`
 * parameter, joined by `\n` with no trailing newline. `(request-target)` is `<lower-case method> <path?query>`.
 * Header names are lower-cased in the string whatever their casing in `headers` (Orb lists them as
 * `Date`, `Digest`); values are trimmed, and repeated headers are joined with `, `.
 */
export interface SigningStringSource {
  method: string;
  /** Path and query exactly as on the request line. */
  target: string;
  /** Looks up a header value case-insensitively; `undefined` when the request lacks it. */
  header(name: string): string | undefined;
  created?: number;
  expires?: number;
}

export class MissingSignedHeaderError extends Error {
  constructor(readonly headerName: string) {
    super(`signed header ${headerName} is missing from the request`);
  }
}

export function buildSigningString(headers: readonly string[], source: SigningStringSource): string {
  const lines: string[] = [];
  for (const listed of headers) {
    const name = listed.toLowerCase();
    switch (name) {
      case '(request-target)':
        lines.push(`(request-target): ${source.method.toLowerCase()} ${source.target}`);
        break;
      case '(created)':
      case '(expires)': {
        const value = name === '(created)' ? source.created : source.expires;
        if (value === undefined) throw new MissingSignedHeaderError(name);
        lines.push(`${name}: ${value}`);
        break;
      }
      default: {
        const value = source.header(name);
        if (value === undefined) throw new MissingSignedHeaderError(name);
        lines.push(`${name}: ${value.trim()}`);
      }
    }
  }
  return lines.join('\n');
}

/** Header lookup over Node's `IncomingHttpHeaders` (lower-case keys; `string[]` for repeated headers). */
export function incomingHeaderLookup(
  headers: Record<string, string | string[] | undefined>,
): (name: string) => string | undefined {
  return (name) => {
    const value = headers[name];
    if (value === undefined) return undefined;
    return Array.isArray(value) ? value.map((v) => v.trim()).join(', ') : value;
  };
}

/** Header lookup over a plain outbound header record whose keys may have any casing. */
export function recordHeaderLookup(headers: Record<string, string>): (name: string) => string | undefined {
  const lower = new Map(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));
  return (name) => lower.get(name);
}
