import { describe, expect, it } from 'vitest';
import { AppError, permanent, transient } from '../errors/index.js';
import { delayQueue, quantizeDelay } from './amqp-topology.js';
import {
  checkTopic,
  deadLetterHeaders,
  HEADERS,
  MAX_DELAY_MS,
  prepareMessage,
  visibleHeaders,
  withFirstFailure,
} from './message.js';
import {
  backoffDelay,
  DEFAULT_QUEUE_DEFAULTS,
  failureOutcome,
  MIN_REDELIVERY_JITTER_MS,
  redeliveryDelay,
  REDELIVERY_JITTER,
  resolveQueueDefaults,
  resolveSubscribeOptions,
  retryBackoffs,
} from './options.js';

describe('redelivery policy', () => {
  it('backs off like Orb: 2 s x 1.5 per attempt, capped at 1 min', () => {
    const delays = Array.from({ length: 12 }, (_, i) => backoffDelay(DEFAULT_QUEUE_DEFAULTS.backoff, i + 1));
    expect(delays).toEqual([
      2_000, 3_000, 4_500, 6_750, 10_125, 15_188, 22_781, 34_172, 51_258, 60_000, 60_000, 60_000,
    ]);
  });

  it('retries retryable failures until maxAttempts deliveries failed, dead-letters the rest', () => {
    const policy = resolveQueueDefaults({ maxAttempts: 3 });
    const retry = (error: unknown, attempt: number) => {
      const outcome = failureOutcome(error, attempt, policy);
      if (outcome.kind !== 'retry') throw new Error(`expected a retry, got ${JSON.stringify(outcome)}`);
      return outcome;
    };
    expect(retry(new Error('x'), 1)).toMatchObject({ kind: 'retry', nextAttempt: 2 });
    expect(retry(new Error('x'), 1).delayMs).toBeGreaterThanOrEqual(2_000);
    expect(retry(transient('peer down'), 2)).toMatchObject({ kind: 'retry', nextAttempt: 3 });
    expect(retry(transient('peer down'), 2).delayMs).toBeGreaterThanOrEqual(3_000);
    expect(failureOutcome(transient('peer down'), 3, policy)).toEqual({
      kind: 'dead-letter',
      reason: 'max-attempts',
      error: 'peer down',
    });
    expect(failureOutcome(permanent('bad anchor'), 1, policy)).toEqual({
      kind: 'dead-letter',
      reason: 'non-retryable',
      error: 'bad anchor',
    });
    expect(failureOutcome('a string', 1, policy)).toMatchObject({ kind: 'retry' });
  });

  it('names the backoff of a retry apart from its jittered wait, the backoff naming its delay queue', () => {
    const policy = resolveQueueDefaults({ maxAttempts: 3 });
    for (let i = 0; i < 50; i++) {
      const outcome = failureOutcome(new Error('x'), 2, policy);
      if (outcome.kind !== 'retry') throw new Error('expected a retry');
      expect(outcome.backoffMs).toBe(3_000);
      expect(outcome.delayMs).toBeGreaterThanOrEqual(outcome.backoffMs);
      expect(outcome.delayMs).toBeLessThan(outcome.backoffMs + 300);
    }
  });

  it('lists the few delay queues a retry policy can use: one per backoff step until the cap', () => {
    // The original's defaults: 29 retries, ten distinct backoffs (2 s x 1.5, capped at 1 min).
    expect(retryBackoffs(DEFAULT_QUEUE_DEFAULTS, quantizeDelay)).toEqual([
      2_000, 3_000, 4_500, 6_800, 11_000, 16_000, 23_000, 35_000, 52_000, 60_000,
    ]);
    expect(retryBackoffs(resolveQueueDefaults({ maxAttempts: 3 }))).toEqual([2_000, 3_000]);
    // The last delivery is dead-lettered, not retried; a constant backoff is one queue; none is none.
    expect(retryBackoffs(resolveQueueDefaults({ maxAttempts: 1 }))).toEqual([]);
    const constant = resolveQueueDefaults({
      maxAttempts: 1_000_000,
      backoff: { initialMs: 50, multiplier: 1, maxMs: 50 },
    });
    expect(retryBackoffs(constant)).toEqual([50]);
    expect(retryBackoffs(resolveQueueDefaults({ backoff: { initialMs: 0, multiplier: 1, maxMs: 0 } }))).toEqual([]);
  });

  it('checks the delays a subscription is told other processes publish with', () => {
    expect(() => resolveSubscribeOptions(DEFAULT_QUEUE_DEFAULTS, { delays: [1_000, 250] })).not.toThrow();
    for (const delays of [[0], [-5], [Number.NaN], [MAX_DELAY_MS + 1], ['1000'], 1_000]) {
      expect(() => resolveSubscribeOptions(DEFAULT_QUEUE_DEFAULTS, { delays } as never)).toThrow(/delays/);
    }
  });

  it('waits the backoff plus a random part of a tenth of it (at least 100 ms); no backoff, no wait', () => {
    for (const backoff of [5, 50, 2_000, 60_000]) {
      const jitter = Math.max(MIN_REDELIVERY_JITTER_MS, backoff * REDELIVERY_JITTER);
      const delays = Array.from({ length: 500 }, () => redeliveryDelay(backoff));
      expect(Math.min(...delays)).toBeGreaterThanOrEqual(backoff);
      expect(Math.max(...delays)).toBeLessThan(backoff + jitter);
      // Five hundred messages failing at one moment come back spread out, not in one burst.
      expect(new Set(delays).size).toBeGreaterThan(50);
    }
    expect(redeliveryDelay(2_000, () => 0)).toBe(2_000);
    expect(redeliveryDelay(2_000, () => 0.999_999)).toBe(2_199);
    expect(redeliveryDelay(0)).toBe(0);
    expect(redeliveryDelay(MAX_DELAY_MS)).toBe(MAX_DELAY_MS);
  });

  it('lets a subscription override the queue defaults, and refuses nonsense', () => {
    const defaults = resolveQueueDefaults({ concurrency: 8 });
    expect(resolveSubscribeOptions(defaults)).toEqual(defaults);
    expect(resolveSubscribeOptions(defaults, { maxAttempts: 1 }).maxAttempts).toBe(1);
    expect(() => resolveQueueDefaults({ backoff: { maxMs: 10 } })).toThrow(/maxMs/);
    expect(() => resolveSubscribeOptions(defaults, { concurrency: 0 })).toThrow(AppError);
  });
});

