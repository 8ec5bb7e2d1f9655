/**
 * JSON text exactly as Go's `json.Marshal` writes a decoded `map[string]interface{}`: compact, object keys
 * sorted by their UTF-8 bytes, `<`, `>`, `&`, U+2028 and U+2029 escaped as `\u00XX` / `\u20XX`, and other
 * control characters as `\n`, `\r`, `\t` or `\u00XX`. The Go Sidetree verifier re-marshals a JWS header this
 * way and checks the signature over the result, so headers we sign must already be in this form.
 */
export function goJsonMarshal(value: unknown): string {
  if (value === null) return 'null';
  switch (typeof value) {
    case 'string':
      return goJsonString(value);
    case 'boolean':
      return value ? 'true' : 'false';
    case 'number':
      if (!Number.isFinite(value)) throw new TypeError('JSON cannot represent a non-finite number');
      // Go formats float64 like ES number-to-string (exponent below 1e-6 and from 1e21), except -0.
      return Object.is(value, -0) ? '-0' : String(value);
    case 'object':
      if (Array.isArray(value)) return `[${value.map(goJsonMarshal).join(',')}]`;
      return `{${Object.entries(value as Record<string, unknown>)
        .filter(([, member]) => member !== undefined)
        .sort(([a], [b]) => Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8')))
        .map(([key, member]) => `${goJsonString(key)}:${goJsonMarshal(member)}`)
        .join(',')}}`;
    default:
      throw new TypeError(`JSON cannot represent a ${typeof value}`);
  }
}

const SHORT_ESCAPES: Readonly<Record<string, string>> = {
  '"': '\\"',
  '\\': '\\\\',
  '\n': '\\n',
  '\r': '\\r',
  '\t': '\\t',
};

function goJsonString(text: string): string {
  // Lone surrogates cannot be UTF-8; a UTF-8 round trip turns them into U+FFFD, as Go writes them.
  const wellFormed = Buffer.from(text, 'utf8').toString('utf8');
  const escape = (c: string): string => SHORT_ESCAPES[c] ?? `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;
  // eslint-disable-next-line no-control-regex
  return `"${wellFormed.replace(/["\\\u0000-\u001f<>&\u2028\u2029]/g, escape)}"`;
}
