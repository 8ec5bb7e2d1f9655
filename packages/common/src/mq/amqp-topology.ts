/**
 * The AMQP topology, all through the default exchange (routing key = queue name):
 *
 *   <topic>                 durable work queue; competing consumers; persistent messages
 *   <topic>.dead            durable dead-letter queue (deadLetterTopic), itself a subscribable topic
 *   <topic>.wait.<ms>       classic delay queue: queue-level TTL <ms>, dead-letters expired messages back
 *                           to <topic>; deleted by RabbitMQ after <ms> + 2 min unused (x-expires)
 *   <topic>.wait.<ms>.<n>   quorum delay queue of epoch <n> (= floor(now / epoch length)): the same, but
 *                           published to only during its epoch and deleted <ms> + 2 epochs after creation
 *
 * One wait queue per (topic, delay) means every message in a wait queue has the same TTL, so the one at
 * the head always expires first: no head-of-line blocking as with per-message TTLs in a single queue.
 * Delays are rounded up to two significant digits (1,234 ms -> 1,300 ms) to bound the number of queues.
 *
 * Every queue is classic or quorum (`QueueType`). Quorum queues (Raft-replicated over the members of a
 * cluster) take the same arguments on RabbitMQ 3.10+ (x-message-ttl arrived in 3.10; checked by declaring
 * them on 3.10.8); their wait queues dead-letter at-least-once, which RabbitMQ allows only with
 * x-overflow reject-publish, so an expired message leaves its wait queue only once the work queue has it.
 *
 * Why quorum wait queues change name every epoch: on RabbitMQ 3.10.8 a quorum queue's x-expires clock
 * restarts only at its creation, a basic.get, a consumer leaving or a member going down, never on a publish or
 * a redeclare (rabbitmq-server#5894), and expiry deletes a consumer-less queue whatever it holds. A wait queue
 * in steady use would be deleted with its messages. One published to only during its epoch, created at the
 * earliest at the epoch's start and deleted at the earliest TTL + 2 epochs after that, has its last message
 * due (epoch end + TTL) at least one epoch before the broker may delete it (ADR 0015).
 */
import type { Options } from 'amqplib';

/** How long an unused wait queue lives beyond its TTL before RabbitMQ deletes it. */
export const WAIT_QUEUE_IDLE_MS = 120_000;
/**
 * Redeclaring a wait queue restarts its x-expires clock (publishing does not). Redeclaring at least this
 * often keeps every message's TTL (<= ttl) well inside the queue's lifetime (ttl + idle - this).
 */
export const WAIT_QUEUE_REDECLARE_MS = 30_000;
/** Default length of a quorum wait queue's epoch: the time it is published to. */
export const DEFAULT_WAIT_EPOCH_MS = 600_000;
/** Shortest epoch accepted (tests use ~20 s; much shorter would only multiply queues). */
export const MIN_WAIT_EPOCH_MS = 1_000;

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
  /**
   * Epoch ms from which the queue must not be published to (a quorum wait queue's epoch end): a publish
   * still pending then goes to the queue of the new epoch. Absent: no limit.
   */
  publishUntil?: number;
}

/** Where a message goes at a time (epoch ms): the queues to declare, in order, the last being its target. */
export type Route = (now: number) => readonly QueueSpec[];

/** The clock a quorum wait queue is chosen by: its epoch length and the time (default now). */
export interface WaitClock {
  epochMs?: number;
  now?: number;
}

/** The number of the epoch `now` falls in. */
export function waitEpoch(now: number, epochMs: number = DEFAULT_WAIT_EPOCH_MS): number {
  return Math.floor(now / epochMs);
}

export function workQueue(topic: string, type: QueueType = 'classic'): QueueSpec {
  return {
    name: topic,
    options: type === 'quorum' ? { durable: true, arguments: { 'x-queue-type': 'quorum' } } : { durable: true },
    redeclareMs: Number.POSITIVE_INFINITY,
  };
}

export function waitQueue(
  topic: string,
  delayMs: number,
  type: QueueType = 'classic',
  clock: WaitClock = {},
): QueueSpec {
  const ttl = quantizeDelay(delayMs);
  const common = {
    'x-message-ttl': ttl,
    'x-dead-letter-exchange': '',
    'x-dead-letter-routing-key': topic,
  };
  if (type === 'classic') {
    return {
      name: `${topic}.wait.${ttl}`,
      options: { durable: true, arguments: { ...common, 'x-expires': ttl + WAIT_QUEUE_IDLE_MS } },
      redeclareMs: WAIT_QUEUE_REDECLARE_MS,
    };
  }
  const epochMs = clock.epochMs ?? DEFAULT_WAIT_EPOCH_MS;
  const epoch = waitEpoch(clock.now ?? Date.now(), epochMs);
  return {
    name: `${topic}.wait.${ttl}.${epoch}`,
    options: {
      durable: true,
      arguments: {
        'x-queue-type': 'quorum',
        ...common,
        'x-expires': ttl + 2 * epochMs,
        // The default (at-most-once) drops an expired message if the work queue cannot take it then.
        'x-dead-letter-strategy': 'at-least-once',
        'x-overflow': 'reject-publish',
      },
    },
    // Redeclaring restarts no clock of a quorum queue: once per connection is enough.
    redeclareMs: Number.POSITIVE_INFINITY,
    publishUntil: (epoch + 1) * epochMs,
  };
}

/**
 * The route of a message to `topic`: its work queue, then (for a delay) the wait queue of that delay in force
 * at the time asked for.
 */
export function messageRoute(topic: string, delayMs: number, type: QueueType, epochMs?: number): Route {
  const work = workQueue(topic, type);
  if (delayMs <= 0) return () => [work];
  return (now) => [work, waitQueue(topic, delayMs, type, { now, ...(epochMs === undefined ? {} : { epochMs }) })];
}

/** The topic a wait queue's name belongs to (undefined for any other queue name). */
export function waitQueueTopic(name: string): string | undefined {
  return /^(.*)\.wait\.\d+(?:\.\d+)?$/.exec(name)?.[1];
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
