import { describe, expect, it } from 'vitest';
import {
  defaultQueueType,
  delayQueue,
  messageRoute,
  parseDelayQueue,
  queueTypeMismatch,
  specType,
  workQueue,
} from './amqp-topology.js';

describe('queue types', () => {
  it('defaults to quorum for a cluster (several addresses), classic for one broker', () => {
    expect(defaultQueueType(1)).toBe('classic');
    expect(defaultQueueType(2)).toBe('quorum');
    expect(defaultQueueType(3)).toBe('quorum');
  });

  it('declares classic queues as before, and delay queues like work queues: no TTL, dead-lettering or expiry', () => {
    expect(workQueue('t').options).toEqual({ durable: true });
    expect(delayQueue('t', 1_234)).toEqual({ name: 't.delay.1300', options: { durable: true } });
  });

  it('declares quorum work and delay queues alike, with only the queue type as argument', () => {
    expect(workQueue('t', 'quorum').options).toEqual({ durable: true, arguments: { 'x-queue-type': 'quorum' } });
    const delay = delayQueue('t', 1_234, 'quorum');
    expect(delay).toEqual({
      name: 't.delay.1300',
      options: { durable: true, arguments: { 'x-queue-type': 'quorum' } },
    });
    expect(specType(delay)).toBe('quorum');
    expect(specType(workQueue('t'))).toBe('classic');
  });

  it('names one delay queue per rounded delay, whatever the clock, and never a .wait. name', () => {
    // The old wait queues carried TTL/DLX/x-expires arguments: a redeclare under their names would be refused.
    for (const type of ['classic', 'quorum'] as const) {
      expect(delayQueue('t', 300, type).name).toBe('t.delay.300');
      expect(delayQueue('t', 1_201, type).name).toBe(delayQueue('t', 1_299, type).name);
      expect(delayQueue('t', 1_301, type).name).toBe('t.delay.1400');
      expect(delayQueue('t', 300, type).name).not.toMatch(/\.wait\./);
    }
  });

  it('routes a message to its work queue, and a delayed one through the delay queue of its delay', () => {
    expect(messageRoute('t', 0, 'quorum').map((s) => s.name)).toEqual(['t']);
    expect(messageRoute('t', 300, 'quorum').map((s) => s.name)).toEqual(['t', 't.delay.300']);
    expect(messageRoute('t', 300, 'classic').map((s) => s.name)).toEqual(['t', 't.delay.300']);
    expect(messageRoute('t', 300, 'quorum').map(specType)).toEqual(['quorum', 'quorum']);
  });

  it('tells the topic and delay of a delay queue from its name, and nothing for other queues', () => {
    expect(parseDelayQueue('a.b.delay.1300')).toEqual({ topic: 'a.b', delayMs: 1_300 });
    expect(parseDelayQueue(delayQueue('x.delay.y', 5, 'quorum').name)).toEqual({ topic: 'x.delay.y', delayMs: 5 });
    expect(parseDelayQueue('a.b')).toBeUndefined();
    expect(parseDelayQueue('a.b.dead')).toBeUndefined();
    expect(parseDelayQueue('a.b.wait.1300')).toBeUndefined();
    expect(parseDelayQueue('a.delay.')).toBeUndefined();
    expect(parseDelayQueue('a.delay.0')).toBeUndefined();
    expect(parseDelayQueue('a.delay.1.2')).toBeUndefined();
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
