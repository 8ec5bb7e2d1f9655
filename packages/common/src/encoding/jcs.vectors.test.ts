import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { canonicalBytes, canonicalize } from './jcs.js';

/**
 * cyberphone's json-canonicalization test data (the RFC 8785 author's): input files against their canonical
 * output (as text and as hex bytes), and the ES6 number-serialisation sequence, generated here by the
 * algorithm its README specifies and checked against the SHA-256 it publishes. Source and licence:
 * vectors/jcs/README.md.
 */
const VECTORS = new URL('./vectors/jcs/', import.meta.url);
const read = (path: string): string => readFileSync(new URL(path, VECTORS), 'utf8');
const files = readdirSync(new URL('input/', VECTORS)).filter((name) => name.endsWith('.json'));

/** The number sequence's parameters and published hashes, from the data's README (see vectors/jcs/README.md). */
const numbers = JSON.parse(read('es6-numbers.json')) as {
  staticU64s: string[];
  serialStart: string;
  serialCount: number;
  sha256ByLines: Record<string, { sha256: string; bytes: number } | undefined>;
};

/** The first lines of the number sequence whose hash the README publishes, at a size a unit test affords. */
const NUMBER_LINES = 100_000;

let ran = 0;

describe('cyberphone json-canonicalization test data (RFC 8785)', () => {
  afterAll(() => {
    console.log(
      `jcs: ${ran} vectors ran (${files.length} input/output pairs, each also as hex bytes, and ${NUMBER_LINES} ES6 numbers)`,
    );
  });

  it('has the six input files', () => {
    expect(files).toHaveLength(6);
  });

  it.each(files)('%s', (name) => {
    const value: unknown = JSON.parse(read(`input/${name}`));
    expect(canonicalize(value)).toBe(read(`output/${name}`));
    const hex = read(`outhex/${name.replace(/\.json$/, '.txt')}`)
      .trim()
      .split(/\s+/)
      .join('');
    expect(canonicalBytes(value).toString('hex')).toBe(hex);
    ran += 2;
  });

  it(`serialises the first ${NUMBER_LINES} numbers of the ES6 test sequence as published`, () => {
    const expected = numbers.sha256ByLines[String(NUMBER_LINES)]?.sha256;
    expect(expected).toMatch(/^[0-9a-f]{64}$/);
    const hash = createHash('sha256');
    for (const bits of numberSequence(NUMBER_LINES)) {
      const value = new Float64Array(new BigUint64Array([bits]).buffer)[0] as number;
      hash.update(`${bits.toString(16)},${canonicalize(value)}\n`);
    }
    expect(hash.digest('hex')).toBe(expected);
    ran += NUMBER_LINES;
  });
});

/**
 * The sequence as the data's README specifies it: the static edge cases, then consecutive values from the
 * smallest normal double up, then doubles read from a SHA-256 chain over a zero block (finite, non-zero
 * ones only), as raw IEEE-754 bit patterns.
 */
function* numberSequence(count: number): Generator<bigint> {
  let produced = 0;
  for (const hex of numbers.staticU64s) {
    if (produced++ === count) return;
    yield BigInt(`0x${hex}`);
  }
  const serialStart = BigInt(`0x${numbers.serialStart}`);
  for (let i = 0n; i < BigInt(numbers.serialCount); i++) {
    if (produced++ === count) return;
    yield serialStart + i;
  }
  let block = Buffer.alloc(32);
  let pending: bigint[] = [];
  while (produced < count) {
    if (pending.length === 0) {
      block = createHash('sha256').update(block).digest();
      pending = [...new BigUint64Array(Uint8Array.from(block).buffer)];
    }
    const bits = pending.shift() as bigint;
    const value = new Float64Array(new BigUint64Array([bits]).buffer)[0] as number;
    if (value === 0 || !Number.isFinite(value)) continue;
    produced++;
    yield bits;
  }
}
