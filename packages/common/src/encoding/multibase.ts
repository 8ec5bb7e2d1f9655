import { bases } from 'multiformats/basics';
import { base58btc } from 'multiformats/bases/base58';
import { base64UrlDecode, base64UrlEncode } from './base64.js';
import { decodeMultihash, multihash, SHA2_256, type DecodedMultihash } from './multihash.js';

/**
 * Multibase: every base of the multiformats registry that `multiformats` implements, through its codecs, but
 * `u` (base64url, no padding), which is what did:node anchor hashes and hashlinks use and goes through the
 * strict Buffer codec (no padding, no stray characters). `z` (base58btc) is what `publicKeyMultibase` and
 * Ed25519Signature2020 `proofValue` use. The identity "base" (raw bytes behind a NUL) is left out.
 */
export type MultibaseEncoding = Exclude<keyof typeof bases, 'identity'>;

interface Codec {
  prefix: string;
  encode(data: Uint8Array): string;
  decode(text: string): Uint8Array;
}

const base64urlStrict: Codec = {
  prefix: 'u',
  encode: (data) => `u${base64UrlEncode(data)}`,
  decode: (text) => base64UrlDecode(text.slice(1)),
};

const { identity: _identity, ...library } = bases;
const CODECS: Record<MultibaseEncoding, Codec> = { ...library, base64url: base64urlStrict };
const BY_PREFIX = new Map<string, Codec>(Object.values(CODECS).map((codec) => [codec.prefix, codec]));

/** Every encoding this module speaks, e.g. for a test or an option's allowed values. */
export const MULTIBASE_ENCODINGS = Object.keys(CODECS) as MultibaseEncoding[];

export function multibaseEncode(data: Uint8Array, encoding: MultibaseEncoding = 'base64url'): string {
  return CODECS[encoding].encode(data);
}

export function multibaseDecode(text: string): Buffer {
  const first = text.codePointAt(0);
  if (first === undefined) throw new TypeError('empty multibase string');
  const prefix = String.fromCodePoint(first);
  const codec = BY_PREFIX.get(prefix);
  if (!codec) throw new TypeError(`unsupported multibase prefix '${prefix}'`);
  return Buffer.from(codec.decode(text));
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
