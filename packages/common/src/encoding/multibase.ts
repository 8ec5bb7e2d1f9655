import { base32 } from 'multiformats/bases/base32';
import { base58btc } from 'multiformats/bases/base58';
import { base64url } from 'multiformats/bases/base64';
import { base64UrlDecode, base64UrlEncode } from './base64.js';
import { decodeMultihash, multihash, SHA2_256, type DecodedMultihash } from './multihash.js';

/**
 * Multibase, via `multiformats` for the alphabets that need a codec (base58btc, base32). The `u` prefix
 * (base64url, no padding) is what did:node anchor hashes and hashlinks use; `z` (base58btc) is what
 * `publicKeyMultibase` and Ed25519Signature2020 `proofValue` use.
 */
export type MultibaseEncoding = 'base64url' | 'base58btc' | 'base32';

export function multibaseEncode(data: Uint8Array, encoding: MultibaseEncoding = 'base64url'): string {
  switch (encoding) {
    case 'base64url':
      return `u${base64UrlEncode(data)}`;
    case 'base58btc':
      return base58btc.encode(data);
    case 'base32':
      return base32.encode(data);
  }
}

export function multibaseDecode(text: string): Buffer {
  const prefix = text[0];
  switch (prefix) {
    case 'u':
      return base64UrlDecode(text.slice(1));
    case 'z':
      return Buffer.from(base58btc.decode(text));
    case 'b':
      return Buffer.from(base32.decode(text));
    case 'm':
    case 'M':
    case 'U':
      return Buffer.from(base64url.decode(`u${text.slice(1)}`));
    default:
      throw new TypeError(`unsupported multibase prefix '${prefix ?? ''}'`);
  }
}

/** base58btc without the multibase prefix (publicKeyBase58). */
export function base58Encode(data: Uint8Array): string {
  return base58btc.baseEncode(data);
}

export function base58Decode(text: string): Buffer {
  return Buffer.from(base58btc.baseDecode(text));
}

/** `u` + base64url(SHA2-256 multihash of data): the resource hash of a CAS object / anchor (`uEi...`). */
export function multibaseMultihash(data: Uint8Array | string, code: number = SHA2_256): string {
  return multibaseEncode(multihash(data, code), 'base64url');
}

export function decodeMultibaseMultihash(text: string): DecodedMultihash {
  return decodeMultihash(multibaseDecode(text));
}

/** The "unknown anchor" placeholder: multibase base64url of the empty identity multihash (`00 00`). */
export const UNPUBLISHED_ANCHOR = 'uAAA';
