import { badRequest } from '@anchor/common/errors';

/**
 * The origin's time check of a witness proof (orb.md §2.5 "Origin side"): it must be created after the
 * credential was issued and before the Offer's endTime, each with the clock skew allowed. A proof outside
 * that window was not made for this Offer (or the witness's clock is off): refused.
 */
export function checkProofWindow(input: {
  witness: string;
  created: string;
  issuanceDate: string;
  offerEndTime: number;
  maxClockSkewMs: number;
}): void {
  const created = Date.parse(input.created);
  const issued = Date.parse(input.issuanceDate);
  const skew = input.maxClockSkewMs;
  if (!(created >= issued - skew && created <= input.offerEndTime + skew)) {
    throw badRequest(
      `the proof of ${input.witness} was created at ${input.created}, outside the offer's window [${input.issuanceDate} - ${new Date(input.offerEndTime).toISOString()}] ± ${skew} ms`,
    );
  }
}
