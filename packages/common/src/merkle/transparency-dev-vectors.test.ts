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

const hash = (text: string | null): Buffer => Buffer.from(text ?? '', 'base64');
const inclusion = vectorsOf<InclusionVector>('inclusion');
const consistency = vectorsOf<ConsistencyVector>('consistency');
const ran = { inclusion: 0, consistency: 0 };

describe('transparency-dev/merkle proof vectors', () => {
  afterAll(() => {
    console.log(
      `merkle: ${ran.inclusion + ran.consistency} transparency-dev vectors ran (${ran.inclusion} inclusion, ${ran.consistency} consistency); ` +
        'none left out',
    );
  });

  it('has both sets whole: 6 valid and 92 invalid proofs each', () => {
    for (const set of [inclusion, consistency]) {
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
});
