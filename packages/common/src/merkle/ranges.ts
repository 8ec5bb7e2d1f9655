import { badRequest } from '../errors/index.js';
import { HASH_SIZE, nodeHash } from './hash.js';

/**
 * The RFC 6962 proof recursions as lists of subtree ranges, and those ranges as perfect subtrees, so a
 * tree kept in a store (as hash tiles) answers proofs by reading O(log n) stored nodes instead of holding
 * every level in memory. Pure: the caller fetches the nodes and folds them.
 */

/** `MTH(D[start : start+size])`, a range the RFC recursion produces. */
export interface SubtreeRange {
  start: number;
  size: number;
}

/** A perfect subtree: 2^height leaves from leaf `index · 2^height` on. */
export interface NodeRef {
  height: number;
  index: number;
}

/** The ranges whose hashes are PATH(index, D[0:size]) of RFC 6962 §2.1.1, leaf to root. */
export function inclusionRanges(index: number, size: number): SubtreeRange[] {
  checkCount(size, 'tree size');
  if (!Number.isSafeInteger(index) || index < 0 || index >= size)
    throw badRequest(`leaf index ${String(index)} must be an integer below the tree size ${size}`);
  const ranges: SubtreeRange[] = [];
  const walk = (at: number, start: number, width: number): void => {
    if (width === 1) return;
    const k = splitPoint(width);
    if (at < k) {
      walk(at, start, k);
      ranges.push({ start: start + k, size: width - k });
    } else {
      walk(at - k, start + k, width - k);
      ranges.push({ start, size: k });
    }
  };
  walk(index, 0, size);
  return ranges;
}

/** The ranges whose hashes are PROOF(first, D[0:second]) of RFC 6962 §2.1.2; none when first is 0 or second. */
export function consistencyRanges(first: number, second: number): SubtreeRange[] {
  checkCount(second, 'second tree size');
  if (!Number.isSafeInteger(first) || first < 0 || first > second)
    throw badRequest(`first tree size ${String(first)} must be an integer between 0 and ${second}`);
  const ranges: SubtreeRange[] = [];
  const walk = (m: number, start: number, width: number, whole: boolean): void => {
    if (m === width) {
      if (!whole) ranges.push({ start, size: width });
      return;
    }
    const k = splitPoint(width);
    if (m <= k) {
      walk(m, start, k, whole);
      ranges.push({ start: start + k, size: width - k });
    } else {
      walk(m - k, start + k, width - k, false);
      ranges.push({ start, size: k });
    }
  };
  if (first > 0 && first < second) walk(first, 0, second, true);
  return ranges;
}

/**
 * The perfect subtrees of a range, left to right, largest first: its hash is `foldPerfectParts` of theirs.
 * The range must be RFC-shaped (its start a multiple of each part's width), as every range above is.
 */
export function perfectParts({ start, size }: SubtreeRange): NodeRef[] {
  const parts: NodeRef[] = [];
  let at = start;
  for (let rest = size; rest > 0;) {
    let height = 0;
    while (2 ** (height + 1) <= rest) height++;
    const width = 2 ** height;
    if (at % width !== 0) throw badRequest(`range ${start}+${size} is not aligned to its subtrees`);
    parts.push({ height, index: at / width });
    at += width;
    rest -= width;
  }
  return parts;
}

/** The hash of a range from its perfect parts' hashes (left to right): H(p0, H(p1, … pn)). */
export function foldPerfectParts(hashes: readonly Uint8Array[]): Buffer {
  if (hashes.length === 0) throw badRequest('a range holds at least one subtree');
  let folded: Buffer = Buffer.from(hashes[hashes.length - 1]!);
  for (let i = hashes.length - 2; i >= 0; i--) folded = nodeHash(hashes[i]!, folded);
  if (folded.length !== HASH_SIZE) throw badRequest(`subtree hashes must be ${HASH_SIZE} bytes`);
  return folded;
}

function checkCount(value: number, what: string): void {
  if (!Number.isSafeInteger(value) || value < 0) throw badRequest(`${what} ${String(value)} must be a count`);
}

/** The largest power of two strictly below `width` (width ≥ 2): the RFC's split point k. */
function splitPoint(width: number): number {
  // Doubling, not Math.log2: exact for every safe integer.
  let k = 1;
  while (k * 2 < width) k *= 2;
  return k;
}
