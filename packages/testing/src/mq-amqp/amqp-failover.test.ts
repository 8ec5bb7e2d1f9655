/**
 * Several broker addresses in one --mq-url, on the single local broker reached through one proxy per
 * address (each proxy plays a cluster member that can be cut off): the order of the first connection, the
 * move to the next address after a loss (with the subscription resumed and unconfirmed publishes sent
 * again), and the queue type that follows from the number of addresses. The real three-member cluster
 * with kill -9 is amqp-cluster.test.ts.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { AmqpMessageQueue, type AmqpQueueOptions } from '@anchor/common/mq';
import { AMQP_LABEL, AMQP_URL, amqpUnavailable, deleteQueues } from '../amqp-broker/index.js';
import { eventually, expectAppError, uniqueName } from '../contract-kit/index.js';
import { Collector } from '../mq-contract/collector.js';
import { TcpProxy } from '../tcp-proxy/index.js';

const unavailable = await amqpUnavailable();
if (unavailable !== undefined)
  console.warn(`[amqp failover] SKIPPED: RabbitMQ unreachable at ${AMQP_LABEL} (${unavailable})`);

describe.skipIf(unavailable !== undefined)('amqp adapter over several broker addresses', () => {
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

  async function members(n: number): Promise<TcpProxy[]> {
    const { hostname, port } = new URL(AMQP_URL);
    const started: TcpProxy[] = [];
    for (let i = 0; i < n; i++) started.push(await TcpProxy.start({ host: hostname, port: Number(port || 5672) }));
    proxies.push(...started);
    return started;
  }

  const list = (ps: TcpProxy[]): string => ps.map((p) => p.through(AMQP_URL)).join(',');

  function topic(): string {
    const t = uniqueName('amqp-failover');
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

  it('connects to the first address that answers, in the order given', async () => {
    const [a, b, c] = await members(3);
    a!.refuse();
    const q = await open({ url: list([a!, b!, c!]) });
    expect(q.connectedBroker()).toBe(b!.through(AMQP_URL).replace(/:guest@/, ':***@'));
    const t = topic();
    const got = new Collector<string>();
    await q.subscribe(t, got.handler());
    await q.publish(t, 'one');
    await got.waitFor(1);
  });

  it('after a lost connection moves to the next address, resumes the subscription and loses no confirmed publish', async () => {
    const ps = await members(3);
    const q = await open({ url: list(ps) });
    const addressOf = (p: TcpProxy): string => p.through(AMQP_URL).replace(/:guest@/, ':***@');
    expect(q.connectedBroker()).toBe(addressOf(ps[0]!));
    const t = topic();
    const got = new Collector<number>();
    await q.subscribe(t, got.handler(), { concurrency: 20 });

    const confirmed = new Set<number>();
    const failed: unknown[] = [];
    let n = 0;
    const publishSome = async (count: number): Promise<void> => {
      const batch: Promise<void>[] = [];
      for (let i = 0; i < count; i++) {
        const id = n++;
        batch.push(
          q.publish(t, id).then(
            () => void confirmed.add(id),
            (e: unknown) => void failed.push(e),
          ),
        );
      }
      await Promise.all(batch);
    };

    // Each member in turn is cut off (and refuses new connections) with publishes in flight: the client
    // goes to the next one, wrapping round to the first once it is back.
    const visited = [addressOf(ps[0]!)];
    for (const [i, next] of [1, 2, 0].entries()) {
      const current = ps[[0, 1, 2][i]!]!;
      const inFlight = publishSome(100);
      current.refuse();
      current.cut();
      ps[next]!.accept();
      await inFlight;
      await eventually(() => q.connectedBroker() === addressOf(ps[next]!), `the move to address ${next + 1}`);
      visited.push(q.connectedBroker()!);
      await publishSome(50);
    }
    expect(failed).toEqual([]);
    expect(visited).toEqual([0, 1, 2, 0].map((i) => addressOf(ps[i]!)));
    await eventually(() => [...confirmed].every((id) => got.bodies.includes(id)), 'every confirmed message to arrive');
    expect(confirmed.size).toBe(n);
  });

  it('declares quorum queues by default for several addresses, classic for one, and names a type clash', async () => {
    const [a, b] = await members(2);
    const cluster = await open({ url: list([a!, b!]) });
    expect(cluster.queueType).toBe('quorum');
    const single = await open();
    expect(single.queueType).toBe('classic');
    const t = topic();
    await cluster.publish(t, 'in a quorum queue');
    // The broker keeps a queue's type: a classic declaration of the same queue is refused, with the way out.
    await expectAppError(
      single.publish(t, 'classic?'),
      'internal',
      /exists on the broker with another type than classic/,
    );
    const explicit = await open({ url: list([a!, b!]), queueType: 'classic' });
    expect(explicit.queueType).toBe('classic');
  });
});
