import { describe, expect, it } from 'vitest';
import { anchoringRate, cutSize } from './batch-writer.js';

describe('cut size', () => {
  it('keeps the maximum until a rate is known, and on a store that anchors thousands a second', () => {
    expect(cutSize(undefined, 10_000)).toBe(10_000);
    expect(cutSize(Number.NaN, 10_000)).toBe(10_000);
    // LMDB: 2,000 operations from cut to processed in about a second.
    expect(cutSize(2, 10_000)).toBe(10_000);
    expect(cutSize(2, 300)).toBe(300);
  });

  it('cuts what the observed rate anchors in 15 s on a slow store, at least 100', () => {
    // 20 a second: 300 in 15 s.
    expect(cutSize(0.02, 10_000)).toBe(300);
    // FerretDB under load: 3 a second would be 45; a cut holds 100 still.
    expect(cutSize(0.003, 10_000)).toBe(100);
    expect(cutSize(0, 10_000)).toBe(100);
    expect(cutSize(0.003, 40)).toBe(40);
  });

  it('measures operations over the time from cut to processed of the batches that say both', () => {
    expect(anchoringRate([])).toBeUndefined();
    expect(
      anchoringRate([
        { createdAt: 1_000, processedAt: 11_000, operationCount: 50 },
        { createdAt: 2_000, processedAt: 32_000, operationCount: 150 },
        // Nothing to learn from: never processed, empty, or a clock that went back.
        { createdAt: 3_000, operationCount: 10 },
        { createdAt: 3_000, processedAt: 4_000, operationCount: 0 },
        { createdAt: 5_000, processedAt: 4_000, operationCount: 10 },
      ]),
    ).toBe(200 / 40_000);
  });
});