describe('messages', () => {
  it('prepares what a publish carries', () => {
    const m = prepareMessage(
      'orb.operation',
      { a: 1 },
      { delayMs: 10.2, headers: { traceparent: 't' }, messageId: 'id-1' },
    );
    expect(m).toMatchObject({ id: 'id-1', json: '{"a":1}', headers: { traceparent: 't' }, delayMs: 11 });
    expect(prepareMessage('orb.anchor', [1]).id).toMatch(/^[0-9a-f-]{36}$/);
  });

  it("accepts Orb's topic names and refuses others", () => {
    for (const t of ['orb.operation', 'orb.anchor_linkset', 'orb.activity.outbox', 'a:b-c', 'x.dead'])
      expect(() => checkTopic(t)).not.toThrow();
    for (const t of ['', 'amq.gen-1', 'has space', 'ü']) expect(() => checkTopic(t)).toThrow(/invalid topic/);
  });

  it('shows handlers user and dead-letter headers only, as strings', () => {
    const raw = {
      [HEADERS.attempt]: 3,
      [HEADERS.publishedAt]: 1_700_000_000_000,
      [HEADERS.dueAt]: 1_700_000_001_000,
      'x-death': [{ count: 1 }],
      'x-first-death-queue': 'q',
      traceparent: Buffer.from('tp'),
      n: 5,
      ...deadLetterHeaders({}, 'orb.anchor', 'max-attempts', 'e'.repeat(2_000), 30),
    };
    const shown = visibleHeaders(raw);
    expect(shown).toEqual({
      traceparent: 'tp',
      n: '5',
      [HEADERS.deadLetterReason]: 'max-attempts',
      [HEADERS.deadLetterError]: `${'e'.repeat(1_000)}...`,
      [HEADERS.originalTopic]: 'orb.anchor',
      [HEADERS.failedAttempts]: '30',
      [HEADERS.firstFailedAt]: expect.stringMatching(/^\d+$/),
      [HEADERS.deadLetteredAt]: shown[HEADERS.firstFailedAt],
    });
  });

  it('keeps the first failure time across redeliveries', () => {
    const first = withFirstFailure({ traceparent: 'tp' }, 1_000);
    expect(first).toEqual({ traceparent: 'tp', [HEADERS.firstFailedAt]: '1000' });
    expect(withFirstFailure(first, 2_000)).toBe(first);
    expect(deadLetterHeaders(first, 't', 'max-attempts', 'e', 3)[HEADERS.firstFailedAt]).toBe('1000');
  });
});

describe('amqp wait queues', () => {
  it('rounds delays up to two significant digits, bounding the number of wait queues', () => {
    expect(
      [0.2, 1, 99, 100, 101, 1_234, 2_000, 3_000, 4_500, 6_750, 10_125, 15_188, 59_999, 60_000].map(quantizeDelay),
    ).toEqual([1, 1, 99, 100, 110, 1_300, 2_000, 3_000, 4_500, 6_800, 11_000, 16_000, 60_000, 60_000]);
    const distinct = new Set(Array.from({ length: 100_000 }, (_, i) => quantizeDelay(i + 1)));
    expect(distinct.size).toBeLessThan(400);
  });

  it('declares a delay queue per rounded delay, holding messages without a TTL or a dead-letter route', () => {
    expect(delayQueue('orb.outbox', 4_321)).toEqual({ name: 'orb.outbox.delay.4400', options: { durable: true } });
  });
});
