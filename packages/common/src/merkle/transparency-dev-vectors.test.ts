import { readdirSync, readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { verifyConsistency, verifyInclusion } from './index.js';

/**
 * transparency-dev/merkle's proof verification vectors (vectors/transparency-dev/README.md): every file says
 * whether verification must fail (`wantErr`); the verifiers here answer false where Go returns an error.
 */
const ROOT = new URL('./vectors/transparency-dev/', import.meta.url);

interface InclusionVector {
  leafIdx: number;
  treeSize: number;
  root: string | null;
  leafHash: string | null;
  proof: string[] | null;
  desc: string;
  wantErr: boolean;
}

interface ConsistencyVector {
  size1: number;
  size2: number;
  root1: string | null;
  root2: string | null;
  proof: string[] | null;
  desc: string;
  wantErr: boolean;
}

/** Every JSON file below `kind/`, as [relative path, parsed vector]. */
function vectorsOf<T>(kind: string): [string, T][] {
  const base = new URL(`${kind}/`, ROOT);
  return (readdirSync(base, { recursive: true }) as string[])
    .filter((path) => path.endsWith('.json'))
    .sort()
    .map((path) => [path, JSON.parse(readFileSync(new URL(path, base), 'utf8')) as T]);
}

/**
 * Vectors whose expectation this module deliberately does not share (also listed in the vectors' README).
 * Go's verifier compares equal-size roots as opaque bytes; here a root that is not a 32-byte SHA-256 is
 * malformed input and always false, so the "don't care" placeholder roots cannot verify.
 */
const NOT_APPLICABLE = new Map([
  [
    'additional/sizes-are-equal-one-and-proof-is-empty.json',
    'placeholder 12-byte roots are malformed here, whatever the sizes',
  ],
]);

const hash = (text: string | null): Buffer => Buffer.from(text ?? '', 'base64');
const inclusion = vectorsOf<InclusionVector>('inclusion');
const consistency = vectorsOf<ConsistencyVector>('consistency').filter(([path]) => !NOT_APPLICABLE.has(path));
const notApplicable = vectorsOf<ConsistencyVector>('consistency').filter(([path]) => NOT_APPLICABLE.has(path));
const ran = { inclusion: 0, consistency: 0 };

describe('transparency-dev/merkle proof vectors', () => {
  afterAll(() => {
    console.log(
      `merkle: ${ran.inclusion + ran.consistency} transparency-dev vectors ran (${ran.inclusion} inclusion, ${ran.consistency} consistency); ` +
        `${notApplicable.length} not applicable: ${[...NOT_APPLICABLE].map(([path, why]) => `${path} (${why})`).join('; ')}`,
    );
  });

  it('has both sets whole: 6 valid and 92 invalid proofs each', () => {
    for (const set of [inclusion, [...consistency, ...notApplicable]]) {
      expect(set.filter(([, v]) => !v.wantErr)).toHaveLength(6);
      expect(set.filter(([, v]) => v.wantErr)).toHaveLength(92);
    }
  });

  it.each(inclusion.map(([path, vector]) => [path, vector.desc, vector] as const))(
    'inclusion %s (%s)',
    (_path, _desc, v) => {
      expect(verifyInclusion(v.leafIdx, v.treeSize, hash(v.leafHash), (v.proof ?? []).map(hash), hash(v.root))).toBe(
        !v.wantErr,
      );
      ran.inclusion++;
    },
  );

  it.each(consistency.map(([path, vector]) => [path, vector.desc, vector] as const))(
    'consistency %s (%s)',
    (_path, _desc, v) => {
      expect(verifyConsistency(v.size1, v.size2, hash(v.root1), hash(v.root2), (v.proof ?? []).map(hash))).toBe(
        !v.wantErr,
      );
      ran.consistency++;
    },
  );

  it.each(notApplicable.map(([path, vector]) => [path, vector] as const))(
    'not applicable: consistency %s answers false, by design',
    (path, v) => {
      expect(NOT_APPLICABLE.get(path)).toBeDefined();
      expect(hash(v.root1).length).not.toBe(32);
      expect(verifyConsistency(v.size1, v.size2, hash(v.root1), hash(v.root2), (v.proof ?? []).map(hash))).toBe(false);
    },
  );
});
