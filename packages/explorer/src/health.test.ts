import { describe, expect, it } from 'vitest';
import { healthSummary, isHealthy } from './health.js';

describe('healthSummary', () => {
  it("is the node's status alone when every component succeeds", () => {
    const body = { dbStatus: 'success', mqStatus: 'success', status: 'OK', currentTime: '2026-12-03T07:00:00Z' };
    expect(healthSummary(200, body)).toBe('OK');
    expect(isHealthy(healthSummary(200, body))).toBe(true);
  });

  it('names the components that are not success, healthy or not', () => {
    expect(healthSummary(200, { dbStatus: 'success', vctStatus: 'disabled', status: 'OK' })).toBe(
      'OK (vctStatus: disabled)',
    );
    const failing = healthSummary(503, { dbStatus: 'success', kmsStatus: 'kms unreachable', status: 'Unavailable' });
    expect(failing).toBe('Unavailable (kmsStatus: kms unreachable)');
    expect(isHealthy(failing)).toBe(false);
    expect(healthSummary(503, { dbStatus: 'down' })).toBe('Unavailable (dbStatus: down)');
  });

  it('says when the answer is no health report', () => {
    expect(healthSummary(502, 'Bad Gateway')).toBe('unknown (answered 502 without a health report)');
    expect(healthSummary(200, [1])).toBe('unknown (answered 200 without a health report)');
  });
});
