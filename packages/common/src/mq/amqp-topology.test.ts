import { describe, expect, it } from 'vitest';
import { defaultQueueType, queueTypeMismatch, specType, waitQueue, workQueue } from './amqp-topology.js';

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

  it('declares quorum queues with the arguments RabbitMQ 3.10 accepts for them, dead-lettering at least once', () => {
    expect(workQueue('t', 'quorum').options).toEqual({ durable: true, arguments: { 'x-queue-type': 'quorum' } });
    const wait = waitQueue('t', 1_234, 'quorum');
    expect(wait.name).toBe('t.wait.1300');
    expect(wait.options).toEqual({
      durable: true,
      arguments: {
        'x-queue-type': 'quorum',
        'x-message-ttl': 1_300,
        'x-dead-letter-exchange': '',
        'x-dead-letter-routing-key': 't',
        'x-expires': 121_300,
        'x-dead-letter-strategy': 'at-least-once',
        'x-overflow': 'reject-publish',
      },
    });
    expect(specType(wait)).toBe('quorum');
    expect(specType(workQueue('t'))).toBe('classic');
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
