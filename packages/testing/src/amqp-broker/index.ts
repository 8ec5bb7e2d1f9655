/**
 * The RabbitMQ the AMQP suites run against: AMQP_URL, else the local broker. Suites skip (with a printed
 * notice) when it cannot be reached, except under CI=true, where a missing broker fails the run.
 */
import { connect as tcpConnect } from 'node:net';
import { connect } from 'amqplib';
import { DEFAULT_QUEUE_DEFAULTS, delayQueue, quantizeDelay, redactUrl, retryBackoffs } from '@anchor/common/mq';

export const AMQP_URL = process.env['AMQP_URL'] || 'amqp://guest:guest@127.0.0.1:5672';
/** AMQP_URL with its password masked, for messages. */
export const AMQP_LABEL = redactUrl(AMQP_URL);

/** Undefined when the broker answers; otherwise why not. Throws under CI=true instead of returning. */
export async function amqpUnavailable(url = AMQP_URL): Promise<string | undefined> {
  const reason = await probe(url);
  if (reason !== undefined && process.env['CI'] === 'true') {
    throw new Error(`CI=true but RabbitMQ is unreachable at ${redactUrl(url)}: ${reason}`);
  }
  return reason;
}

async function probe(url: string): Promise<string | undefined> {
  const { hostname, port } = new URL(url);
  const tcp = await new Promise<string | undefined>((resolve) => {
    const socket = tcpConnect({ host: hostname, port: Number(port || 5672) });
    socket.setTimeout(2_000);
    socket.once('connect', () => {
      socket.destroy();
      resolve(undefined);
    });
    socket.once('timeout', () => {
      socket.destroy();
      resolve('connection timed out');
    });
    socket.once('error', (e) => resolve(e.message));
  });
  if (tcp !== undefined) return tcp;
  try {
    const conn = await connect(url);
    await conn.close();
    return undefined;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

/**
 * The queues a service's subscriptions of `topics` leave on a broker: each topic's work and dead-letter
 * queues, and the delay queues of both for the given delays (default: those of the default redelivery policy,
 * which every subscription with it declares). Delay queues never expire: a test or bench that does not delete
 * them leaves them on the shared broker.
 */
export function topicQueueNames(
  topics: Iterable<string>,
  delaysMs: readonly number[] = retryBackoffs(DEFAULT_QUEUE_DEFAULTS, quantizeDelay),
): string[] {
  return [...topics].flatMap((topic) =>
    [topic, `${topic}.dead`].flatMap((t) => [t, ...delaysMs.map((ms) => delayQueue(t, ms).name)]),
  );
}

/** Deletes queues (missing ones are fine), over a connection of its own. */
export async function deleteQueues(names: Iterable<string>, url = AMQP_URL): Promise<void> {
  const conn = await connect(url);
  try {
    const ch = await conn.createChannel();
    for (const name of new Set(names)) await ch.deleteQueue(name);
    await ch.close();
  } finally {
    await conn.close();
  }
}

/** Messages waiting in a queue (passive declare; 0 when it does not exist). */
export async function queueDepth(name: string, url = AMQP_URL): Promise<number> {
  const conn = await connect(url);
  try {
    const ch = await conn.createChannel();
    ch.on('error', () => undefined);
    try {
      return (await ch.checkQueue(name)).messageCount;
    } catch {
      return 0;
    }
  } finally {
    await conn.close().catch(() => undefined);
  }
}

/** Publishes one persistent message straight onto a queue (declared durable), with a publisher confirm: for tests that play a foreign publisher. */
export async function publishToQueue(
  name: string,
  body: unknown,
  headers: Record<string, string> = {},
  url = AMQP_URL,
): Promise<void> {
  const conn = await connect(url);
  try {
    const ch = await conn.createConfirmChannel();
    await ch.assertQueue(name, { durable: true });
    ch.sendToQueue(name, Buffer.from(JSON.stringify(body)), { persistent: true, headers });
    await ch.waitForConfirms();
    await ch.close();
  } finally {
    await conn.close();
  }
}
