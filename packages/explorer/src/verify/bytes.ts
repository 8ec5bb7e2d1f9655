import { base58btc } from 'multiformats/bases/base58';

/**
 * Byte helpers that run in the page and in node alike (WebCrypto, atob/btoa, DecompressionStream): the
 * common kit's encodings are built on node's Buffer, zlib and crypto, which a browser bundle cannot carry.
 * The unit tests hold every helper equal to the common kit's function on the same real inputs.
 */
const encoder = new TextEncoder();
const decoder = new TextDecoder('utf-8', { fatal: true });

export function utf8(text: string): Uint8Array {
  return encoder.encode(text);
}

export function text(bytes: Uint8Array): string {
  return decoder.decode(bytes);
}

export async function sha256(data: Uint8Array): Promise<Uint8Array> {
  return new Uint8Array(await crypto.subtle.digest('SHA-256', data as BufferSource));
}

export function concat(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0));
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}

export function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((byte, index) => byte === b[index]);
}

export function base64Encode(bytes: Uint8Array): string {
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary);
}

/** Standard base64 (padded); throws on anything else. */
export function base64Decode(encoded: string): Uint8Array {
  if (!/^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/.test(encoded))
    throw new TypeError('not base64');
  return Uint8Array.from(atob(encoded), (char) => char.charCodeAt(0));
}

export function base64UrlEncode(bytes: Uint8Array): string {
  return base64Encode(bytes).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

/** Unpadded base64url, strict as the node reads it. */
export function base64UrlDecode(encoded: string): Uint8Array {
  if (!/^[A-Za-z0-9_-]*$/.test(encoded) || encoded.length % 4 === 1) throw new TypeError('not base64url');
  const padded = encoded.replace(/-/g, '+').replace(/_/g, '/');
  return base64Decode(padded + '='.repeat((4 - (padded.length % 4)) % 4));
}

/** `u` + base64url of the SHA2-256 multihash: the anchor hashes and hashlink resource hashes of did:node. */
export async function multibaseMultihash(data: Uint8Array): Promise<string> {
  return `u${base64UrlEncode(concat(new Uint8Array([0x12, 0x20]), await sha256(data)))}`;
}

/** Bytes of a multibase base58btc (`z…`) text: Ed25519Signature2020 proof values and `publicKeyMultibase`. */
export function base58btcDecode(encoded: string): Uint8Array {
  return base58btc.decode(encoded);
}

/** The resource hash of a hashlink `hl:<hash>[:<metadata>]`. */
export function hashlinkHash(hashlink: string): string {
  const parts = hashlink.split(':');
  if (parts[0] !== 'hl' || parts.length < 2 || parts.length > 3 || !parts[1]?.startsWith('uEi'))
    throw new TypeError(`'${hashlink}' is not a hashlink`);
  return parts[1];
}

/** Decompressed data URIs larger than this are refused, as the node refuses them. */
const MAX_DECODED = 32 * 1024 * 1024;

async function gunzip(bytes: Uint8Array): Promise<Uint8Array> {
  const stream = new Blob([bytes as BlobPart]).stream().pipeThrough(new DecompressionStream('gzip'));
  const reader = stream.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.length;
    if (size > MAX_DECODED) throw new RangeError('the data URI decompresses to more than 32 MiB');
    chunks.push(value);
  }
  return concat(...chunks);
}

/** The content of a linkset part's data URI: gzip + base64, or form-escaped JSON (as Orb writes them). */
export async function decodeDataUri(uri: string): Promise<Uint8Array> {
  const gzip = 'data:application/gzip;base64,';
  const json = 'data:application/json,';
  if (uri.startsWith(gzip)) return gunzip(base64Decode(uri.slice(gzip.length)));
  if (uri.startsWith(json)) return utf8(decodeURIComponent(uri.slice(json.length).replace(/\+/g, ' ')));
  throw new TypeError('not a data URI of the kinds an anchor linkset uses');
}
