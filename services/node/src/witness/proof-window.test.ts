import { AppError } from '@anchor/common/errors';
import { describe, expect, it } from 'vitest';
import { checkProofWindow } from './proof-window.js';

const ISSUED = '2026-11-22T10:00:00.000Z';
const END = Date.parse('2026-11-22T10:10:00.000Z');
const SKEW = 60_000;
const check = (created: string) => () =>
  checkProofWindow({
    witness: 'https://w.example.com/services/node',
    created,
    issuanceDate: ISSUED,
    offerEndTime: END,
    maxClockSkewMs: SKEW,
  });

describe('checkProofWindow', () => {
  it('accepts proofs created between issuance and the Offer end, each within the clock skew', () => {
    for (const created of [
      '2026-11-22T10:00:00.000Z',
      '2026-11-22T09:59:00.000Z',
      '2026-11-22T10:05:00.000Z',
      '2026-11-22T10:11:00.000Z',
    ])
      expect(check(created)).not.toThrow();
  });

  it('refuses proofs created before issuance or after the end beyond the skew, with 400', () => {
    for (const created of ['2026-11-22T09:58:59.999Z', '2026-11-22T10:11:00.001Z', 'not a date']) {
      expect(check(created)).toThrow(AppError);
      expect(check(created)).toThrow(/outside the offer's window/);
    }
  });
});
