/**
 * Queue throughput end to end (publish -> handler -> ack), mem and AMQP. AMQP messages are persistent,
 * every publish waits for its publisher confirm, and the consumer acks each message after its handler.
 * Target: AMQP >= 5,000 messages/s end to end on the 2-core reference machine (broker on the same host).
 */
import { randomUUID } from 'node:crypto';
import { connect } from 'amqplib';
import { AmqpMessageQueue, createMemMessageQueue, type MessageQueue } from '@anchor/common/mq';
import { atLeast, report, summary } from './lib/report.js';

const AMQP_URL = process.env['AMQP_URL'] || 'amqp://guest:guest@127.0.0.1:5672';
const MESSAGES = 20_000;
/** Publishes outstanding at once (each resolving on its own confirm). */
const WINDOW = 1_000;
const POOL = 100;
const ROUNDS = 3;

interface Op {
  suffix: string;
  type: string;
  delta: string;
  n: number;
}

const body = (n: number): Op => ({
  suffix: `EiD${n.toString(36).padStart(8, '0')}`,
  type: 'update',
  delta: 'x'.repeat(150),
  n,
});

/** One round: publishes MESSAGES (WINDOW outstanding) to a fresh topic consumed with a pool of POOL. */
async function round(queue: MessageQueue): Promise<{ publish: number; endToEnd: number }> {
  const topic = `bench-${randomUUID().slice(0, 8)}`;
  let received = 0;
  let done: () => void = () => undefined;
  const allIn = new Promise<void>((r) => (done = r));
  const sub = await queue.subscribe<Op>(
    topic,
    async () => {
      if (++received === MESSAGES) done();
    },
    { concurrency: POOL },
  );
  const start = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: WINDOW }, async () => {
      while (next < MESSAGES) await queue.publish(topic, body(next++));
    }),
  );
  const published = performance.now();
  await allIn;
  const finished = performance.now();
  await sub.close();
  if (queue instanceof AmqpMessageQueue) {
    const conn = await connect(AMQP_URL);
    const ch = await conn.createChannel();
    for (const q of queue.queuesOf(topic)) await ch.deleteQueue(q);
    await conn.close();
  }
  return { publish: MESSAGES / ((published - start) / 1000), endToEnd: MESSAGES / ((finished - start) / 1000) };
}

/** Median of ROUNDS rounds (the machine is shared, single rounds are noisy). */
async function measure(kind: string, queue: MessageQueue, target?: number): Promise<void> {
  const rounds = [];
  for (let i = 0; i < ROUNDS; i++) rounds.push(await round(queue));
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  report(
    'mq',
    `${kind}: publish rate (${WINDOW} confirms outstanding)`,
    median(rounds.map((r) => r.publish)),
    'msgs/s',
  );
  report(
    'mq',
    `${kind}: publish -> consume -> ack (median of ${ROUNDS} x ${MESSAGES.toLocaleString('en-US')})`,
    median(rounds.map((r) => r.endToEnd)),
    'msgs/s',
    target === undefined ? undefined : atLeast(target),
  );
}

const mem = createMemMessageQueue();
await measure('mem', mem);
await mem.close();

let amqp: AmqpMessageQueue | undefined;
try {
  amqp = await AmqpMessageQueue.connect({ url: AMQP_URL, connectTimeoutMs: 5_000 });
} catch (error) {
  console.log(`(amqp skipped: ${(error as Error).message})`);
  report('mq', 'amqp: publish -> consume -> ack (broker unreachable)', 0, 'msgs/s', atLeast(5_000));
}
if (amqp) {
  await measure('amqp', amqp, 5_000);
  await amqp.close();
}
summary();
