import { describe, expect, it } from 'vitest';
import { deadLetterTopic, HEADERS } from '@anchor/common/mq';
import { permanent, transient } from '@anchor/common/errors';
import { sleep } from '../contract-kit/index.js';
import { Collector } from './collector.js';
import type { MqContext } from './context.js';

export function registerFailures(ctx: MqContext): void {
  describe('failures', () => {
    it('redelivers a failed message after an exponential backoff, counting attempts', async () => {
      const q = await ctx.queue();
      const topic = ctx.topic();
      const got = new Collector<string>();
      await q.subscribe(
        topic,
        got.handler((d) => {
          if (d.attempt < 3) throw transient(`try ${d.attempt} failed`);
        }),
        { maxAttempts: 5, backoff: ctx.backoff },
      );
      await q.publish(topic, 'flaky', { messageId: 'flaky-1', headers: { origin: 'test' } });
      await got.waitFor(3);
      await sleep(500);
      expect(got.deliveries.map((d) => d.attempt)).toEqual([1, 2, 3]);
      const [first, second, third] = got.deliveries;
      expect(second!.at - first!.at).toBeGreaterThanOrEqual(95);
      expect(third!.at - second!.at).toBeGreaterThanOrEqual(195);
      for (const d of got.deliveries) {
        expect(d).toMatchObject({
          id: 'flaky-1',
          body: 'flaky',
          headers: { origin: 'test' },
          publishedAt: first!.publishedAt,
        });
      }
    });

    it('treats a synchronous throw and a plain Error as retryable failures', async () => {
      const q = await ctx.queue();
      const topic = ctx.topic();
      const got: number[] = [];
      await q.subscribe(
        topic,
        ((d: { attempt: number }) => {
          got.push(d.attempt);
          if (d.attempt === 1) throw new Error('sync boom');
          return Promise.resolve();
        }) as never,
        { maxAttempts: 3, backoff: ctx.backoff },
      );
      await q.publish(topic, 'x');
      await sleep(600);
      expect(got).toEqual([1, 2]);
    });

    it('dead-letters a message after maxAttempts failed deliveries, with the reason', async () => {
      const q = await ctx.queue();
      const topic = ctx.topic();
      const attempts = new Collector<{ doc: number }>();
      const dead = new Collector<{ doc: number }>();
      await q.subscribe(
        topic,
        attempts.handler(() => Promise.reject(new Error('still broken'))),
        { maxAttempts: 3, backoff: ctx.backoff },
      );
      await q.subscribe(deadLetterTopic(topic), dead.handler());
      await q.publish(topic, { doc: 7 }, { messageId: 'doomed', headers: { origin: 'test' } });
      await dead.waitFor(1);
      await sleep(300);
      expect(attempts.deliveries.map((d) => d.attempt)).toEqual([1, 2, 3]);
      expect(dead.deliveries).toHaveLength(1);
      const d = dead.deliveries[0]!;
      expect(d).toMatchObject({
        id: 'doomed',
        topic: deadLetterTopic(topic),
        body: { doc: 7 },
        attempt: 1,
        publishedAt: attempts.deliveries[0]!.publishedAt,
      });
      expect(d.headers).toEqual({
        origin: 'test',
        [HEADERS.deadLetterReason]: 'max-attempts',
        [HEADERS.deadLetterError]: 'still broken',
        [HEADERS.originalTopic]: topic,
        [HEADERS.failedAttempts]: '3',
        [HEADERS.firstFailedAt]: expect.stringMatching(/^\d+$/),
        [HEADERS.deadLetteredAt]: expect.stringMatching(/^\d+$/),
      });
      // First and last failure: the first delivery's failure, carried across redeliveries, and the third's.
      const firstFailedAt = Number(d.headers[HEADERS.firstFailedAt]);
      const deadLetteredAt = Number(d.headers[HEADERS.deadLetteredAt]);
      expect(firstFailedAt).toBeGreaterThanOrEqual(d.publishedAt);
      expect(attempts.deliveries[1]!.headers[HEADERS.firstFailedAt]).toBe(String(firstFailedAt));
      expect(deadLetteredAt).toBeGreaterThan(firstFailedAt);
    });

    it('dead-letters at once when the error is not retryable', async () => {
      const q = await ctx.queue({ maxAttempts: 10, backoff: ctx.backoff });
      const topic = ctx.topic();
      const attempts = new Collector<string>();
      const dead = new Collector<string>();
      await q.subscribe(
        topic,
        attempts.handler(() => Promise.reject(permanent('malformed anchor'))),
      );
      await q.subscribe(deadLetterTopic(topic), dead.handler());
      await q.publish(topic, 'bad');
      await dead.waitFor(1);
      await sleep(300);
      expect(attempts.deliveries.map((d) => d.attempt)).toEqual([1]);
      expect(dead.deliveries[0]!.headers).toMatchObject({
        [HEADERS.deadLetterReason]: 'non-retryable',
        [HEADERS.deadLetterError]: 'malformed anchor',
        [HEADERS.failedAttempts]: '1',
      });
    });

    it('uses the queue defaults for attempts and backoff when a subscription sets none', async () => {
      const q = await ctx.queue({ maxAttempts: 2, backoff: { initialMs: 50, multiplier: 1, maxMs: 50 } });
      const topic = ctx.topic();
      const attempts = new Collector<string>();
      const dead = new Collector<string>();
      await q.subscribe(
        topic,
        attempts.handler(() => Promise.reject(transient('down'))),
      );
      await q.subscribe(deadLetterTopic(topic), dead.handler());
      await q.publish(topic, 'x');
      await dead.waitFor(1);
      expect(attempts.deliveries.map((d) => d.attempt)).toEqual([1, 2]);
      expect(attempts.deliveries[1]!.at - attempts.deliveries[0]!.at).toBeGreaterThanOrEqual(45);
    });

    it('keeps the other messages flowing while one is waiting for its redelivery', async () => {
      const q = await ctx.queue();
      const topic = ctx.topic();
      const got = new Collector<number>();
      await q.subscribe(
        topic,
        got.handler((d) => {
          if (d.body === 0 && d.attempt === 1) throw transient('first one fails once');
        }),
        { concurrency: 1, maxAttempts: 3, backoff: { initialMs: 800, multiplier: 1, maxMs: 800 } },
      );
      for (let i = 0; i < 5; i++) await q.publish(topic, i);
      await got.waitFor(6);
      expect(got.bodies).toEqual([0, 1, 2, 3, 4, 0]);
    });

    it('lets a dead-letter topic be consumed like any topic, and retried', async () => {
      const q = await ctx.queue();
      const topic = ctx.topic();
      const dead = new Collector<string>();
      await q.subscribe(topic, () => Promise.reject(permanent('no')));
      await q.subscribe(
        deadLetterTopic(topic),
        dead.handler((d) => {
          if (d.attempt === 1) throw transient('inspect later');
        }),
        { maxAttempts: 2, backoff: ctx.backoff },
      );
      await q.publish(topic, 'poison');
      await dead.waitFor(2);
      expect(dead.deliveries.map((d) => [d.attempt, d.headers[HEADERS.deadLetterReason]])).toEqual([
        [1, 'non-retryable'],
        [2, 'non-retryable'],
      ]);
    });
  });
}
