import { describe, expect, it } from 'vitest';
import {
  DEFAULT_WAIT_EPOCH_MS,
  defaultQueueType,
  messageRoute,
  queueTypeMismatch,
  specType,
  waitEpoch,
  waitQueue,
  waitQueueTopic,
  workQueue,
} from './amqp-topology.js';

describe('queue types', () => {
  it('defaults to quorum for a cluster (several addresses), classic for one broker', () => {
    expect(defaultQueueType(1)).toBe('classic');
    expect(defaultQueueType(2)).toBe('quorum');
    expect(defaultQueueType(3)).toBe('quorum');
  });

  it('declares classic queues as before', () => {
    expect(workQueue('t').options).toEqual({ durable: true });
    expect(waitQueue('t', 1_234).options).toEqual({
      durable: true,
      arguments: {
        'x-message-ttl': 1_300,
        'x-dead-letter-exchange': '',
        'x-dead-letter-routing-key': 't',
        'x-expires': 121_300,
      },
    });
  });

  it('keeps classic wait queues one per delay, renewed by redeclaring, whatever the clock', () => {
    const early = waitQueue('t', 1_234, 'classic', { now: 0, epochMs: 20_000 });
    const late = waitQueue('t', 1_234, 'classic', { now: 10 * DEFAULT_WAIT_EPOCH_MS });
    expect(early).toEqual(late);
    expect(early.name).toBe('t.wait.1300');
    expect(early.redeclareMs).toBe(30_000);
    expect(early.publishUntil).toBeUndefined();
  });

  it('declares quorum queues with the arguments RabbitMQ 3.10 accepts for them, dead-lettering at least once', () => {
    expect(workQueue('t', 'quorum').options).toEqual({ durable: true, arguments: { 'x-queue-type': 'quorum' } });
    const now = 1_765_000_000_000;
    const wait = waitQueue('t', 1_234, 'quorum', { now });
    expect(wait.name).toBe(`t.wait.1300.${Math.floor(now / 600_000)}`);
    expect(wait.options).toEqual({
      durable: true,
      arguments: {
        'x-queue-type': 'quorum',
        'x-message-ttl': 1_300,
        'x-dead-letter-exchange': '',
        'x-dead-letter-routing-key': 't',
        // TTL + 2 epochs of 10 min.
        'x-expires': 1_201_300,
        'x-dead-letter-strategy': 'at-least-once',
        'x-overflow': 'reject-publish',
      },
    });
    expect(specType(wait)).toBe('quorum');
    expect(specType(workQueue('t'))).toBe('classic');
  });

  it('names quorum wait queues per epoch, each published to only until its epoch ends', () => {
    const epochMs = 20_000;
    const start = 88_250 * epochMs;
    const first = waitQueue('t', 300, 'quorum', { now: start, epochMs });
    expect(first.name).toBe('t.wait.300.88250');
    expect(first.publishUntil).toBe(start + epochMs);
    expect(first.options.arguments?.['x-expires']).toBe(300 + 2 * epochMs);
    // Once per connection: redeclaring does not restart a quorum queue's x-expires clock.
    expect(first.redeclareMs).toBe(Number.POSITIVE_INFINITY);
    // The whole epoch maps to one queue, the next millisecond to the next one.
    expect(waitQueue('t', 300, 'quorum', { now: start + epochMs - 1, epochMs })).toEqual(first);
    const second = waitQueue('t', 300, 'quorum', { now: start + epochMs, epochMs });
    expect(second.name).toBe('t.wait.300.88251');
    expect(second.publishUntil).toBe(start + 2 * epochMs);
    expect(waitEpoch(start + epochMs, epochMs)).toBe(88_251);
  });

  it('leaves every quorum wait queue at least an epoch between its last due message and its earliest deletion', () => {
    for (const epochMs of [1_000, 20_000, DEFAULT_WAIT_EPOCH_MS]) {
      for (const delay of [1, 300, 59_999, 3_600_000]) {
        const epochStart = 1_000 * epochMs;
        const spec = waitQueue('t', delay, 'quorum', { now: epochStart, epochMs });
        const ttl = spec.options.arguments?.['x-message-ttl'] as number;
        const expires = spec.options.arguments?.['x-expires'] as number;
        // Created at the epoch's start at the earliest, last published to just before publishUntil.
        const earliestDeletion = epochStart + expires;
        const lastDue = spec.publishUntil! + ttl;
        expect(earliestDeletion - lastDue).toBeGreaterThanOrEqual(epochMs);
      }
    }
  });

  it('routes a message to its work queue, and a delayed one through the wait queue in force at the time', () => {
    const epochMs = 20_000;
    expect(messageRoute('t', 0, 'quorum', epochMs)(0).map((s) => s.name)).toEqual(['t']);
    const delayed = messageRoute('t', 300, 'quorum', epochMs);
    expect(delayed(40_000).map((s) => s.name)).toEqual(['t', 't.wait.300.2']);
    expect(delayed(59_999).map((s) => s.name)).toEqual(['t', 't.wait.300.2']);
    expect(delayed(60_000).map((s) => s.name)).toEqual(['t', 't.wait.300.3']);
    expect(messageRoute('t', 300, 'classic', epochMs)(60_000).map((s) => s.name)).toEqual(['t', 't.wait.300']);
    // Without an epoch length the default applies.
    expect(messageRoute('t', 300, 'quorum')(DEFAULT_WAIT_EPOCH_MS)[1]!.name).toBe('t.wait.300.1');
  });

  it('tells the topic of a wait queue from its name, and nothing for other queues', () => {
    expect(waitQueueTopic('a.b.wait.1300')).toBe('a.b');
    expect(waitQueueTopic('a.b.wait.300.88250')).toBe('a.b');
    expect(waitQueueTopic(waitQueue('x.wait.y', 5, 'quorum').name)).toBe('x.wait.y');
    expect(waitQueueTopic('a.b')).toBeUndefined();
    expect(waitQueueTopic('a.b.dead')).toBeUndefined();
    expect(waitQueueTopic('a.wait.')).toBeUndefined();
    expect(waitQueueTopic('a.wait.1.2.3')).toBeUndefined();
  });

  it('turns only a type clash into the operator hint', () => {
    const clash = new Error(
      "Operation failed: QueueDeclare; 406 (PRECONDITION-FAILED) with message \"PRECONDITION_FAILED - inequivalent arg 'x-queue-type' for queue 'q' in vhost '/': received the value 'quorum' of type 'longstr' but current is none\"",
    );
    expect(queueTypeMismatch(clash, 'q', 'quorum')).toMatch(
      /^queue q exists on the broker with another type than quorum/,
    );
    const ttl = new Error("PRECONDITION_FAILED - inequivalent arg 'x-message-ttl' for queue 'q'");
    expect(queueTypeMismatch(ttl, 'q', 'quorum')).toBeUndefined();
  });
});
