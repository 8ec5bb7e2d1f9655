import { randomBytes } from 'node:crypto';

/**
 * Base64 in the two alphabets the protocols use. Decoding is strict: Node's Buffer decoder silently skips
 * invalid characters, which would let two different strings name the same bytes, so inputs are checked
 * against the alphabet first (and, for base64url, must carry no padding, as Sidetree requires).
 */
const BASE64URL = /^[A-Za-z0-9_-]*$/;
const BASE64STD = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

export function base64UrlEncode(data: Uint8Array | string): string {
  return Buffer.from(typeof data === 'string' ? Buffer.from(data, 'utf8') : data).toString('base64url');
}

/** Decodes unpadded base64url; throws on any character outside the alphabet, on padding, or on an impossible length. */
export function base64UrlDecode(text: string): Buffer {
  if (!BASE64URL.test(text) || text.length % 4 === 1) throw new TypeError('invalid base64url encoding');
  return Buffer.from(text, 'base64url');
}

/** True when `text` is the canonical unpadded base64url encoding of some bytes (re-encoding gives it back). */
export function isCanonicalBase64Url(text: string): boolean {
  if (!BASE64URL.test(text) || text.length % 4 === 1) return false;
  return Buffer.from(text, 'base64url').toString('base64url') === text;
}

const BASE64URL_PADDED = /^(?:[A-Za-z0-9_-]{4})*(?:[A-Za-z0-9_-]{2}==|[A-Za-z0-9_-]{3}=)?$/;

/** Padded base64url (Go's `base64.URLEncoding`): what the kms's JSON carries for every binary field. */
export function base64UrlPaddedEncode(data: Uint8Array | string): string {
  const unpadded = base64UrlEncode(data);
  return unpadded + '='.repeat((4 - (unpadded.length % 4)) % 4);
}

/** Decodes padded base64url; throws on a missing or extra `=`, on the standard alphabet's `+` and `/`, and on any other character. */
export function base64UrlPaddedDecode(text: string): Buffer {
  if (!BASE64URL_PADDED.test(text)) throw new TypeError('invalid base64url encoding (padded base64url expected)');
  const bytes = Buffer.from(text, 'base64url');
  // Unused low bits of the last character must be zero, so one byte string has one encoding.
  if (base64UrlPaddedEncode(bytes) !== text) throw new TypeError('invalid base64url encoding (non-zero padding bits)');
  return bytes;
}

export function base64Encode(data: Uint8Array | string): string {
  return Buffer.from(typeof data === 'string' ? Buffer.from(data, 'utf8') : data).toString('base64');
}

/** Decodes padded standard base64 (the Go default for []byte in JSON); throws on anything else. */
export function base64Decode(text: string): Buffer {
  if (!BASE64STD.test(text)) throw new TypeError('invalid base64 encoding');
  return Buffer.from(text, 'base64');
}

/**
 * `bytes` random bytes as unpadded base64url, never starting with `-`: such ids and tokens are passed as
 * command-line values (`--kms-keystore <id>`), where a leading dash reads as an option in most parsers.
 */
export function randomBase64UrlId(bytes: number): string {
  for (;;) {
    const id = randomBytes(bytes).toString('base64url');
    if (!id.startsWith('-')) return id;
  }
}
