import { formatDateTimeStamp } from '@anchor/common/jsonld';

/**
 * The validity period of a credential (VC Data Model 1.1 `issuanceDate` / `expirationDate`, 2.0
 * `validFrom` / `validUntil`; a credential may carry both pairs) against a time, with an allowance for
 * clocks that disagree. Each answers the problem in words, or undefined when the check passes.
 */
export interface ValidityTime {
  /** Epoch ms the credential is checked at (now, or the time a verifier asked for). */
  at: number;
  /** How far either clock may be off, ms. */
  skewMs: number;
}

/** The `expiration` check: no `expirationDate` / `validUntil` before the time (less the allowance). */
export function expirationProblem(credential: Record<string, unknown>, time: ValidityTime): string | undefined {
  for (const field of ['expirationDate', 'validUntil']) {
    const when = dateOf(credential, field);
    if (typeof when === 'string') return when;
    if (when !== undefined && when + time.skewMs < time.at)
      return `the credential expired at ${String(credential[field])} (${field}; checked at ${stamp(time.at)})`;
  }
  return undefined;
}

/** The `validFrom` check: no `issuanceDate` / `validFrom` after the time (plus the allowance). */
export function validFromProblem(credential: Record<string, unknown>, time: ValidityTime): string | undefined {
  for (const field of ['issuanceDate', 'validFrom']) {
    const when = dateOf(credential, field);
    if (typeof when === 'string') return when;
    if (when !== undefined && when - time.skewMs > time.at)
      return `the credential is not valid before ${String(credential[field])} (${field}; checked at ${stamp(time.at)})`;
  }
  return undefined;
}

/** The field as epoch ms, undefined when absent, or the problem when it is not a date-time. */
function dateOf(credential: Record<string, unknown>, field: string): number | string | undefined {
  const value = credential[field];
  if (value === undefined) return undefined;
  const ms = typeof value === 'string' ? Date.parse(value) : Number.NaN;
  return Number.isNaN(ms) ? `${field} is not a date-time: ${JSON.stringify(value)}` : ms;
}

function stamp(ms: number): string {
  return formatDateTimeStamp(new Date(ms));
}
