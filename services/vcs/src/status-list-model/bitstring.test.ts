import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { LIST_SIZE, MAX_LIST_BYTES, bitAt, decodeList, emptyList, encodeList, statusAt, withBit } from './bitstring.js';
import { statusListRefusal } from './status-list.test-helpers.js';

describe('status list bits', () => {
  it('has 131,072 entries (16 KB), all zero', () => {
    const bits = emptyList();
    expect(bits).toHaveLength(16_384);
    expect(bits.every((byte) => byte === 0)).toBe(true);
    expect(LIST_SIZE).toBe(131_072);
  });

  it('puts index 0 in the most significant bit of the first byte, the last index in the least of the last', () => {
    expect(withBit(emptyList(), 0, true)[0]).toBe(0x80);
    expect(withBit(emptyList(), 7, true)[0]).toBe(0x01);
    expect(withBit(emptyList(), 8, true)[1]).toBe(0x80);
    const last = withBit(emptyList(), LIST_SIZE - 1, true);
    expect(last[16_383]).toBe(0x01);
    expect(bitAt(last, LIST_SIZE - 1)).toBe(true);
    expect(bitAt(last, LIST_SIZE - 8)).toBe(false);
  });

  it('reads a list written least significant bit first (vc-rest) differently, which is why the order matters', () => {
    const lsbFirstIndex0 = emptyList();
    lsbFirstIndex0[0] = 0x01; // where vc-rest put index 0
    expect(bitAt(lsbFirstIndex0, 0)).toBe(false);
    expect(bitAt(lsbFirstIndex0, 7)).toBe(true);
  });

  it('sets and clears without touching the input or the neighbouring bits', () => {
    const original = emptyList();
    const set = withBit(withBit(original, 42, true), 43, true);
    expect(original.every((byte) => byte === 0)).toBe(true);
    expect([41, 42, 43, 44].map((index) => bitAt(set, index))).toEqual([false, true, true, false]);
    const cleared = withBit(set, 42, false);
    expect([41, 42, 43, 44].map((index) => bitAt(cleared, index))).toEqual([false, false, true, false]);
    expect(withBit(cleared, 43, true)).toEqual(cleared); // setting a set bit changes nothing
  });

  it('reads multi-bit entries (statusSize) most significant bit first', () => {
    let bits = emptyList();
    bits = withBit(bits, 2 * 5, true); // entry 5 of width 2: bits 10 and 11 -> binary 10
    expect(statusAt(bits, 5, 2)).toBe(2);
    bits = withBit(bits, 11, true);
    expect(statusAt(bits, 5, 2)).toBe(3);
    expect(statusAt(bits, 4, 2)).toBe(0);
    expect(statusListRefusal(() => statusAt(bits, LIST_SIZE / 2, 2)).statusError).toBe('RANGE_ERROR');
    expect(statusListRefusal(() => statusAt(bits, 0, 9)).message).toMatch(/statusSize must be an integer from 1 to 8/);
  });

  it.each([-1, LIST_SIZE, 1.5, Number.NaN])('refuses index %s with RANGE_ERROR', (index) => {
    const error = statusListRefusal(() => bitAt(emptyList(), index));
    expect(error.statusError).toBe('RANGE_ERROR');
    expect(error.message).toMatch(/outside the list \(0 to 131071\)/);
    expect(statusListRefusal(() => withBit(emptyList(), index, true)).statusError).toBe('RANGE_ERROR');
  });

  it('refuses to create a list shorter than the minimum or not whole bytes', () => {
    expect(() => emptyList(8)).toThrow(RangeError);
    expect(() => emptyList(LIST_SIZE + 1)).toThrow(RangeError);
    expect(emptyList(LIST_SIZE * 2)).toHaveLength(32_768);
  });
});

describe('encodedList', () => {
  it('round-trips both formats; the Bitstring Status List one is multibase (u), the StatusList2021 one is not', () => {
    let bits = emptyList();
    for (const index of [0, 1, 4_095, 65_536, LIST_SIZE - 1]) bits = withBit(bits, index, true);
    const bitstring = encodeList(bits, 'BitstringStatusList');
    const statusList2021 = encodeList(bits, 'StatusList2021');
    expect(bitstring).toBe(`u${statusList2021}`);
    expect(statusList2021).toMatch(/^H4sI[A-Za-z0-9_-]+$/); // gzip magic, base64url, no padding
    expect(decodeList(bitstring, 'BitstringStatusList')).toEqual(bits);
    expect(decodeList(statusList2021, 'StatusList2021')).toEqual(bits);
  });

  it.each([
    ['not a string', 42, 'StatusList2021', /encodedList must be a non-empty string/],
    ['empty', '', 'StatusList2021', /encodedList must be a non-empty string/],
    [
      'without the multibase prefix',
      'H4sIAAAAAAAAA-3BMQEAAADCoPVPbQwfoAAAAAAAAAAAAAAAAAAAAIC3AYbSVKsAQAAA',
      'BitstringStatusList',
      /prefix "u"/,
    ],
    ['base58btc multibase', 'z3rGKb', 'BitstringStatusList', /\(prefix "u"\), not prefix "z"/],
    ['standard base64 characters', 'H4sI+AAA/AAA', 'StatusList2021', /not base64url/],
    ['padded base64url', 'uH4sIAA==', 'BitstringStatusList', /not base64url after its "u" prefix/],
    [
      'base64url that is not gzip',
      Buffer.from('not gzip at all').toString('base64url'),
      'StatusList2021',
      /not GZIP-compressed/,
    ],
    [
      'truncated gzip',
      gzipSync(Buffer.alloc(16_384)).subarray(0, 20).toString('base64url'),
      'StatusList2021',
      /not GZIP-compressed/,
    ],
  ] as const)('refuses %s', (_name, encoded, format, message) => {
    expect(statusListRefusal(() => decodeList(encoded, format)).message).toMatch(message);
  });

  it('refuses a list shorter than 131,072 entries with STATUS_LIST_LENGTH_ERROR, unless the caller lowers the bound', () => {
    const short = gzipSync(Buffer.alloc(16_383)).toString('base64url');
    const error = statusListRefusal(() => decodeList(short, 'StatusList2021'));
    expect(error.statusError).toBe('STATUS_LIST_LENGTH_ERROR');
    expect(error.message).toBe('the status list has 131064 entries, fewer than 131072');
    expect(decodeList(short, 'StatusList2021', { minEntries: 100_000 })).toHaveLength(16_383);
    // With 2-bit entries the same 16 KB hold only 65,536 entries.
    const twoBit = gzipSync(Buffer.alloc(16_384)).toString('base64url');
    expect(statusListRefusal(() => decodeList(twoBit, 'StatusList2021', { statusSize: 2 })).statusError).toBe(
      'STATUS_LIST_LENGTH_ERROR',
    );
  });

  it('refuses a list that expands beyond the size bound (a gzip bomb) without expanding it all', () => {
    const bomb = gzipSync(Buffer.alloc(MAX_LIST_BYTES + 1)).toString('base64url');
    expect(bomb.length).toBeLessThan(30_000);
    expect(statusListRefusal(() => decodeList(bomb, 'StatusList2021')).message).toMatch(
      /expands beyond 16777216 bytes/,
    );
  });
});
