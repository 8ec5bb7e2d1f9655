import { describe, expect, it } from 'vitest';
import { resubmitWaitMs } from './anchor-pipeline.js';

describe('resubmitWaitMs', () => {
  it('waits a minute before the first hand-over again, then twice as long each time, at most 15 minutes', () => {
    expect([0, 1, 2, 3, 4, 5, 6, 40].map(resubmitWaitMs)).toEqual([
      60_000, 120_000, 240_000, 480_000, 900_000, 900_000, 900_000, 900_000,
    ]);
  });
});
