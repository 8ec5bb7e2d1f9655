import { decode as cborDecode, encode as cborEncode } from 'cborg';
import { decodeMultibaseMultihash, multibaseDecode, multibaseEncode, multibaseMultihash } from './multibase.js';
import { SHA2_256 } from './multihash.js';

/**
 * Hashlinks (IETF draft-sporny-hashlink): `hl:<resource hash>[:<metadata>]`, where the resource hash is the
 * multibase (`u`) SHA2-256 multihash of the content and the metadata is multibase (`u`) CBOR of the map
 * `{15: [url, ...]}` (key 0x0f = links), definite-length as Orb encodes it (`a1 0f 8N ...`).
 */
export interface Hashlink {
  /** `uEi...` multibase multihash of the content. */
  resourceHash: string;
  /** Locations where the content may be fetched (may be empty). */
  links: string[];
}

const LINKS_KEY = 15;

export function hashlinkMetadata(links: readonly string[]): string {
  return multibaseEncode(cborEncode(new Map<number, readonly string[]>([[LINKS_KEY, links]])), 'base64url');
}

export function decodeHashlinkMetadata(metadata: string): string[] {
  let decoded: unknown;
  try {
    decoded = cborDecode(multibaseDecode(metadata), { useMaps: true });
  } catch (error) {
    throw new TypeError(`invalid hashlink metadata: ${(error as Error).message}`, { cause: error });
  }
  if (!(decoded instanceof Map)) throw new TypeError('invalid hashlink metadata: not a CBOR map');
  const links: unknown = decoded.get(LINKS_KEY);
  if (links === undefined) return [];
  if (!Array.isArray(links) || !links.every((l): l is string => typeof l === 'string')) {
    throw new TypeError('invalid hashlink metadata: links must be an array of strings');
  }
  return links;
}

/** Builds `hl:<hash>` of the content, with link metadata when links are given. */
export function createHashlink(content: Uint8Array | string, links: readonly string[] = []): string {
  return formatHashlink({ resourceHash: multibaseMultihash(content), links: [...links] });
}

export function formatHashlink(link: Hashlink): string {
  return link.links.length === 0
    ? `hl:${link.resourceHash}`
    : `hl:${link.resourceHash}:${hashlinkMetadata(link.links)}`;
}

/** Parses and validates `hl:<hash>[:<metadata>]`; the hash must be a SHA2-256 multihash. */
export function parseHashlink(text: string): Hashlink {
  const parts = text.split(':');
  if (parts[0] !== 'hl' || parts.length < 2 || parts.length > 3) throw new TypeError(`invalid hashlink '${text}'`);
  const resourceHash = parts[1] as string;
  let code: number;
  try {
    code = decodeMultibaseMultihash(resourceHash).code;
  } catch (error) {
    throw new TypeError(`invalid hashlink resource hash: ${(error as Error).message}`, { cause: error });
  }
  if (code !== SHA2_256) throw new TypeError('hashlink resource hash must be a sha2-256 multihash');
  return { resourceHash, links: parts.length === 3 ? decodeHashlinkMetadata(parts[2] as string) : [] };
}

export function isHashlink(text: string): boolean {
  try {
    parseHashlink(text);
    return true;
  } catch {
    return false;
  }
}

/** Whether `content` hashes to the hashlink's resource hash. */
export function hashlinkMatches(text: string, content: Uint8Array | string): boolean {
  return parseHashlink(text).resourceHash === multibaseMultihash(content);
}
