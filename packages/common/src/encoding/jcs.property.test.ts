import canonicalizeJson from 'canonicalize';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { AppError } from '../errors/index.js';
import { canonicalize } from './jcs.js';

/** Property tests of the JCS canonicaliser with a fixed seed (the same cases every run). */
const RUNS = { seed: 20261126, numRuns: 400 };

const library = (value: unknown): string => (canonicalizeJson as (input: unknown) => string)(value);

/** Any UTF-16 code unit, lone surrogates included: what a client's `\uXXXX` escapes can produce. */
const anyCodeUnit = fc.integer({ min: 0, max: 0xffff }).map((unit) => String.fromCharCode(unit));

/** JSON values with every kind of string the canonicaliser must order and escape: ASCII, BMP and astral. */
const jsonValues = fc.oneof(
  fc.jsonValue({ stringUnit: 'grapheme' }),
  fc.jsonValue({ stringUnit: 'binary' }),
  fc.jsonValue(),
);

/** RFC 8785 writes -0 as 0, so that is what a parse of its output gives back. */
function withoutNegativeZero(value: unknown): unknown {
  if (Object.is(value, -0)) return 0;
  if (Array.isArray(value)) return value.map(withoutNegativeZero);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, member]) => [key, withoutNegativeZero(member)]));
  }
  return value;
}

describe('canonicalize (property, fixed seed)', () => {
  it('equals the canonicalize package on arbitrary JSON values, in any key order', () => {
    fc.assert(
      fc.property(jsonValues, (value) => {
        expect(canonicalize(value)).toBe(library(value));
      }),
      RUNS,
    );
  });

  it('is idempotent: the canonical form of a parsed canonical form is itself (and the package agrees)', () => {
    fc.assert(
      fc.property(jsonValues, (value) => {
        const canonical = canonicalize(value);
        const reparsed: unknown = JSON.parse(canonical);
        expect(canonicalize(reparsed)).toBe(canonical);
        expect(library(reparsed)).toBe(canonical);
      }),
      RUNS,
    );
  });

  it('parses back to a value deep-equal to its input', () => {
    fc.assert(
      fc.property(jsonValues, (value) => {
        expect(JSON.parse(canonicalize(value))).toStrictEqual(withoutNegativeZero(value));
      }),
      RUNS,
    );
  });

  it('on strings and keys of any code units (lone surrogates too) answers the package or an AppError bad_request', () => {
    const text = fc.string({ unit: anyCodeUnit, maxLength: 8 });
    const values = fc.letrec((tie) => ({
      value: fc.oneof(
        { depthSize: 'small' },
        text,
        fc.integer(),
        fc.array(tie('value'), { maxLength: 4 }),
        fc.dictionary(text, tie('value'), { maxKeys: 4 }),
      ),
    })).value;
    fc.assert(
      fc.property(values, (value) => {
        let expected: string | undefined;
        try {
          expected = library(value);
        } catch {
          expected = undefined;
        }
        try {
          expect(canonicalize(value)).toBe(expected);
        } catch (error) {
          if (expected !== undefined) throw error;
          expect(error).toBeInstanceOf(AppError);
          expect((error as AppError).code).toBe('bad_request');
        }
      }),
      RUNS,
    );
  });
});
