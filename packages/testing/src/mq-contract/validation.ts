import { describe, expect, it } from 'vitest';
import { MAX_DELAY_MS } from '@anchor/common/mq';
import { expectAppError, sleep } from '../contract-kit/index.js';
import { Collector } from './collector.js';
import type { MqContext } from './context.js';

export function registerValidation(ctx: MqContext): void {
  describe('bad input is refused and nothing is published', () => {
    it('refuses bad topics', async () => {
      const q = await ctx.queue();
      for (const topic of ['', ' spaced', 'a/b', 'amq.reserved', 'x'.repeat(201), '.dot-first', 'é']) {
        await expectAppError(q.publish(topic, 1), 'bad_request', /invalid topic/);
        await expectAppError(
          q.subscribe(topic, async () => undefined),
          'bad_request',
          /invalid topic/,
        );
      }
    });

    it('refuses bodies, delays, headers and ids it cannot carry', async () => {
      const q = await ctx.queue();
      const topic = ctx.topic();
      const got = new Collector();
      await q.subscribe(topic, got.handler());
      const circular: Record<string, unknown> = {};
      circular['self'] = circular;
      await expectAppError(q.publish(topic, circular), 'bad_request', /JSON/);
      await expectAppError(q.publish(topic, { n: 1n }), 'bad_request', /JSON/);
      await expectAppError(q.publish(topic, undefined), 'bad_request', /JSON/);
      await expectAppError(
        q.publish(topic, () => 1),
        'bad_request',
        /JSON/,
      );
      for (const delayMs of [-1, Number.NaN, Number.POSITIVE_INFINITY, MAX_DELAY_MS + 1]) {
        await expectAppError(q.publish(topic, 1, { delayMs }), 'bad_request', /delayMs/);
      }
      await expectAppError(q.publish(topic, 1, { headers: { 'x-attempt': '9' } }), 'bad_request', /reserved/);
      await expectAppError(q.publish(topic, 1, { headers: { 'X-Custom': 'v' } }), 'bad_request', /reserved/);
      await expectAppError(
        q.publish(topic, 1, { headers: { count: 3 as unknown as string } }),
        'bad_request',
        /must be a string/,
      );
      await expectAppError(q.publish(topic, 1, { messageId: '' }), 'bad_request', /messageId/);
      await expectAppError(q.publish(topic, 1, { messageId: 'x'.repeat(256) }), 'bad_request', /messageId/);
      await sleep(200);
      expect(got.deliveries).toEqual([]);
    });

    it('refuses bad subscription and queue options', async () => {
      const q = await ctx.queue();
      const topic = ctx.topic();
      const noop = async () => undefined;
      for (const concurrency of [0, -1, 1.5, 70_000])
        await expectAppError(q.subscribe(topic, noop, { concurrency }), 'bad_request', /concurrency/);
      for (const maxAttempts of [0, 2.5])
        await expectAppError(q.subscribe(topic, noop, { maxAttempts }), 'bad_request', /maxAttempts/);
      await expectAppError(
        q.subscribe(topic, noop, { backoff: { initialMs: -1, multiplier: 2, maxMs: 10 } }),
        'bad_request',
        /initialMs/,
      );
      await expectAppError(
        q.subscribe(topic, noop, { backoff: { initialMs: 10, multiplier: 0.5, maxMs: 10 } }),
        'bad_request',
        /multiplier/,
      );
      await expectAppError(
        q.subscribe(topic, noop, { backoff: { initialMs: 10, multiplier: 2, maxMs: 5 } }),
        'bad_request',
        /maxMs/,
      );
      await expectAppError(ctx.queue({ concurrency: 0 }), 'bad_request', /concurrency/);
      await expectAppError(ctx.queue({ backoff: { multiplier: 0 } }), 'bad_request', /multiplier/);
    });
  });
}
