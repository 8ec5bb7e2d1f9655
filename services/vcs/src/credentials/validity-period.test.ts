import { describe, expect, it } from 'vitest';
import { expirationProblem, validFromProblem } from './validity-period.js';

const at = Date.parse('2026-06-01T12:00:00Z');
const time = { at, skewMs: 5 * 60_000 };

describe('validity period', () => {
  it('fails expirationDate and validUntil in the past, beyond the allowance only', () => {
    expect(expirationProblem({ expirationDate: '2026-06-01T11:50:00Z' }, time)).toBe(
      'the credential expired at 2026-06-01T11:50:00Z (expirationDate; checked at 2026-06-01T12:00:00Z)',
    );
    expect(expirationProblem({ validUntil: '2025-01-01T00:00:00Z' }, time)).toMatch(/expired at .* \(validUntil;/);
    expect(expirationProblem({ expirationDate: '2026-06-01T11:56:00Z' }, time)).toBeUndefined();
    expect(expirationProblem({ validUntil: '2030-01-01T00:00:00Z' }, time)).toBeUndefined();
    expect(expirationProblem({}, time)).toBeUndefined();
    // Both pairs may be present: each is checked.
    expect(
      expirationProblem({ expirationDate: '2030-01-01T00:00:00Z', validUntil: '2020-01-01T00:00:00Z' }, time),
    ).toMatch(/validUntil/);
  });

  it('fails issuanceDate and validFrom in the future, beyond the allowance only', () => {
    expect(validFromProblem({ issuanceDate: '2026-06-01T12:10:00Z' }, time)).toBe(
      'the credential is not valid before 2026-06-01T12:10:00Z (issuanceDate; checked at 2026-06-01T12:00:00Z)',
    );
    expect(validFromProblem({ validFrom: '2027-01-01T00:00:00Z' }, time)).toMatch(/\(validFrom;/);
    expect(validFromProblem({ issuanceDate: '2026-06-01T12:04:00Z' }, time)).toBeUndefined();
    expect(validFromProblem({ validFrom: '2020-01-01T00:00:00Z' }, { at, skewMs: 0 })).toBeUndefined();
    expect(validFromProblem({ issuanceDate: '2026-06-01T12:04:00Z' }, { at, skewMs: 0 })).toMatch(/not valid before/);
  });

  it('fails a date that is not one', () => {
    expect(expirationProblem({ validUntil: 17 }, time)).toBe('validUntil is not a date-time: 17');
    expect(validFromProblem({ issuanceDate: 'soon' }, time)).toBe('issuanceDate is not a date-time: "soon"');
  });
});
