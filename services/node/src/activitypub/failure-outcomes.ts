import { isRetryable } from '@anchor/common/errors';

/**
 * How failures are sorted into "try again" and "give up" (orb.md §3.3 notes, §3.4 "deliver"): a refusal
 * (4xx, a permanent error) is final at once; anything retryable (network errors, 5xx, a store briefly
 * down) comes back with the queue's backoff until the last attempt.
 */

/** What becomes of one delivery attempt: dropped on a refusal, retried, dead-lettered after the last attempt. */
export type DeliveryOutcome = 'delivered' | 'retry' | 'dropped' | 'dead';

export function deliveryOutcome(error: unknown, attempt: number, maxAttempts: number): DeliveryOutcome {
  if (error === undefined) return 'delivered';
  if (!isRetryable(error)) return 'dropped';
  return attempt >= maxAttempts ? 'dead' : 'retry';
}

/**
 * What becomes of a received activity whose handler failed: `retry` it, store it in the inbox as `refused`
 * (permanent: malformed, not allowed; never handled twice), or, `failed` (retryable, but this was the last
 * attempt), keep it pending as a dead letter for an operator to replay or discard.
 */
export type HandlingOutcome = 'handled' | 'retry' | 'refused' | 'failed';

export function handlingOutcome(error: unknown, finalAttempt: boolean): HandlingOutcome {
  if (error === undefined) return 'handled';
  if (!isRetryable(error)) return 'refused';
  return finalAttempt ? 'failed' : 'retry';
}
