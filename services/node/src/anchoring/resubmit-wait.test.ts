import { describe, expect, it } from 'vitest';
import { observerWaitMs, resubmitWaitMs } from './anchor-pipeline.js';

describe('resubmitWaitMs', () => {
  it('waits a minute before the first hand-over again, then twice as long each time, at most 15 minutes', () => {
    expect([0, 1, 2, 3, 4, 5, 6, 40].map(resubmitWaitMs)).toEqual([
      60_000, 120_000, 240_000, 480_000, 900_000, 900_000, 900_000, 900_000,
    ]);
  });

  it('waits the longest for a claimed anchor, and three times the observed processing time for an unclaimed one', () => {
    expect(observerWaitMs(0, true, undefined)).toBe(900_000);
    expect(observerWaitMs(3, true, 1_000)).toBe(900_000);
    // Quick observers: the schedule as it is.
    expect([0, 1, 2].map((resubmits) => observerWaitMs(resubmits, false, 2_000))).toEqual([60_000, 120_000, 240_000]);
    expect(observerWaitMs(0, false, undefined)).toBe(60_000);
    // Anchors taking 80 s from published to processed: the first hand-over after 240 s, never past 15 min.
    expect(observerWaitMs(0, false, 80_000)).toBe(240_000);
    expect(observerWaitMs(2, false, 80_000)).toBe(240_000);
    expect(observerWaitMs(0, false, 3_600_000)).toBe(900_000);
  });
});
