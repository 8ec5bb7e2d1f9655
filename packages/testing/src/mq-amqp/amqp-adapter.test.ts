/**
 * AMQP-only behaviour beyond the shared contract: reconnection (through a proxy that can cut the
 * connection), bounded publishes, start-up failures, the delay-queue topology, foreign messages.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { connect } from 'amqplib';
import { AmqpMessageQueue, deadLetterTopic, HEADERS, type AmqpQueueOptions } from '@anchor/common/mq';
import { AMQP_LABEL, AMQP_URL, amqpUnavailable, deleteQueues, queueDepth } from '../amqp-broker/index.js';
import { eventually, expectAppError, sleep, uniqueName } from '../contract-kit/index.js';
import { Collector } from '../mq-contract/collector.js';
import { TcpProxy } from '../tcp-proxy/index.js';

const unavailable = await amqpUnavailable();
if (unavailable !== undefined)
  console.warn(`[amqp adapter] SKIPPED: RabbitMQ unreachable at ${AMQP_LABEL} (${unavailable})`);

describe.skipIf(unavailable !== undefined)('amqp adapter', () => {
  const queues: AmqpMessageQueue[] = [];
  const proxies: TcpProxy[] = [];
  const topics: string[] = [];

  async function open(options: Partial<AmqpQueueOptions> = {}): Promise<AmqpMessageQueue> {
    const q = await AmqpMessageQueue.connect({
      url: AMQP_URL,
      publishTimeoutMs: 10_000,
      connectTimeoutMs: 5_000,
      reconnect: { initialMs: 50, maxMs: 200 },
      onError: () => undefined,
      ...options,
    });
    queues.push(q);
    return q;
  }

  async function proxy(): Promise<TcpProxy> {
    const { hostname, port } = new URL(AMQP_URL);
    const p = await TcpProxy.start({ host: hostname, port: Number(port || 5672) });
    proxies.push(p);
    return p;
  }

  function topic(): string {
    const t = uniqueName('amqp');
    topics.push(t);
    return t;
  }

  afterEach(async () => {
    for (const p of proxies) p.accept();
    const used = queues.splice(0);
    await Promise.all(used.map((q) => q.close()));
    await deleteQueues(used.flatMap((q) => topics.flatMap((t) => q.queuesOf(t))));
    for (const p of proxies.splice(0)) await p.close();
    topics.splice(0);
  });

  it('reconnects after a connection loss: subscriptions resume and publishes made meanwhile go out', async () => {
    const p = await proxy();
    const q = await open({ url: p.through(AMQP_URL) });
    const t = topic();
    const got = new Collector<string>();
    await q.subscribe(t, got.handler());
    await q.publish(t, 'before');
    await got.waitFor(1);

    p.refuse();
    p.cut();
    await eventually(() => !q.isConnected(), 'the queue to notice the loss');
    const during = q.publish(t, 'during');
    await sleep(500);
    expect(got.bodies).toEqual(['before']);
    p.accept();
    await during;
    await eventually(() => got.bodies.includes('during'), "'during' to arrive");
    expect(q.isConnected()).toBe(true);
    await q.publish(t, 'after');
    await eventually(() => got.bodies.includes('after'), "'after' to arrive");
    // Delivery is at least once: when the cut beats the broker to the ack of 'before', the broker delivers it
    // again after the reconnect. Only that message may repeat; the others arrive once, in order.
    expect(got.bodies.filter((body) => body !== 'before')).toEqual(['during', 'after']);
    expect(got.bodies.slice(0, 1)).toEqual(['before']);
  });

  it('fails a publish clearly once the broker has been unreachable for publishTimeoutMs, and recovers', async () => {
    const p = await proxy();
    const q = await open({ url: p.through(AMQP_URL), publishTimeoutMs: 600 });
    const t = topic();
    await q.publish(t, 'ok');
    p.refuse();
    p.cut();
    const started = Date.now();
    await expectAppError(q.publish(t, 'lost'), 'unavailable', /not confirmed by the broker within 600 ms/);
    expect(Date.now() - started).toBeLessThan(3_000);
    p.accept();
    await eventually(() => q.isConnected(), 'reconnection');
    await q.publish(t, 'ok again');
    expect(await queueDepth(t)).toBe(2);
  });

  it('redelivers the message a handler was running when the connection dropped', async () => {
    const p = await proxy();
    const q = await open({ url: p.through(AMQP_URL) });
    const t = topic();
    let release: () => void = () => undefined;
    const got = new Collector<string>();
    await q.subscribe(
      t,
      got.handler(async () => {
        if (got.deliveries.length === 1) await new Promise<void>((r) => (release = r));
      }),
    );
    await q.publish(t, 'in flight');
    await got.waitFor(1);
    p.cut();
    await got.waitFor(2);
    release();
    expect(got.bodies).toEqual(['in flight', 'in flight']);
    await sleep(300);
    expect(await queueDepth(t)).toBe(0);
  });

  it('refuses bad credentials at once, and gives up on an unreachable broker after connectTimeoutMs', async () => {
    const bad = new URL(AMQP_URL);
    bad.password = 'wrong-password';
    const started = Date.now();
    await expectAppError(
      open({ url: bad.toString(), connectTimeoutMs: 10_000 }),
      'unavailable',
      /refused the credentials/,
    );
    expect(Date.now() - started).toBeLessThan(5_000);

    const p = await proxy();
    p.refuse();
    await expectAppError(
      open({ url: p.through(AMQP_URL), connectTimeoutMs: 400 }),
      'unavailable',
      /cannot connect to .* within 400 ms/,
    );
    await expectAppError(open({ url: 'http://localhost' }), 'bad_request', /amqp:\/\//);
  });

  it('parks delayed messages in one delay queue per (rounded) delay, moved to the topic when due', async () => {
    const q = await open();
    const t = topic();
    await q.publish(t, 'a', { delayMs: 1_234 });
    await q.publish(t, 'b', { delayMs: 1_290 });
    await q.publish(t, 'c', { delayMs: 250 });
    expect(q.queuesOf(t).sort()).toEqual([t, deadLetterTopic(t), `${t}.delay.1300`, `${t}.delay.250`].sort());
    expect(await queueDepth(`${t}.delay.1300`)).toBe(2);
    const started = Date.now();
    const got = new Collector<string>();
    await q.subscribe(t, got.handler());
    await got.waitFor(3);
    expect(got.bodies).toEqual(['c', 'a', 'b']);
    expect(got.deliveries[1]!.at - started).toBeGreaterThanOrEqual(1_000);
    expect(await queueDepth(`${t}.delay.1300`)).toBe(0);
  });

  // RabbitMQ 3.10 closes the whole connection (541) when a quorum queue is consumed while another channel is
  // still creating it: the subscription must start a new delay's consumer only once the publish declared it.
  it('keeps its connection when publishes bring a subscription new delay queues (quorum)', async () => {
    const errors: string[] = [];
    const q = await open({ queueType: 'quorum', onError: (error, context) => errors.push(`${context}: ${error}`) });
    for (let round = 0; round < 5; round++) {
      const t = topic();
      const got = new Collector<number>();
      await q.subscribe(t, got.handler());
      await Promise.all(Array.from({ length: 12 }, (_, i) => q.publish(t, i, { delayMs: 200 + i * 37 })));
      await got.waitFor(12, 10_000);
      expect(new Set(got.bodies).size).toBe(12);
    }
    expect(errors).toEqual([]);
  });

  it('dead-letters a message from another producer whose body is not JSON, keeping its bytes', async () => {
    const q = await open();
    const t = topic();
    const handled = new Collector();
    const dead = new Collector<unknown>();
    await q.subscribe(t, handled.handler());
    const conn = await connect(AMQP_URL);
    try {
      const ch = await conn.createConfirmChannel();
      ch.sendToQueue(t, Buffer.from('not json {'), { persistent: true, messageId: 'foreign-1' });
      await ch.waitForConfirms();
    } finally {
      await conn.close();
    }
    const raw = await connect(AMQP_URL);
    try {
      const ch = await raw.createChannel();
      await ch.assertQueue(deadLetterTopic(t), { durable: true });
      await eventually(async () => (await ch.checkQueue(deadLetterTopic(t))).messageCount === 1, 'a dead letter');
      const m = await ch.get(deadLetterTopic(t), { noAck: true });
      expect(m && m.content.toString()).toBe('not json {');
      expect(m && m.properties.messageId).toBe('foreign-1');
      expect(m && m.properties.headers?.[HEADERS.deadLetterReason]).toBe('invalid-message');
      await ch.close();
    } finally {
      await raw.close();
    }
    expect(handled.deliveries).toEqual([]);
    expect(dead.deliveries).toEqual([]);
  });

  it('redeclares and resends when a queue it had declared was deleted (the broker returned the message)', async () => {
    const q = await open();
    const t = topic();
    await q.publish(t, 'first');
    await deleteQueues([t]);
    await q.publish(t, 'second');
    expect(await queueDepth(t)).toBe(1);
    const got = new Collector<string>();
    await q.subscribe(t, got.handler());
    await got.waitFor(1);
    expect(got.bodies).toEqual(['second']);
  });

  it('resubscribes when its queue is deleted under it', async () => {
    const q = await open();
    const t = topic();
    const got = new Collector<number>();
    await q.subscribe(t, got.handler());
    await deleteQueues([t]);
    await sleep(1_500);
    await q.publish(t, 1);
    await got.waitFor(1);
    expect(got.bodies).toEqual([1]);
  });
});
