/**
 * The AMQP topology, all through the default exchange (routing key = queue name):
 *
 *   <topic>              durable work queue; competing consumers; persistent messages
 *   <topic>.dead         durable dead-letter queue (deadLetterTopic), itself a subscribable topic
 *   <topic>.delay.<ms>   durable delay queue of one (rounded) delay: no TTL, no dead-lettering, no expiry.
 *                        Each message carries its due time (x-due-at); the topic's subscriptions consume
 *                        the queue, hold each message until it is due, republish it to <topic> with a
 *                        confirm and only then ack it (amqp-subscription.ts)
 *
 * One delay queue per (topic, delay) means the messages of a queue come due in the order they were queued,
 * so a short delay never waits behind a long one. Delays are rounded up to two significant digits (1,234 ms
 * -> 1,300 ms) to bound the number of queues. Every queue of a topic has the same type, classic or quorum
 * (`QueueType`): the delay path is the same for both, and depends on no TTL, dead-letter or x-expires
 * behaviour of the broker (ADR 0015: on RabbitMQ 3.10.8 quorum wait queues lost messages through both).
 */
import type { Options } from 'amqplib';
import { HEADERS } from './message.js';

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

/** A queue to declare (once per connection) before publishing to it or consuming from it. */
export interface QueueSpec {
  name: string;
  options: Options.AssertQueue;
}

function queueOptions(type: QueueType): Options.AssertQueue {
  return type === 'quorum' ? { durable: true, arguments: { 'x-queue-type': 'quorum' } } : { durable: true };
}

export function workQueue(topic: string, type: QueueType = 'classic'): QueueSpec {
  return { name: topic, options: queueOptions(type) };
}

/**
 * The delay queue of `delayMs` (rounded up to two significant digits): declared like the work queue, because
 * the delay lives in each message's due-time header and in the subscriptions that hold it, not in the broker.
 */
export function delayQueue(topic: string, delayMs: number, type: QueueType = 'classic'): QueueSpec {
  return { name: `${topic}.delay.${quantizeDelay(delayMs)}`, options: queueOptions(type) };
}

/** The queues a message to `topic` goes through, in declaration order, its target last. */
export function messageRoute(topic: string, delayMs: number, type: QueueType): readonly QueueSpec[] {
  const work = workQueue(topic, type);
  return delayMs <= 0 ? [work] : [work, delayQueue(topic, delayMs, type)];
}

/** The topic and (rounded) delay of a delay queue's name (undefined for any other queue name). */
export function parseDelayQueue(name: string): { topic: string; delayMs: number } | undefined {
  const m = /^(.+)\.delay\.([1-9]\d*)$/.exec(name);
  return m ? { topic: m[1]!, delayMs: Number(m[2]) } : undefined;
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

/** A message as it goes onto a queue: who it is, which delivery, since when, its headers, and when it is due (delayed). */
export interface OutgoingMessage {
  id: string;
  attempt: number;
  publishedAt: number;
  headers: Record<string, string>;
  dueAt?: number | undefined;
}

/** The AMQP properties of a message the adapter publishes (a first publish, a redelivery, a dead letter). */
export function publishProperties(m: OutgoingMessage): Options.Publish {
  return {
    persistent: true,
    messageId: m.id,
    contentType: 'application/json',
    timestamp: Math.floor(m.publishedAt / 1000),
    headers: {
      ...m.headers,
      [HEADERS.attempt]: m.attempt,
      [HEADERS.publishedAt]: m.publishedAt,
      ...(m.dueAt === undefined ? {} : { [HEADERS.dueAt]: m.dueAt }),
    },
  };
}
