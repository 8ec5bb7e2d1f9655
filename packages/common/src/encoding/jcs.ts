import canonicalizeJson from 'canonicalize';

/**
 * JSON Canonicalization Scheme (RFC 8785), through the maintained `canonicalize` package: sorted keys
 * (UTF-16 order), no whitespace, minimal string escaping, ES6 number formatting. Every Sidetree hash,
 * anchor linkset hash and transparency-log payload depends on these exact bytes.
 */
export function canonicalize(value: unknown): string {
  const text = (canonicalizeJson as (input: unknown) => string | undefined)(value);
  if (text === undefined) throw new TypeError('value cannot be canonicalized as JSON');
  return text;
}

export function canonicalBytes(value: unknown): Buffer {
  return Buffer.from(canonicalize(value), 'utf8');
}
