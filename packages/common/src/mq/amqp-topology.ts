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

export interface QueueSpec {
  name: string;
  options: Options.AssertQueue;
  /** Declarations older than this are repeated before the next publish (Infinity: once per connection). */
  redeclareMs: number;
}

export function workQueue(topic: string): QueueSpec {
  return { name: topic, options: { durable: true }, redeclareMs: Number.POSITIVE_INFINITY };
}

export function waitQueue(topic: string, delayMs: number): QueueSpec {
  const ttl = quantizeDelay(delayMs);
  return {
    name: `${topic}.wait.${ttl}`,
    options: {
      durable: true,
      arguments: {
        'x-message-ttl': ttl,
        'x-dead-letter-exchange': '',
        'x-dead-letter-routing-key': topic,
        'x-expires': ttl + WAIT_QUEUE_IDLE_MS,
      },
    },
    redeclareMs: WAIT_QUEUE_REDECLARE_MS,
  };
}
