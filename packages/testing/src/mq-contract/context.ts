import type { MessageQueue, QueueOptions } from '@anchor/common/mq';

/** What each part of the queue contract gets from the suite. */

export interface MqContext {
  /** A queue for this test (created on first use, closed and cleaned up after the test). */
  queue(options?: QueueOptions): Promise<MessageQueue>;
  /** A topic name unique to this test. */
  topic(): string;
  /** Fast backoff for tests. */
  readonly backoff: { initialMs: number; multiplier: number; maxMs: number };
}
