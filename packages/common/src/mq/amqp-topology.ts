/**
 * The AMQP topology, all through the default exchange (routing key = queue name):
 *
 *   <topic>                 durable work queue; competing consumers; persistent messages
 *   <topic>.dead            durable dead-letter queue (deadLetterTopic), itself a subscribable topic
 *   <topic>.wait.<ms>       durable delay queue: queue-level TTL <ms>, dead-letters expired messages back
 *                           to <topic>; deleted by RabbitMQ after <ms> + 2 min unused (x-expires)
 *
 * One wait queue per (topic, delay) means every message in a wait queue has the same TTL, so the one at
 * the head always expires first: no head-of-line blocking as with per-message TTLs in a single queue.
 * Delays are rounded up to two significant digits (1,234 ms -> 1,300 ms) to bound the number of queues.
 *
 * Every queue is classic or quorum (`QueueType`). Quorum queues (Raft-replicated over the members of a
 * cluster) take the same arguments on RabbitMQ 3.10+ (x-message-ttl arrived in 3.10; checked by declaring
 * them on 3.10.8); their wait queues dead-letter at-least-once, which RabbitMQ allows only with
 * x-overflow reject-publish, so an expired message leaves its wait queue only once the work queue has it.
 */
import type { Options } from 'amqplib';

/** How long an unused wait queue lives beyond its TTL before RabbitMQ deletes it. */
export const WAIT_QUEUE_IDLE_MS = 120_000;
/**
 * Redeclaring a wait queue restarts its x-expires clock (publishing does not). Redeclaring at least this
 * often keeps every message's TTL (<= ttl) well inside the queue's lifetime (ttl + idle - this).
 */
export const WAIT_QUEUE_REDECLARE_MS = 30_000;

export function quantizeDelay(ms: number): number {
  const whole = Math.max(1, Math.ceil(ms));
  if (whole < 100) return whole;
  const step = 10 ** (Math.floor(Math.log10(whole)) - 1);
  return Math.ceil(whole / step) * step;
}

/** classic: one broker holds the queue; quorum: replicated over a cluster's members (survives losing a minority). */
export type QueueType = 'classic' | 'quorum';
export const QUEUE_TYPES = ['classic', 'quorum'] as const satisfies readonly QueueType[];

/** The default: quorum when the client is given several brokers (a cluster), classic for one. */
export function defaultQueueType(brokerCount: number): QueueType {
  return brokerCount > 1 ? 'quorum' : 'classic';
}

export interface QueueSpec {
  name: string;
  options: Options.AssertQueue;
  /** Declarations older than this are repeated before the next publish (Infinity: once per connection). */
  redeclareMs: number;
}

export function workQueue(topic: string, type: QueueType = 'classic'): QueueSpec {
  return {
    name: topic,
    options: type === 'quorum' ? { durable: true, arguments: { 'x-queue-type': 'quorum' } } : { durable: true },
    redeclareMs: Number.POSITIVE_INFINITY,
  };
}

export function waitQueue(topic: string, delayMs: number, type: QueueType = 'classic'): QueueSpec {
  const ttl = quantizeDelay(delayMs);
  const common = {
    'x-message-ttl': ttl,
    'x-dead-letter-exchange': '',
    'x-dead-letter-routing-key': topic,
    'x-expires': ttl + WAIT_QUEUE_IDLE_MS,
  };
  return {
    name: `${topic}.wait.${ttl}`,
    options: {
      durable: true,
      arguments:
        type === 'quorum'
          ? {
              'x-queue-type': 'quorum',
              ...common,
              // The default (at-most-once) drops an expired message if the work queue cannot take it then.
              'x-dead-letter-strategy': 'at-least-once',
              'x-overflow': 'reject-publish',
            }
          : common,
    },
    redeclareMs: WAIT_QUEUE_REDECLARE_MS,
  };
}

/** The type a spec declares. */
export function specType(spec: QueueSpec): QueueType {
  return spec.options.arguments?.['x-queue-type'] === 'quorum' ? 'quorum' : 'classic';
}

/**
 * An operator's hint for a declaration the broker refused because the queue exists with another type
 * (RabbitMQ cannot change a queue's type in place): undefined for any other refusal.
 */
export function queueTypeMismatch(error: unknown, name: string, wanted: QueueType): string | undefined {
  const message = error instanceof Error ? error.message : String(error);
  if (!/inequivalent arg 'x-queue-type'/.test(message)) return undefined;
  return (
    `queue ${name} exists on the broker with another type than ${wanted} (--mq-queue-type ${wanted}); a queue's type ` +
    'cannot change in place: drain and delete the old queues, or keep the old type (see docs/operations.md, RabbitMQ cluster)'
  );
}
