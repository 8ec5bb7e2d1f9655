/**
 * The queue contract: one vitest suite every MessageQueue adapter must pass (mem, AMQP), in the style of
 * fedify's testMessageQueue, so that code tested against mem behaves the same on RabbitMQ.
 *
 *   testMessageQueue('amqp', { create: (o) => createAmqpMessageQueue({ url, ...o }), cleanup: ... });
 */
import { afterEach, describe } from 'vitest';
import type { MessageQueue, QueueOptions } from '@anchor/common/mq';
import { uniqueName } from '../contract-kit/index.js';
import { registerDelivery } from './delivery.js';
import { registerFailures } from './failures.js';
import { registerValidation } from './validation.js';
import type { MqContext } from './context.js';

export interface QueueHarness {
  /** A fresh queue with these defaults (the suite closes it after each test). */
  create(options?: QueueOptions): Promise<MessageQueue>;
  /** Removes what the test's topics left behind (broker queues), after `queue` has been closed. */
  cleanup?(queue: MessageQueue, topics: readonly string[]): Promise<void>;
}

export interface QueueContractOptions {
  /** When set, the suite is registered as skipped and this reason is printed. */
  skip?: string;
}

export function testMessageQueue(label: string, harness: QueueHarness, options: QueueContractOptions = {}): void {
  if (options.skip !== undefined) console.warn(`[queue contract] ${label}: SKIPPED: ${options.skip}`);
  (options.skip === undefined ? describe : describe.skip)(`queue contract: ${label}`, () => {
    const queues: MessageQueue[] = [];
    const topics: string[] = [];
    const ctx: MqContext = {
      async queue(queueOptions) {
        const q = await harness.create(queueOptions);
        queues.push(q);
        return q;
      },
      topic() {
        const t = uniqueName('contract');
        topics.push(t, `${t}.dead`);
        return t;
      },
      backoff: { initialMs: 100, multiplier: 2, maxMs: 400 },
    };
    afterEach(async () => {
      const used = queues.splice(0);
      await Promise.all(used.map((q) => q.close()));
      if (harness.cleanup) for (const q of used) await harness.cleanup(q, topics);
      topics.splice(0);
    });

    registerDelivery(ctx);
    registerFailures(ctx);
    registerValidation(ctx);
  });
}
