import { describe, expect, it } from 'vitest';
import { eventually, sleep } from '../contract-kit/index.js';
import { Collector } from './collector.js';
import type { MqContext } from './context.js';

export function registerDelivery(ctx: MqContext): void {
  describe('delivery', () => {
    it('delivers a message with its id, headers, attempt and publish time', async () => {
      const q = await ctx.queue();
      const topic = ctx.topic();
      const got = new Collector<{ n: number; tags: string[] }>();
      await q.subscribe(topic, got.handler());
      const before = Date.now();
      await q.publish(
        topic,
        { n: 1, tags: ['a'] },
        { messageId: 'msg-1', headers: { traceparent: '00-abc-def-01', kind: 'test' } },
      );
      await got.waitFor(1);
      const d = got.deliveries[0]!;
      expect(d).toMatchObject({ id: 'msg-1', topic, body: { n: 1, tags: ['a'] }, attempt: 1 });
      expect(d.headers).toEqual({ traceparent: '00-abc-def-01', kind: 'test' });
      expect(d.publishedAt).toBeGreaterThanOrEqual(before - 5);
      expect(d.publishedAt).toBeLessThanOrEqual(Date.now());
    });

    it('gives every message a unique id by default and copies bodies as JSON', async () => {
      const q = await ctx.queue();
      const topic = ctx.topic();
      const got = new Collector<Record<string, unknown>>();
      await q.subscribe(topic, got.handler());
      const body: Record<string, unknown> = { when: new Date(0), gone: undefined, list: [1] };
      await q.publish(topic, body);
      (body['list'] as number[]).push(2);
      await q.publish(topic, 'plain string');
      await q.publish(topic, null);
      await got.waitFor(3);
      expect(got.bodies).toEqual([{ when: '1970-01-01T00:00:00.000Z', list: [1] }, 'plain string', null]);
      const ids = got.deliveries.map((d) => d.id);
      expect(new Set(ids).size).toBe(3);
      for (const id of ids) expect(id).toMatch(/^[0-9a-f-]{36}$/);
    });

    it('keeps messages published before anyone subscribed', async () => {
      const q = await ctx.queue();
      const topic = ctx.topic();
      for (let i = 0; i < 5; i++) await q.publish(topic, i);
      const got = new Collector<number>();
      await q.subscribe(topic, got.handler(), { concurrency: 1 });
      await got.waitFor(5);
      expect(got.bodies).toEqual([0, 1, 2, 3, 4]);
    });

    it('delivers in publish order to a single consumer with a pool of one', async () => {
      const q = await ctx.queue();
      const topic = ctx.topic();
      const got = new Collector<number>();
      await q.subscribe(topic, got.handler(), { concurrency: 1 });
      await Promise.all(Array.from({ length: 50 }, (_, i) => q.publish(topic, i)));
      await got.waitFor(50);
      expect(got.bodies).toEqual(Array.from({ length: 50 }, (_, i) => i));
    });

    it('delivers each of many concurrently published messages exactly once', async () => {
      const q = await ctx.queue();
      const topic = ctx.topic();
      const got = new Collector<number>();
      await q.subscribe(topic, got.handler(), { concurrency: 20 });
      await Promise.all(Array.from({ length: 500 }, (_, i) => q.publish(topic, i)));
      await got.waitFor(500);
      await sleep(100);
      expect([...got.bodies].sort((a, b) => a - b)).toEqual(Array.from({ length: 500 }, (_, i) => i));
    });

    it('shares a topic between competing consumers, each message going to one of them', async () => {
      const q = await ctx.queue();
      const topic = ctx.topic();
      const a = new Collector<number>();
      const b = new Collector<number>();
      const slow = () => sleep(20);
      await q.subscribe(topic, a.handler(slow), { concurrency: 2 });
      await q.subscribe(topic, b.handler(slow), { concurrency: 2 });
      await Promise.all(Array.from({ length: 40 }, (_, i) => q.publish(topic, i)));
      const total = () => a.deliveries.length + b.deliveries.length;
      await eventually(() => total() >= 40, '40 deliveries');
      await sleep(100);
      expect(total()).toBe(40);
      expect(a.deliveries.length).toBeGreaterThan(5);
      expect(b.deliveries.length).toBeGreaterThan(5);
      expect(new Set([...a.bodies, ...b.bodies]).size).toBe(40);
    });

    it('runs at most `concurrency` handlers of a subscription at once, defaulting to the queue option', async () => {
      for (const [queueDefault, subscribed, expected] of [
        [4, undefined, 4],
        [4, 2, 2],
      ] as const) {
        const q = await ctx.queue({ concurrency: queueDefault });
        const topic = ctx.topic();
        // Everything is queued before the subscription starts, so the pool is the only limit.
        for (let i = 0; i < 12; i++) await q.publish(topic, i);
        let running = 0;
        let peak = 0;
        const got = new Collector<number>();
        await q.subscribe(
          topic,
          got.handler(async () => {
            running++;
            peak = Math.max(peak, running);
            await sleep(150);
            running--;
          }),
          subscribed === undefined ? undefined : { concurrency: subscribed },
        );
        await got.waitFor(12);
        await sleep(200);
        expect(peak).toBe(expected);
      }
    });

    it('delays a message by delayMs, without a long delay holding up a short one', async () => {
      const q = await ctx.queue();
      const topic = ctx.topic();
      const got = new Collector<string>();
      await q.subscribe(topic, got.handler());
      const start = Date.now();
      await q.publish(topic, 'late', { delayMs: 1_500 });
      await q.publish(topic, 'soon', { delayMs: 300 });
      await q.publish(topic, 'now');
      await got.waitFor(3, 15_000);
      expect(got.bodies).toEqual(['now', 'soon', 'late']);
      const at = (body: string) => got.deliveries.find((d) => d.body === body)!.at - start;
      expect(at('soon')).toBeGreaterThanOrEqual(290);
      expect(at('soon')).toBeLessThan(1_400);
      expect(at('late')).toBeGreaterThanOrEqual(1_490);
      expect(got.deliveries.find((d) => d.body === 'late')!.attempt).toBe(1);
    });

    it('stops a closed subscription, letting its running handlers finish first', async () => {
      const q = await ctx.queue();
      const topic = ctx.topic();
      let finished = false;
      const got = new Collector<number>();
      const sub = await q.subscribe(
        topic,
        got.handler(async () => {
          await sleep(200);
          finished = true;
        }),
      );
      await q.publish(topic, 1);
      await got.waitFor(1);
      await sub.close();
      expect(finished).toBe(true);
      await q.publish(topic, 2);
      await sleep(200);
      expect(got.bodies).toEqual([1]);
      const next = new Collector<number>();
      await q.subscribe(topic, next.handler());
      await next.waitFor(1);
      expect(next.bodies).toEqual([2]);
    });

    it('refuses work once closed', async () => {
      const q = await ctx.queue();
      const topic = ctx.topic();
      expect(q.isConnected()).toBe(true);
      await q.close();
      expect(q.isConnected()).toBe(false);
      await expect(q.publish(topic, 1)).rejects.toMatchObject({ code: 'unavailable' });
      await expect(q.subscribe(topic, async () => undefined)).rejects.toMatchObject({ code: 'unavailable' });
      await q.close();
    });
  });
}
