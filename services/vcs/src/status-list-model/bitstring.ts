import { gunzipSync, gzipSync } from 'node:zlib';
import { badRequest } from '@anchor/common/errors';
import { statusListError } from './status-errors.js';

/** The two list formats: StatusList2021 (VC 1.1) and the W3C Bitstring Status List (VC 2.0). */
export type ListFormat = 'StatusList2021' | 'BitstringStatusList';
export const LIST_FORMATS: readonly ListFormat[] = ['StatusList2021', 'BitstringStatusList'];

/** Entries of a list this service creates, and the fewest a list it reads may have (both specs: 16 KB). */
export const LIST_SIZE = 131_072;

/**
 * The most bytes a received `encodedList` may expand to (16 MiB, 2^27 entries): gzip compresses a list of
 * zeros about 1000:1, so an unbounded expansion would let a small list credential exhaust memory.
 */
export const MAX_LIST_BYTES = 16 * 1024 * 1024;

/** A list of `entries` zero bits. */
export function emptyList(entries: number = LIST_SIZE): Uint8Array {
  if (!Number.isInteger(entries) || entries < LIST_SIZE || entries % 8 !== 0 || entries / 8 > MAX_LIST_BYTES)
    throw new RangeError(
      `a status list has a multiple of 8 entries from ${LIST_SIZE} to ${MAX_LIST_BYTES * 8}, not ${entries}`,
    );
  return new Uint8Array(entries / 8);
}

/**
 * The bit at `index`. Index 0 is the most significant (left-most) bit of the first byte, as both specifications
 * require (docs/adr/0009-status-list-bit-order.md).
 */
export function bitAt(bits: Uint8Array, index: number): boolean {
  checkIndex(bits, index, 1);
  return ((bits[index >> 3] as number) & (0x80 >> (index & 7))) !== 0;
}

/** A copy of the list with the bit at `index` set or cleared; the input is not changed. */
export function withBit(bits: Uint8Array, index: number, value: boolean): Uint8Array {
  checkIndex(bits, index, 1);
  const copy = Uint8Array.from(bits);
  const mask = 0x80 >> (index & 7);
  copy[index >> 3] = value ? (copy[index >> 3] as number) | mask : (copy[index >> 3] as number) & ~mask;
  return copy;
}

/**
 * The value of entry `index` of a list whose entries are `statusSize` bits wide (Bitstring Status List
 * `statusSize`, e.g. 2 for four status messages), read most significant bit first.
 */
export function statusAt(bits: Uint8Array, index: number, statusSize = 1): number {
  if (!Number.isInteger(statusSize) || statusSize < 1 || statusSize > 8)
    throw badRequest(`statusSize must be an integer from 1 to 8, not ${String(statusSize)}`);
  checkIndex(bits, index, statusSize);
  let value = 0;
  for (let bit = index * statusSize; bit < (index + 1) * statusSize; bit += 1)
    value = (value << 1) | (((bits[bit >> 3] as number) >> (7 - (bit & 7))) & 1);
  return value;
}

/**
 * `encodedList`: the GZIP of the list, base64url without padding; for the Bitstring Status List a multibase
 * string (prefix `u`). Node's gzip writes the spec examples' bytes exactly (no file name, mtime 0).
 */
export function encodeList(bits: Uint8Array, format: ListFormat): string {
  const encoded = gzipSync(bits).toString('base64url');
  return format === 'BitstringStatusList' ? `u${encoded}` : encoded;
}

export interface DecodeListOptions {
  /** The fewest entries the list must have (STATUS_LIST_LENGTH_ERROR below it). Default LIST_SIZE. */
  minEntries?: number;
  /** Entry width in bits (Bitstring Status List `statusSize`). Default 1. */
  statusSize?: number;
}

/** The list an `encodedList` carries; a bad encoding or a short list is a `bad_request` saying which. */
export function decodeList(encoded: unknown, format: ListFormat, options: DecodeListOptions = {}): Uint8Array {
  if (typeof encoded !== 'string' || encoded.length === 0) throw badRequest('encodedList must be a non-empty string');
  let text = encoded;
  if (format === 'BitstringStatusList') {
    if (!encoded.startsWith('u'))
      throw badRequest(
        `encodedList must be multibase base64url (prefix "u"), not prefix ${JSON.stringify(encoded[0])}`,
      );
    text = encoded.slice(1);
  }
  if (!/^[A-Za-z0-9_-]+$/.test(text) || text.length % 4 === 1)
    throw badRequest(`encodedList is not base64url${format === 'BitstringStatusList' ? ' after its "u" prefix' : ''}`);
  let bits: Buffer;
  try {
    bits = gunzipSync(Buffer.from(text, 'base64url'), { maxOutputLength: MAX_LIST_BYTES });
  } catch (error) {
    const tooLong = (error as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE';
    throw badRequest(
      tooLong ? `encodedList expands beyond ${MAX_LIST_BYTES} bytes` : 'encodedList is not GZIP-compressed data',
      { cause: error },
    );
  }
  const minEntries = options.minEntries ?? LIST_SIZE;
  const entries = Math.floor((bits.length * 8) / (options.statusSize ?? 1));
  if (entries < minEntries)
    throw statusListError(
      'STATUS_LIST_LENGTH_ERROR',
      `the status list has ${entries} entries, fewer than ${minEntries}`,
    );
  return new Uint8Array(bits.buffer, bits.byteOffset, bits.length);
}

function checkIndex(bits: Uint8Array, index: number, statusSize: number): void {
  const entries = Math.floor((bits.length * 8) / statusSize);
  if (!Number.isSafeInteger(index) || index < 0 || index >= entries)
    throw statusListError(
      'RANGE_ERROR',
      `status list index ${String(index)} is outside the list (0 to ${entries - 1})`,
    );
}
