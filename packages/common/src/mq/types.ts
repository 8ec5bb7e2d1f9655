/**
 * The one queue interface (see docs/architecture.md "Queues"). Topics are durable work queues with
 * competing consumers. Delivery is at least once: handlers must be idempotent.
 *
 * Acknowledgement is by outcome: a handler that resolves acks the message; one that throws nacks it.
 * A nacked message is redelivered after an exponential backoff (`initialMs * multiplier^(attempt-1)`,
 * capped at `maxMs`) until `maxAttempts` deliveries have failed, then it moves to the topic's dead-letter
 * queue (`deadLetterTopic(topic)`). An error that is not retryable (`isRetryable` from `errors`) goes
 * to the dead-letter queue at once. Both adapters (mem, amqp) pass `@anchor/testing/mq-contract`.
 */

export interface PublishOptions {
  /** Deliver no sooner than this many milliseconds from now. */
  delayMs?: number;
  headers?: Record<string, string>;
  /** Defaults to a random UUID. */
  messageId?: string;
}

export interface Delivery<T = unknown> {
  id: string;
  topic: string;
  body: T;
  headers: Record<string, string>;
  /** 1 on first delivery, incremented on every redelivery. */
  attempt: number;
  /** Epoch ms of the original publish. */
  publishedAt: number;
}

export type Handler<T = unknown> = (delivery: Delivery<T>) => Promise<void>;

export interface BackoffPolicy {
  initialMs: number;
  multiplier: number;
  maxMs: number;
}

export interface SubscribeOptions {
  /** Consumer pool size: deliveries handled at once by this subscription. Default 5. */
  concurrency?: number;
  /** Deliveries before dead-lettering. Default from the queue's options (30 in production defaults). */
  maxAttempts?: number;
  backoff?: BackoffPolicy;
  /**
   * AMQP: delays (ms) that other processes publish to this topic with (`PublishOptions.delayMs`). A
   * subscription consumes the delay queues of its own retry backoffs and of the delays its own process
   * published with; a delayed message from elsewhere waits in its delay queue until a subscription lists its
   * delay here (rounded as the queue's name is). The mem adapter checks and ignores it.
   */
  delays?: readonly number[];
}

export interface Subscription {
  /** Stops taking new deliveries and waits for in-flight handlers to finish. */
  close(): Promise<void>;
}

export type QueueKind = 'mem' | 'amqp';

export interface MessageQueue {
  readonly kind: QueueKind;
  /** Resolves once the broker has durably accepted the message (publisher confirm for amqp). */
  publish<T>(topic: string, body: T, options?: PublishOptions): Promise<void>;
  subscribe<T>(topic: string, handler: Handler<T>, options?: SubscribeOptions): Promise<Subscription>;
  /** Whether the broker connection is currently up (feeds health checks). */
  isConnected(): boolean;
  close(): Promise<void>;
}

export const deadLetterTopic = (topic: string): string => `${topic}.dead`;

/** Why a message went to the dead-letter queue. */
export type DeadLetterReason = 'max-attempts' | 'non-retryable' | 'invalid-message';
