import { unauthorized } from '../errors/index.js';

/** `Sun, 06 Nov 1994 08:49:37 GMT` (RFC 9110 IMF-fixdate), the form Orb's signer writes. */
export function httpDate(date: Date): string {
  return date.toUTCString();
}

const IMF_FIXDATE =
  /^(Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d{2} (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \d{4} \d{2}:\d{2}:\d{2} GMT$/;

/**
 * Rejects a `Date` outside `now ± windowMs`: without a window any captured request is replayable forever. Only IMF-fixdate is accepted: signers write that form,
 * and a single accepted form keeps parsing unambiguous.
 */
export function checkDateFreshness(value: string | undefined, now: number, windowMs: number): void {
  if (value === undefined) throw unauthorized('the Date header is missing');
  const trimmed = value.trim();
  const time = IMF_FIXDATE.test(trimmed) ? Date.parse(trimmed) : Number.NaN;
  if (Number.isNaN(time))
    throw unauthorized(`the Date header is not an HTTP date (IMF-fixdate): ${JSON.stringify(trimmed.slice(0, 40))}`);
  checkWithinWindow('Date header', time, now, windowMs);
}

/**
 * The same window for an RFC 9421 signature's `created` parameter (Unix seconds), which plays the part the
 * signed `Date` plays for draft-cavage: one replay bound for both schemes.
 */
export function checkCreatedFreshness(createdSeconds: number, now: number, windowMs: number): void {
  checkWithinWindow('signature created time', createdSeconds * 1000, now, windowMs);
}

function checkWithinWindow(what: string, time: number, now: number, windowMs: number): void {
  const skewSeconds = Math.round((time - now) / 1000);
  if (time < now - windowMs)
    throw unauthorized(`stale ${what}: ${-skewSeconds}s old, the limit is ${windowMs / 1000}s`);
  if (time > now + windowMs)
    throw unauthorized(`${what} is ${skewSeconds}s in the future, the limit is ${windowMs / 1000}s`);
}
