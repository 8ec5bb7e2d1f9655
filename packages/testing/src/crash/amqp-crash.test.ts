/**
 * AMQP crash behaviour with real processes: a consumer SIGKILLed in the middle of its messages has them
 * redelivered to another consumer; every message a publisher had confirmed before being SIGKILLed is
 * delivered.
 */
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { AmqpMessageQueue, deadLetterTopic } from '@anchor/common/mq';
import { AMQP_LABEL, AMQP_URL, amqpUnavailable, deleteQueues, queueDepth } from '../amqp-broker/index.js';
import { eventually, sleep, uniqueName } from '../contract-kit/index.js';
import { Collector } from '../mq-contract/collector.js';
import { Child, ensureCommonBuilt } from './built.js';

const unavailable = await amqpUnavailable();
if (unavailable !== undefined)
  console.warn(`[amqp crash] SKIPPED: RabbitMQ unreachable at ${AMQP_LABEL} (${unavailable})`);

describe.skipIf(unavailable !== undefined)('amqp crash safety', () => {
  const children: Child[] = [];
  const topics: string[] = [];
  let queue: AmqpMessageQueue | undefined;

  beforeAll(() => ensureCommonBuilt(['mq', 'errors']));
  afterEach(async () => {
    for (const c of children.splice(0)) await c.kill();
    await queue?.close();
    queue = undefined;
    await deleteQueues(topics.flatMap((t) => [t, deadLetterTopic(t)]));
    topics.splice(0);
  });

  async function open(): Promise<AmqpMessageQueue> {
    queue = await AmqpMessageQueue.connect({ url: AMQP_URL, connectTimeoutMs: 5_000, onError: () => undefined });
    return queue;
  }

  it('redelivers to another consumer the messages a killed consumer was handling', { timeout: 60_000 }, async () => {
    const topic = uniqueName('crash-consumer');
    topics.push(topic);
    const q = await open();
    const ids = Array.from({ length: 5 }, (_, i) => `held-${i}`);
    for (const id of ids) await q.publish(topic, { id }, { messageId: id });

    const child = new Child('./amqp-consumer.mjs', [AMQP_URL, topic, '5']);
    children.push(child);
    await child.waitFor('got ', 5);
    expect(await queueDepth(topic)).toBe(0);
    await child.kill();

    const got = new Collector<{ id: string }>();
    await q.subscribe(topic, got.handler());
    await got.waitFor(5);
    expect(got.deliveries.map((d) => d.id).sort()).toEqual(ids);
    await sleep(300);
    expect(got.deliveries).toHaveLength(5);
  });

  it('delivers every message a killed publisher had confirmed', { timeout: 60_000 }, async () => {
    const topic = uniqueName('crash-publisher');
    topics.push(topic);
    const q = await open();
    const child = new Child('./amqp-publisher.mjs', [AMQP_URL, topic]);
    children.push(child);
    await child.waitFor('confirmed ', 100 + Math.floor(Math.random() * 400));
    await child.kill();
    const confirmed = child.lines
      .filter((l) => l.startsWith('confirmed '))
      .map((l) => Number(l.slice('confirmed '.length)));

    const got = new Collector<{ n: number }>();
    await q.subscribe(topic, got.handler(), { concurrency: 50 });
    await eventually(
      async () => got.deliveries.length >= confirmed.length && (await queueDepth(topic)) === 0,
      'the queue to drain',
      20_000,
      100,
    );
    const received = new Set(got.bodies.map((b) => b.n));
    const lost = confirmed.filter((n) => !received.has(n));
    expect(lost).toEqual([]);
    expect(received.size).toBe(got.deliveries.length);
  });
});
