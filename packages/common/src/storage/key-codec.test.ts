import { describe, expect, it } from 'vitest';
import { afterPrefix, KeyBuilder, readString, readValue } from './key-codec.js';
import type { IndexValue } from './types.js';

/** The contract's order, written independently of the encoding: numbers < strings < booleans. */
function reference(a: IndexValue, b: IndexValue): number {
  const rank = (v: IndexValue) => (typeof v === 'number' ? 0 : typeof v === 'string' ? 1 : 2);
  if (rank(a) !== rank(b)) return rank(a) - rank(b);
  if (typeof a === 'number' && typeof b === 'number') return a === b ? 0 : a < b ? -1 : 1;
  if (typeof a === 'boolean') return Number(a) - Number(b as boolean);
  const ca = [...(a as string)].map((c) => c.codePointAt(0)!);
  const cb = [...(b as string)].map((c) => c.codePointAt(0)!);
  for (let i = 0; i < Math.min(ca.length, cb.length); i++) if (ca[i] !== cb[i]) return ca[i]! - cb[i]!;
  return ca.length - cb.length;
}

const enc = (...values: IndexValue[]): Buffer => {
  const b = new KeyBuilder(4);
  for (const v of values) b.value(v);
  return b.build();
};

/** A small deterministic PRNG, so failures reproduce. */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

const SAMPLE: IndexValue[] = [
  -Number.MAX_VALUE,
  -1e21,
  -2,
  -1.5,
  -Number.MIN_VALUE,
  0,
  Number.MIN_VALUE,
  1e-9,
  1,
  2,
  10,
  2 ** 53,
  1e21,
  Number.MAX_VALUE,
  '',
  '\u0000',
  '\u0000\u0000',
  '\u0001',
  ' ',
  '0',
  '10',
  '9',
  'A',
  'Z',
  'a',
  'a\u0000',
  'a\u0000b',
  'ab',
  'b',
  'é',
  'ÿ',
  'Ā',
  '\ud7ff',
  '\ue000',
  '\uffff',
  '😀',
  '𝔸',
  false,
  true,
];

describe('ordered key encoding', () => {
  it('orders single values as the contract says', () => {
    for (const a of SAMPLE) {
      for (const b of SAMPLE) {
        expect(Math.sign(Buffer.compare(enc(a), enc(b))), `${JSON.stringify(a)} vs ${JSON.stringify(b)}`).toBe(
          Math.sign(reference(a, b)),
        );
      }
    }
  });

  it('orders tuples lexicographically by component', () => {
    const next = rng(42);
    const pick = () => SAMPLE[Math.floor(next() * SAMPLE.length)]!;
    for (let i = 0; i < 5_000; i++) {
      const a = [pick(), pick(), pick()].slice(0, 1 + Math.floor(next() * 3));
      const b = [pick(), pick(), pick()].slice(0, 1 + Math.floor(next() * 3));
      let expected = 0;
      for (let j = 0; j < Math.min(a.length, b.length) && expected === 0; j++) expected = reference(a[j]!, b[j]!);
      if (expected === 0) expected = a.length - b.length;
      expect(Math.sign(Buffer.compare(enc(...a), enc(...b))), JSON.stringify([a, b])).toBe(Math.sign(expected));
    }
  });

  it('bounds every key with a given prefix by prefix + FF', () => {
    for (const a of SAMPLE) {
      const prefix = enc('idx', a);
      for (const b of SAMPLE) {
        const k = enc('idx', a, b, 'key');
        expect(Buffer.compare(k, prefix)).toBeGreaterThan(0);
        expect(Buffer.compare(k, afterPrefix(prefix))).toBeLessThan(0);
      }
    }
  });

  it('encodes 0 and -0 alike (JSON cannot tell them apart)', () => {
    expect(enc(-0)).toEqual(enc(0));
  });

  it('decodes what it encodes', () => {
    for (const v of SAMPLE) {
      const k = enc(v, 'tail\u0000key');
      const first = readValue(k, 0);
      expect(Object.is(first.value, v) || first.value === v).toBe(true);
      expect(readString(k, first.end)).toEqual({ value: 'tail\u0000key', end: k.length });
    }
  });

  it('refuses to decode corrupt keys', () => {
    expect(() => readValue(Buffer.from([0x99]), 0)).toThrow(/unknown component tag/);
    expect(() => readString(Buffer.from([0x20, 0x61]), 0)).toThrow(/unterminated/);
    expect(() => readString(Buffer.from([0x20, 0x61, 0x00, 0x05, 0x00, 0x01]), 0)).toThrow(/bad escape/);
    expect(() => readString(enc(1), 0)).toThrow(/expected a string/);
    expect(() => readValue(Buffer.from([0x10, 1, 2]), 0)).toThrow(/truncated/);
  });
});
