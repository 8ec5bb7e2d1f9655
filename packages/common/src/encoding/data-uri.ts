import { gunzipSync, gzipSync } from 'node:zlib';
import { base64Decode, base64Encode } from './base64.js';

/**
 * Data URIs as Orb embeds linkset parts: gzip then standard base64
 * (`data:application/gzip;base64,H4sI...`), or form-escaped JSON (`data:application/json,%7B...`, escaped as
 * Go's url.QueryEscape does: only `A-Za-z0-9-_.~` kept, space as `+`).
 */
export type DataUriEncoding = 'gzip' | 'json';

const GZIP_MEDIA_TYPE = 'application/gzip;base64';
const JSON_MEDIA_TYPE = 'application/json';

/** Decompressed data URIs larger than this are refused (zip-bomb guard). */
export const MAX_DATA_URI_DECODED_BYTES = 32 * 1024 * 1024;

function queryEscape(text: string): string {
  return encodeURIComponent(text)
    .replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)
    .replace(/%20/g, '+');
}

function queryUnescape(text: string): string {
  return decodeURIComponent(text.replace(/\+/g, ' '));
}

export function encodeDataUri(content: Uint8Array | string, encoding: DataUriEncoding = 'gzip'): string {
  const bytes = typeof content === 'string' ? Buffer.from(content, 'utf8') : Buffer.from(content);
  if (encoding === 'gzip') return `data:${GZIP_MEDIA_TYPE},${base64Encode(gzipSync(bytes))}`;
  return `data:${JSON_MEDIA_TYPE},${queryEscape(bytes.toString('utf8'))}`;
}

export function decodeDataUri(uri: string, maxBytes: number = MAX_DATA_URI_DECODED_BYTES): Buffer {
  if (!uri.startsWith('data:')) throw new TypeError('not a data URI');
  const comma = uri.indexOf(',');
  if (comma < 0) throw new TypeError('no content in data URI');
  const mediaType = uri.slice(5, comma);
  const payload = uri.slice(comma + 1);
  if (mediaType === GZIP_MEDIA_TYPE) {
    let decoded: Buffer;
    try {
      decoded = gunzipSync(base64Decode(payload), { maxOutputLength: maxBytes });
    } catch (error) {
      throw new TypeError(`invalid gzip data URI: ${(error as Error).message}`, { cause: error });
    }
    return decoded;
  }
  if (mediaType === JSON_MEDIA_TYPE) {
    let text: string;
    try {
      text = queryUnescape(payload);
    } catch {
      throw new TypeError('invalid percent-encoding in data URI');
    }
    const bytes = Buffer.from(text, 'utf8');
    if (bytes.length > maxBytes) throw new TypeError('data URI content too large');
    return bytes;
  }
  throw new TypeError(`unsupported data URI media type '${mediaType}'`);
}

export function dataUriEncodingOf(uri: string): DataUriEncoding | undefined {
  if (uri.startsWith(`data:${GZIP_MEDIA_TYPE},`)) return 'gzip';
  if (uri.startsWith(`data:${JSON_MEDIA_TYPE},`)) return 'json';
  return undefined;
}
