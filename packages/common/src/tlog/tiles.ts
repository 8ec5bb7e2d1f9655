import { badRequest } from '../errors/index.js';
import type { MerkleTree } from '../merkle/index.js';

/**
 * C2SP tlog-tiles (c2sp.org/tlog-tiles) paths and entry bundles. A tile at level L holds up to 256 hashes of
 * the tree's nodes at height 8·L; tile N covers those nodes 256·N to 256·N+255, and one that the tree does not
 * fill yet is partial, `.p/<width>`. Full tiles never change, so both are immutable (a partial tile's path
 * names its width). Indexes are written in groups of three digits, all but the last prefixed `x`.
 */
export const TILE_HEIGHT = 8;
export const TILE_WIDTH = 2 ** TILE_HEIGHT;

export interface TileRef {
  /** 0 to 63; `entries` for an entry bundle. */
  level: number | 'entries';
  index: number;
  /** 1 to 256; 256 is a full tile. */
  width: number;
}

/** `tile/<L>/<N>[.p/<W>]` or `tile/entries/<N>[.p/<W>]`. */
export function tilePath({ level, index, width }: TileRef): string {
  if (level !== 'entries' && (!Number.isInteger(level) || level < 0 || level > 63))
    throw badRequest(`tile level ${level} must be 0 to 63`);
  if (!Number.isSafeInteger(index) || index < 0) throw badRequest(`tile index ${index} must be a count`);
  if (!Number.isInteger(width) || width < 1 || width > TILE_WIDTH)
    throw badRequest(`tile width ${width} must be 1 to 256`);
  return `tile/${level}/${indexPath(index)}${width === TILE_WIDTH ? '' : `.p/${width}`}`;
}

function indexPath(index: number): string {
  const groups: string[] = [];
  let rest = index;
  do {
    groups.unshift(String(rest % 1000).padStart(3, '0'));
    rest = Math.floor(rest / 1000);
  } while (rest > 0);
  return groups.map((group, i) => (i < groups.length - 1 ? `x${group}` : group)).join('/');
}

const TILE_PATH = /^tile\/(entries|0|[1-9][0-9]?)\/((?:x[0-9]{3}\/)*)([0-9]{3})(?:\.p\/([1-9][0-9]{0,2}))?$/;

/** Reads a tile path; undefined when it is none (a path the log answers 404 for). */
export function parseTilePath(path: string): TileRef | undefined {
  const match = TILE_PATH.exec(path);
  if (!match) return undefined;
  const [, rawLevel = '', prefix = '', last = '', rawWidth] = match;
  const groups = [
    ...prefix
      .split('/')
      .filter(Boolean)
      .map((group) => group.slice(1)),
    last,
  ];
  // One spelling per index: no leading zero group.
  if (groups.length > 1 && groups[0] === '000') return undefined;
  const index = groups.reduce((value, group) => value * 1000 + Number(group), 0);
  const level = rawLevel === 'entries' ? 'entries' : Number(rawLevel);
  const width = rawWidth === undefined ? TILE_WIDTH : Number(rawWidth);
  if (
    (level !== 'entries' && level > 63) ||
    (rawWidth !== undefined && width >= TILE_WIDTH) ||
    !Number.isSafeInteger(index)
  )
    return undefined;
  return { level, index, width };
}

/**
 * The width tile `index` at `level` has in a tree of `size` leaves (entry bundles: level 0's), or 0 when that
 * tree has no such tile yet.
 */
export function tileWidth(size: number, level: number | 'entries', index: number): number {
  const nodes = Math.floor(size / TILE_WIDTH ** (level === 'entries' ? 0 : level));
  return Math.max(0, Math.min(TILE_WIDTH, nodes - index * TILE_WIDTH));
}

/**
 * A hash tile's contents: the `width` hashes at height 8·level from node 256·index on. The tree must hold
 * them complete (`tileWidth` says which tiles a tree of a size has); they never change once it does.
 */
export function hashTile(tree: MerkleTree, { level, index, width }: TileRef): Buffer {
  if (level === 'entries') throw badRequest('an entry bundle holds entries, not hashes');
  return tree.nodes(level * TILE_HEIGHT, index * TILE_WIDTH, width);
}

/** An entry bundle: each entry as a big-endian 16-bit length and its bytes. */
export function encodeEntryBundle(entries: readonly Uint8Array[]): Buffer {
  if (entries.length === 0 || entries.length > TILE_WIDTH) throw badRequest('an entry bundle holds 1 to 256 entries');
  const parts: Buffer[] = [];
  for (const entry of entries) {
    if (entry.length > 0xffff) throw badRequest(`an entry of ${entry.length} bytes is over the bundle's 65,535`);
    const length = Buffer.alloc(2);
    length.writeUInt16BE(entry.length);
    parts.push(length, Buffer.from(entry));
  }
  return Buffer.concat(parts);
}

export function decodeEntryBundle(bundle: Uint8Array): Buffer[] {
  const bytes = Buffer.from(bundle.buffer, bundle.byteOffset, bundle.byteLength);
  const entries: Buffer[] = [];
  let at = 0;
  while (at < bytes.length) {
    if (at + 2 > bytes.length) throw badRequest('an entry bundle ends inside a length');
    const length = bytes.readUInt16BE(at);
    if (at + 2 + length > bytes.length) throw badRequest('an entry bundle ends inside an entry');
    entries.push(bytes.subarray(at + 2, at + 2 + length));
    at += 2 + length;
  }
  if (entries.length > TILE_WIDTH) throw badRequest('an entry bundle holds at most 256 entries');
  return entries;
}
