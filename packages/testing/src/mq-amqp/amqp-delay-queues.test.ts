/**
 * Delay queues on the shared broker, classic and quorum (a one-member quorum queue behaves as on a cluster
 * here): a delayed message waits in `<topic>.delay.<ms>`, held by a subscription until it is due, moved to the
 * topic with a confirm and only then acked. What a subscription that goes away held comes back to another
 * one; which delay queues a subscription consumes (its retry backoffs, its process's publishes, its `delays`
 * option); old `.wait.` queues with their TTL arguments are left alone (ADR 0015).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { connect } from 'amqplib';
import { AmqpMessageQueue, HEADERS, type AmqpQueueOptions, type QueueType } from '@anchor/common/mq';
import { AMQP_LABEL, AMQP_URL, amqpUnavailable, deleteQueues, queueDepth } from '../amqp-broker/index.js';
import { eventually, expectAppError, sleep, uniqueName } from '../contract-kit/index.js';
import { Collector } from '../mq-contract/collector.js';

const unavailable = await amqpUnavailable();
if (unavailable !== undefined)
  console.warn(`[amqp delay queues] SKIPPED: RabbitMQ unreachable at ${AMQP_LABEL} (${unavailable})`);

for (const queueType of ['classic', 'quorum'] as const satisfies readonly QueueType[]) {
  describe.skipIf(unavailable !== undefined)(`amqp delay queues (${queueType})`, () => {
    const queues: AmqpMessageQueue[] = [];
    const names: string[] = [];

    async function open(options: Partial<AmqpQueueOptions> = {}): Promise<AmqpMessageQueue & { errors: string[] }> {
      const errors: string[] = [];
      const q = await AmqpMessageQueue.connect({
        url: AMQP_URL,
        queueType,
        publishTimeoutMs: 10_000,
        connectTimeoutMs: 5_000,
        onError: (e, context) => errors.push(`${context}: ${e instanceof Error ? e.message : String(e)}`),
        ...options,
      });
      queues.push(q);
      return Object.assign(q, { errors });
    }

    function topic(): string {
      const t = uniqueName('delay');
      names.push(t, `${t}.dead`);
      return t;
    }

    afterEach(async () => {
      const used = queues.splice(0);
      await Promise.all(used.map((q) => q.close()));
      const topics = names.filter((n) => !n.endsWith('.dead'));
      await deleteQueues([...names.splice(0), ...used.flatMap((q) => topics.flatMap((t) => q.queuesOf(t)))]);
    });

    it('holds a delayed message in its delay queue until due, then moves it to the topic once', async () => {
      const q = await open();
      const t = topic();
      const got = new Collector<string>();
      await q.subscribe(t, got.handler());
      const sent = Date.now();
      await q.publish(t, 'later', { delayMs: 1_200, headers: { traceparent: 'tp' } });
      // The subscription took it from the queue (unacked: not ready) and holds it.
      await eventually(async () => (await queueDepth(`${t}.delay.1200`)) === 0, 'the delay queue taken', 5_000);
      expect(got.deliveries).toHaveLength(0);
      await got.waitFor(1, 10_000);
      const [d] = got.deliveries;
      expect(d!.at - sent).toBeGreaterThanOrEqual(1_190);
      expect(d!.attempt).toBe(1);
      // The due time is transport: the handler sees the user's headers only.
      expect(d!.headers).toEqual({ traceparent: 'tp' });
      expect(d!.headers[HEADERS.dueAt]).toBeUndefined();
      await sleep(300);
      expect(got.deliveries).toHaveLength(1);
      expect(await queueDepth(`${t}.delay.1200`)).toBe(0);
      expect(await queueDepth(t)).toBe(0);
    });

    it('hands what a closed subscriber held back to another one, which moves it when due', async () => {
      const t = topic();
      const first = await open();
      const gotFirst = new Collector<string>();
      const sub = await first.subscribe(t, gotFirst.handler(), { delays: [3_000] });
      const publisher = await open();
      await publisher.publish(t, 'held', { delayMs: 3_000 });
      await eventually(
        async () => (await queueDepth(`${t}.delay.3000`)) === 0,
        'the first subscriber holding it',
        5_000,
      );
      // Gone before the message is due: it never acked it, so the broker keeps it.
      await sub.close();
      await first.close();
      expect(gotFirst.deliveries).toHaveLength(0);
      expect(await queueDepth(`${t}.delay.3000`)).toBe(1);
      const second = await open();
      const gotSecond = new Collector<string>();
      await second.subscribe(t, gotSecond.handler(), { delays: [3_000] });
      await gotSecond.waitFor(1, 10_000);
      expect(gotSecond.bodies).toEqual(['held']);
      await sleep(300);
      expect(gotSecond.deliveries).toHaveLength(1);
    });

    it('consumes the delay queues of its own retry backoffs, so that a retry comes back', async () => {
      const q = await open();
      const t = topic();
      const got = new Collector<number>();
      await q.subscribe(
        t,
        got.handler((d) => {
          if (d.attempt < 3) throw new Error('not yet');
        }),
        { maxAttempts: 3, backoff: { initialMs: 200, multiplier: 2, maxMs: 1_000 } },
      );
      // Two retries at most: backoffs of 200 and 400 ms, each declared and consumed from the start.
      expect(q.queuesOf(t)).toEqual([t, `${t}.dead`, `${t}.delay.200`, `${t}.delay.400`]);
      await q.publish(t, 7);
      await got.waitFor(3, 10_000);
      expect(got.deliveries.map((d) => d.attempt)).toEqual([1, 2, 3]);
      expect(got.deliveries[1]!.at - got.deliveries[0]!.at).toBeGreaterThanOrEqual(190);
      expect(got.deliveries[2]!.at - got.deliveries[1]!.at).toBeGreaterThanOrEqual(390);
      expect(await queueDepth(`${t}.dead`)).toBe(0);
    });

    it('reports a delay queue nobody consumes, and delivers from it once a subscription lists its delay', async () => {
      const t = topic();
      const publisher = await open();
      await publisher.publish(t, 'from afar', { delayMs: 250 });
      expect(publisher.errors.some((e) => e.includes(`${t}.delay.250`) && e.includes('250 ms'))).toBe(true);
      // A subscriber elsewhere that does not know the delay leaves it waiting.
      const blind = await open();
      const gotBlind = new Collector<string>();
      await blind.subscribe(t, gotBlind.handler());
      await sleep(800);
      expect(gotBlind.deliveries).toHaveLength(0);
      expect(await queueDepth(`${t}.delay.250`)).toBe(1);
      const told = await open();
      const got = new Collector<string>();
      await told.subscribe(t, got.handler(), { delays: [250] });
      // Either subscriber of the topic may be handed the moved message.
      await eventually(() => got.deliveries.length + gotBlind.deliveries.length === 1, 'the message delivered', 10_000);
    });

    it('starts consuming a delay its own process publishes with after it subscribed', async () => {
      const q = await open();
      const t = topic();
      const got = new Collector<string>();
      await q.subscribe(t, got.handler());
      await q.publish(t, 'x', { delayMs: 700 });
      await got.waitFor(1, 10_000);
      expect(q.errors.filter((e) => e.includes('no consumer'))).toEqual([]);
    });

    it('leaves an old wait queue of the same delay, with its TTL arguments, alone', async () => {
      const t = topic();
      const old = `${t}.wait.300`;
      names.push(old);
      const conn = await connect(AMQP_URL);
      try {
        const ch = await conn.createChannel();
        const args = { 'x-message-ttl': 300, 'x-dead-letter-exchange': '', 'x-dead-letter-routing-key': t };
        await ch.assertQueue(old, {
          durable: true,
          arguments: queueType === 'quorum' ? { ...args, 'x-queue-type': 'quorum' } : args,
        });
        await ch.close();
      } finally {
        await conn.close();
      }
      const q = await open();
      const got = new Collector<string>();
      await q.subscribe(t, got.handler());
      await q.publish(t, 'new', { delayMs: 300 });
      await got.waitFor(1, 10_000);
      expect(q.errors.filter((e) => /PRECONDITION|inequivalent/.test(e))).toEqual([]);
    });

    it('moves at once a message in a delay queue without a usable due time, keeping its body and id', async () => {
      const q = await open();
      const t = topic();
      const got = new Collector<string>();
      await q.subscribe(t, got.handler(), { delays: [60_000] });
      // Another producer's messages: no due time, and one that is not a number. Neither may stay held.
      const conn = await connect(AMQP_URL);
      try {
        const ch = await conn.createConfirmChannel();
        const props = { persistent: true, contentType: 'application/json' };
        ch.sendToQueue(`${t}.delay.60000`, Buffer.from('"no due time"'), { ...props, messageId: 'm1' });
        ch.sendToQueue(`${t}.delay.60000`, Buffer.from('"bad due time"'), {
          ...props,
          messageId: 'm2',
          headers: { [HEADERS.dueAt]: 'soon' },
        });
        await ch.waitForConfirms();
        await ch.close();
      } finally {
        await conn.close();
      }
      await got.waitFor(2, 10_000);
      expect(got.bodies.sort()).toEqual(['bad due time', 'no due time']);
      expect(got.deliveries.map((d) => d.id).sort()).toEqual(['m1', 'm2']);
      expect(await queueDepth(`${t}.delay.60000`)).toBe(0);
    });

    it('accepts waitEpochMs, now ignored, and still refuses the values it refused', async () => {
      const q = await open({ waitEpochMs: 20_000 });
      const t = topic();
      const got = new Collector<string>();
      await q.subscribe(t, got.handler());
      await q.publish(t, 'e', { delayMs: 200 });
      await got.waitFor(1, 10_000);
      expect(q.queuesOf(t).filter((n) => n.includes('.wait.'))).toEqual([]);
      await expectAppError(open({ waitEpochMs: 999 }), 'bad_request', /waitEpochMs must be an integer >= 1000/);
      await expectAppError(open({ waitEpochMs: 1_000.5 }), 'bad_request', /waitEpochMs/);
      await expectAppError(open({ waitEpochMs: Number.NaN }), 'bad_request', /waitEpochMs/);
    });
  });
}
