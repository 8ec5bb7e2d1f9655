import canonicalizeJson from 'canonicalize';
import { describe, expect, it } from 'vitest';
import { canonicalize } from './jcs.js';

const library = (value: unknown): string => (canonicalizeJson as (input: unknown) => string)(value);

/** The output, or the error message: both paths must agree on which values are refused, and how. */
function outcome(canonicalise: (value: unknown) => string, value: unknown): string {
  try {
    return canonicalise(value);
  } catch (error) {
    return `refused: ${(error as Error).message}`;
  }
}

/** A deterministic pseudo-random source, so a failure can be replayed. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

const KEY_PARTS = [
  'a',
  'b',
  'B',
  '_',
  '1',
  '10',
  '9',
  'é',
  '€',
  '\u{1F600}',
  'key',
  'Key',
  '',
  ' ',
  '\u0000',
  '\u007f',
  '\uD800',
  '\uDFFF',
];
const NUMBERS = [
  0,
  -0,
  1,
  -1,
  1e21,
  1e-7,
  0.1,
  123.456,
  Number.MAX_SAFE_INTEGER,
  5e-324,
  -1.5e300,
  Number('333333333.33333329'),
];
const STRINGS = [
  '',
  'plain',
  'quote " and \\ backslash',
  'controls \u0001\n\t\u001f',
  'unicode é € \u{1F600}',
  '\u2028\u2029',
  '</script>',
  'lone \uD83D high',
  'lone \uDE00 low',
];

function randomValue(next: () => number, depth: number, sorted: boolean): unknown {
  const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)] as T;
  const kind = depth > 3 ? Math.floor(next() * 4) : Math.floor(next() * 6);
  switch (kind) {
    case 0:
      return pick(NUMBERS);
    case 1:
      return pick(STRINGS);
    case 2:
      return pick([true, false, null]);
    case 3:
      return Math.floor(next() * 1e6) / (1 + Math.floor(next() * 100));
    case 4:
      return Array.from({ length: Math.floor(next() * 4) }, () => randomValue(next, depth + 1, sorted));
    default: {
      const keys = [
        ...new Set(Array.from({ length: Math.floor(next() * 5) }, () => pick(KEY_PARTS) + pick(KEY_PARTS))),
      ];
      if (sorted) keys.sort();
      return Object.fromEntries(keys.map((key) => [key, randomValue(next, depth + 1, sorted)]));
    }
  }
}

describe('canonicalize (RFC 8785)', () => {
  it('matches the canonicalize package on generated values, keys in order or not', () => {
    for (const sorted of [true, false]) {
      const next = random(sorted ? 1 : 2);
      for (let i = 0; i < 5_000; i++) {
        const value = randomValue(next, 0, sorted);
        expect(outcome(canonicalize, value)).toBe(outcome(library, value));
      }
    }
  });

  it('sorts keys by UTF-16 code units, also integer-like keys that objects enumerate first', () => {
    expect(canonicalize({ b: 1, a: 2 })).toBe('{"a":2,"b":1}');
    expect(canonicalize({ 10: 'x', 9: 'y', b: 'z' })).toBe('{"10":"x","9":"y","b":"z"}');
    expect(canonicalize({ '\u{1F600}': 1, '\uFB33': 2 })).toBe('{"\u{1F600}":1,"\uFB33":2}');
  });

  it('passes the RFC 8785 example (section 3.2.3) through either path', () => {
    const input = JSON.parse(
      '{"numbers":[333333333.33333329,1E30,4.50,2e-3,0.000000000000000000000000001],"string":"\\u20ac$\\u000F\\u000aA\'\\u0042\\u0022\\u005c\\\\\\"\\/","literals":[null,true,false]}',
    ) as unknown;
    const expected =
      '{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],"string":"€$\\u000f\\nA\'B\\"\\\\\\\\\\"/"}';
    expect(canonicalize(input)).toBe(expected);
    expect(canonicalize(JSON.parse(expected))).toBe(expected);
  });

  it('leaves toJSON, undefined members, sparse arrays and deep values to the package', () => {
    const withToJson = { b: 1, a: { toJSON: () => ({ z: 1, y: 2 }) } };
    expect(canonicalize(withToJson)).toBe(library(withToJson));
    expect(canonicalize({ a: undefined, b: 1 })).toBe(library({ a: undefined, b: 1 }));
    // eslint-disable-next-line no-sparse-arrays
    expect(canonicalize([1, , 3])).toBe(library([1, , 3]));
    let deep: unknown = { z: 1, a: 2 };
    for (let i = 0; i < 100; i++) deep = { a: deep };
    expect(canonicalize(deep)).toBe(library(deep));
  });

  it('refuses what RFC 8785 cannot express', () => {
    expect(() => canonicalize({ a: Number.NaN })).toThrow(/NaN/);
    expect(() => canonicalize([Number.POSITIVE_INFINITY])).toThrow(/Infinity/);
    expect(() => canonicalize({ a: 'lone \uD800 surrogate' })).toThrow(/surrogate/i);
    expect(() => canonicalize({ 'lone \uDC00 key': 1 })).toThrow(/surrogate/i);
    expect(() => canonicalize(undefined)).toThrow(TypeError);
  });
});
