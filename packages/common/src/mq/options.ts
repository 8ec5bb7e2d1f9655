/**
 * Queue defaults (Orb's: pool 5, 30 attempts, backoff 2 s x 1.5 up to 1 min), their validation,
 * and the one redelivery rule both adapters apply when a handler fails.
 */
import { badRequest, errorMessage, isRetryable } from '../errors/index.js';
import { MAX_DELAY_MS } from './message.js';
import type { BackoffPolicy, DeadLetterReason, SubscribeOptions } from './types.js';

export interface QueueDefaults {
  /** Consumer pool size of a subscription that does not set one. */
  concurrency: number;
  /** Deliveries of a message before it is dead-lettered. */
  maxAttempts: number;
  backoff: BackoffPolicy;
}

export const DEFAULT_QUEUE_DEFAULTS: QueueDefaults = Object.freeze({
  concurrency: 5,
  maxAttempts: 30,
  backoff: Object.freeze({ initialMs: 2_000, multiplier: 1.5, maxMs: 60_000 }),
});

/** Largest pool: the AMQP prefetch count is a 16-bit field. */
export const MAX_CONCURRENCY = 65_535;

export type QueueOptions = Partial<Omit<QueueDefaults, 'backoff'>> & { backoff?: Partial<BackoffPolicy> };

function checkBackoff(b: BackoffPolicy, where: string): BackoffPolicy {
  const { initialMs, multiplier, maxMs } = b;
  if (!Number.isFinite(initialMs) || initialMs < 0)
    throw badRequest(`${where}: backoff.initialMs must be a non-negative number`);
  if (!Number.isFinite(multiplier) || multiplier < 1)
    throw badRequest(`${where}: backoff.multiplier must be a number >= 1`);
  if (!Number.isFinite(maxMs) || maxMs < initialMs)
    throw badRequest(`${where}: backoff.maxMs must be a number >= backoff.initialMs`);
  return { initialMs, multiplier, maxMs };
}

function checkCounts(concurrency: unknown, maxAttempts: unknown, where: string): void {
  if (!Number.isInteger(concurrency) || (concurrency as number) < 1 || (concurrency as number) > MAX_CONCURRENCY) {
    throw badRequest(`${where}: concurrency must be an integer from 1 to ${MAX_CONCURRENCY}`);
  }
  if (!Number.isInteger(maxAttempts) || (maxAttempts as number) < 1)
    throw badRequest(`${where}: maxAttempts must be an integer >= 1`);
}

export function resolveQueueDefaults(options: QueueOptions = {}): QueueDefaults {
  const d = DEFAULT_QUEUE_DEFAULTS;
  const resolved = {
    concurrency: options.concurrency ?? d.concurrency,
    maxAttempts: options.maxAttempts ?? d.maxAttempts,
    backoff: checkBackoff({ ...d.backoff, ...options.backoff }, 'queue options'),
  };
  checkCounts(resolved.concurrency, resolved.maxAttempts, 'queue options');
  return resolved;
}

export function resolveSubscribeOptions(defaults: QueueDefaults, options: SubscribeOptions = {}): QueueDefaults {
  const resolved = {
    concurrency: options.concurrency ?? defaults.concurrency,
    maxAttempts: options.maxAttempts ?? defaults.maxAttempts,
    backoff: options.backoff ? checkBackoff(options.backoff, 'subscribe options') : defaults.backoff,
  };
  checkCounts(resolved.concurrency, resolved.maxAttempts, 'subscribe options');
  checkDelays(options.delays);
  return resolved;
}

/** Wait before redelivering a message whose delivery number `attempt` (1-based) failed. */
export function backoffDelay(policy: BackoffPolicy, attempt: number): number {
  return Math.min(policy.maxMs, Math.round(policy.initialMs * policy.multiplier ** (attempt - 1)));
}

export type FailureOutcome =
  /** `delayMs` is the wait (backoff + jitter); `backoffMs` the backoff alone, which names the AMQP delay queue. */
  | { kind: 'retry'; delayMs: number; backoffMs: number; nextAttempt: number }
  | { kind: 'dead-letter'; reason: DeadLetterReason; error: string };

/** A redelivery waits its backoff plus a random part of this share of it, or of `MIN_REDELIVERY_JITTER_MS`. */
export const REDELIVERY_JITTER = 0.1;
export const MIN_REDELIVERY_JITTER_MS = 100;

/**
 * The wait before a redelivery: the backoff plus a random part of the jitter (`REDELIVERY_JITTER` of the
 * backoff, at least `MIN_REDELIVERY_JITTER_MS`); no backoff means no wait. Messages that failed together (a
 * peer or a database down, two services handing each other's messages back on a shared namespace) would
 * otherwise come back together, in the same order, every time.
 */
export function redeliveryDelay(backoffMs: number, random: () => number = Math.random): number {
  if (backoffMs <= 0) return 0;
  const jitter = Math.max(MIN_REDELIVERY_JITTER_MS, Math.round(backoffMs * REDELIVERY_JITTER));
  return Math.min(MAX_DELAY_MS, backoffMs + Math.floor(random() * jitter));
}

/** What happens to a message whose handler threw `error` on delivery number `attempt`. */
export function failureOutcome(error: unknown, attempt: number, policy: QueueDefaults): FailureOutcome {
  if (!isRetryable(error)) return { kind: 'dead-letter', reason: 'non-retryable', error: errorMessage(error) };
  if (attempt >= policy.maxAttempts) return { kind: 'dead-letter', reason: 'max-attempts', error: errorMessage(error) };
  const backoffMs = backoffDelay(policy.backoff, attempt);
  return { kind: 'retry', delayMs: redeliveryDelay(backoffMs), backoffMs, nextAttempt: attempt + 1 };
}

/**
 * The backoffs (ms, before jitter, ascending, distinct) a policy can ask for: those of deliveries 1 to
 * maxAttempts - 1 (the last failed delivery is dead-lettered, not retried). A geometric backoff capped at
 * maxMs gives only a handful; `round` maps each to the queue it goes to (AMQP: quantizeDelay).
 */
export function retryBackoffs(policy: QueueDefaults, round: (ms: number) => number = (ms) => ms): number[] {
  const out = new Set<number>();
  for (let attempt = 1; attempt < policy.maxAttempts; attempt++) {
    const ms = backoffDelay(policy.backoff, attempt);
    if (ms > 0) out.add(round(ms));
    // Capped (or not growing): every later attempt waits the same.
    if (ms >= policy.backoff.maxMs || policy.backoff.multiplier === 1) break;
  }
  return [...out].sort((a, b) => a - b);
}

/** Checks a subscription's `delays` option (the delays other processes publish to its topic with). */
export function checkDelays(delays: unknown, where = 'subscribe options'): number[] {
  if (delays === undefined) return [];
  if (!Array.isArray(delays)) throw badRequest(`${where}: delays must be an array of milliseconds`);
  for (const d of delays) {
    if (typeof d !== 'number' || !Number.isFinite(d) || d <= 0 || d > MAX_DELAY_MS)
      throw badRequest(`${where}: each of delays must be a number from 1 to ${MAX_DELAY_MS} (ms)`);
  }
  return delays as number[];
}
