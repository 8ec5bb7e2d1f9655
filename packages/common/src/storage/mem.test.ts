import { describe, expect, it } from 'vitest';
import { SortedKeys } from './mem.js';

function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

describe('mem sorted keys', () => {
  it('agrees with a plain sorted array through splits, merges and range walks', () => {
    const next = rng(7);
    const keys = new SortedKeys();
    const model: string[] = [];
    const randomKey = () =>
      String.fromCharCode(...Array.from({ length: 1 + Math.floor(next() * 4) }, () => 97 + Math.floor(next() * 6)));
    for (let step = 0; step < 6_000; step++) {
      const k = randomKey();
      const at = model.indexOf(k);
      if (next() < 0.7) {
        if (at < 0) {
          keys.insert(k);
          model.push(k);
          model.sort();
        }
      } else if (at >= 0) {
        keys.delete(k);
        model.splice(at, 1);
      }
      if (step % 97 === 0) {
        expect(keys.size).toBe(model.length);
        const lo = randomKey();
        const hi = randomKey();
        const inclusive = next() < 0.5;
        const forward = [...keys.forward(keys.seek(lo, false), hi, inclusive)];
        expect(forward).toEqual(model.filter((x) => x >= lo && (inclusive ? x <= hi : x < hi)));
        const backward = [...keys.backward(keys.seek(hi, inclusive), lo, !inclusive)];
        expect(backward).toEqual(
          model.filter((x) => (inclusive ? x <= hi : x < hi) && (inclusive ? x > lo : x >= lo)).reverse(),
        );
        expect(keys.rank(keys.seek(lo, true))).toBe(model.filter((x) => x <= lo).length);
      }
    }
    expect(keys.size).toBeGreaterThan(600);
  });
});
