import { readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { MULTIBASE_ENCODINGS, multibaseDecode, multibaseEncode, type MultibaseEncoding } from './multibase.js';

/**
 * The multiformats multibase test vectors (vectors/multibase/README.md), for every base this module speaks;
 * the other bases of the files are counted and named as not applicable.
 */
const CLAIMED: readonly MultibaseEncoding[] = MULTIBASE_ENCODINGS;
const FILES = ['basic', 'leading_zero', 'two_leading_zeros', 'case_insensitivity'] as const;

interface Vector {
  file: (typeof FILES)[number];
  base: string;
  bytes: Buffer;
  encoded: string;
}

/** `name, "value"` lines; the first gives the input, with `\x00` escapes as the files write them. */
function vectorsOf(file: (typeof FILES)[number]): Vector[] {
  const rows = readFileSync(new URL(`./vectors/multibase/${file}.csv`, import.meta.url), 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => {
      const match = /^([^,]+), "(.*)"$/.exec(line.trim());
      if (!match) throw new Error(`${file}.csv: unreadable line ${JSON.stringify(line)}`);
      return [match[1] as string, match[2] as string] as const;
    });
  const [header, ...vectors] = rows;
  if (!header) throw new Error(`${file}.csv is empty`);
  const bytes = Buffer.from(
    header[1].replace(/\\x([0-9a-f]{2})/gi, (_, hex: string) => String.fromCharCode(parseInt(hex, 16))),
    'latin1',
  );
  return vectors.map(([base, encoded]) => ({ file, base, bytes, encoded }));
}

const all = FILES.flatMap(vectorsOf);
const claimed = all.filter((vector) => (CLAIMED as readonly string[]).includes(vector.base));
const notApplicable = [...new Set(all.filter((vector) => !claimed.includes(vector)).map((vector) => vector.base))];
let ran = 0;

describe('multiformats multibase test vectors', () => {
  afterAll(() => {
    console.log(
      `multibase: ${ran} of ${all.length} vectors ran${notApplicable.length ? `; not applicable (bases the module does not speak): ${notApplicable.join(', ')}` : ''}`,
    );
  });

  it('has vectors for every base the module claims', () => {
    for (const base of CLAIMED)
      expect(claimed.filter((vector) => vector.base === base).length, base).toBeGreaterThanOrEqual(3);
  });

  it.each(claimed.map((vector) => [vector.file, vector.base, vector] as const))('%s %s', (file, base, vector) => {
    expect(multibaseDecode(vector.encoded)).toEqual(vector.bytes);
    // The case-insensitivity file holds deliberately non-canonical spellings: decode only.
    if (file !== 'case_insensitivity')
      expect(multibaseEncode(vector.bytes, base as MultibaseEncoding)).toBe(vector.encoded);
    ran++;
  });

  it('decodes the standard alphabet under m and M, and refuses it under u', () => {
    const bytes = Buffer.from([0xfb, 0xff, 0xbf]);
    expect(multibaseDecode('m+/+/')).toEqual(bytes);
    expect(multibaseDecode('M+/+/')).toEqual(bytes);
    expect(multibaseDecode('u-_-_')).toEqual(bytes);
    expect(() => multibaseDecode('u+/+/')).toThrow(/base64url/);
    expect(() => multibaseDecode('m-_-_')).toThrow();
  });

  it('names what it cannot decode', () => {
    expect(() => multibaseDecode('')).toThrow('empty multibase string');
    expect(() => multibaseDecode('\u0000abc')).toThrow(`unsupported multibase prefix '\u0000'`);
    expect(() => multibaseDecode('?abc')).toThrow(`unsupported multibase prefix '?'`);
  });
});
