/**
 * The mq kit on a real three-member RabbitMQ cluster (private members on loopback ports, one Erlang
 * cookie, joined with rabbitmqctl; the shared broker on 5672 is not touched), quorum queues by default
 * since --mq-url names three brokers. Under a steady publish load (with confirms, a tenth of it delayed
 * through the quorum wait queues), the member both clients are connected to, which also leads the
 * queues, is killed with SIGKILL. Every confirmed message must be consumed (at least once), the clients
 * must move to the next member, and the queues must get a new leader. Figures are printed, not asserted.
 */
import { cpSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AmqpMessageQueue } from '@anchor/common/mq';
import { eventually, sleep, uniqueName } from '../contract-kit/index.js';
import { makeTempDir, type TempDir } from '../process/index.js';
import { RabbitMqCluster, rabbitmqNodeUnavailable } from '../rabbitmq-cluster/index.js';

// Quarantined (issue 32, ADR 0015): in both clean-clone CI runs of 2026-12-03, with the whole suite running,
// the delayed messages of the last 8-10% of publishes never reached the work queue (74 of 9,016 with
// at-least-once dead-lettering, 104 of 11,135 with at-most-once); alone it passed 5 of 5. Cause not found.
const quarantined =
  process.env.ANCHOR_AMQP_CLUSTER_TEST === '1'
    ? undefined
    : 'quarantined: delayed messages lost after failover under CI load (issue 32); ANCHOR_AMQP_CLUSTER_TEST=1 runs it';
const unavailable = quarantined ?? rabbitmqNodeUnavailable();
if (unavailable !== undefined) console.warn(`[amqp cluster] SKIPPED: ${unavailable}`);

/** Publishes in flight at once, and how many confirmed ones before and after the kill. */
const IN_FLIGHT = 64;
const BEFORE_KILL = 1_500;
const AFTER_KILL = 1_500;
/**
 * At-least-once dead-lettering (the quorum wait queues) resends what the target queue did not confirm after
 * this long; RabbitMQ's default is 2 min. With the default, messages a wait queue was handing over when its
 * leader died were still held 60 s later (seen once on 3.10.8): 5 s keeps the test inside its time.
 */
const ADVANCED_CONFIG = '[{rabbit, [{dead_letter_worker_publisher_confirm_timeout, 5000}]}].\n';

describe.skipIf(unavailable !== undefined)('mq kit on a three-member RabbitMQ cluster', () => {
  let dir: TempDir;
  let cluster: RabbitMqCluster | undefined;
  const queues: AmqpMessageQueue[] = [];

  beforeAll(async () => {
    dir = await makeTempDir('anchor-rabbit-cluster-');
    const started = Date.now();
    cluster = await RabbitMqCluster.start(dir.path, 3, ADVANCED_CONFIG);
    if (process.env['KEEP_CLUSTER_DIR']) console.log(dir.path);
    console.log(`[amqp cluster] three members up and joined in ${Date.now() - started} ms`);
  }, 150_000);

  afterAll(async () => {
    await Promise.all(queues.map((q) => q.close()));
    await cluster?.stop();
    if (process.env['KEEP_CLUSTER_DIR']) cpSync(dir.path, process.env['KEEP_CLUSTER_DIR'], { recursive: true });
    await dir?.remove();
  }, 60_000);

  it('loses no confirmed message when the member the clients use is killed -9 under load', async () => {
    const c = cluster!;
    const errors: string[] = [];
    const open = async (name: string): Promise<AmqpMessageQueue> => {
      const q = await AmqpMessageQueue.connect({
        url: c.urls,
        connectionName: name,
        publishTimeoutMs: 30_000,
        connectTimeoutMs: 30_000,
        reconnect: { initialMs: 100, maxMs: 1_000 },
        onError: (e, context) => errors.push(`${name}: ${context}: ${e instanceof Error ? e.message : String(e)}`),
      });
      queues.push(q);
      return q;
    };
    const publisher = await open('cluster-test-publisher');
    const consumer = await open('cluster-test-consumer');
    const [first, second] = c.members;
    const address = (url: string): string => url.replace(/:guest@/, ':***@');
    expect(publisher.queueType).toBe('quorum');
    expect(publisher.connectedBroker()).toBe(address(first!.url));
    expect(consumer.connectedBroker()).toBe(address(first!.url));

    const topic = uniqueName('cluster');
    const consumed = new Map<number, number>();
    await consumer.subscribe<number>(
      topic,
      async (d) => {
        consumed.set(d.body, (consumed.get(d.body) ?? 0) + 1);
      },
      { concurrency: 50 },
    );

    const confirmed = new Set<number>();
    const failed: string[] = [];
    let next = 0;
    let killedAt = 0;
    let firstConfirmAfterKill = 0;
    let stop = false;
    const worker = async (): Promise<void> => {
      while (!stop) {
        const id = next++;
        try {
          await publisher.publish(topic, id, id % 10 === 0 ? { delayMs: 300 } : undefined);
          confirmed.add(id);
          if (killedAt > 0 && firstConfirmAfterKill === 0) firstConfirmAfterKill = Date.now();
        } catch (e) {
          failed.push(`${id}: ${e instanceof Error ? e.message : String(e)}`);
        }
      }
    };
    const loadStarted = Date.now();
    const workers = Array.from({ length: IN_FLIGHT }, () => worker());

    await eventually(() => confirmed.size >= BEFORE_KILL, `${BEFORE_KILL} confirmed publishes`, 60_000);
    const beforeKill = confirmed.size;
    const leaderBefore = await c.ctl(['list_queues', '-q', 'name', 'type', 'leader', 'members']);
    killedAt = Date.now();
    await first!.kill();
    const killDone = Date.now();
    await eventually(() => publisher.connectedBroker() !== undefined, 'the publisher to reconnect', 60_000);
    const reconnectedAt = Date.now();
    await eventually(() => confirmed.size >= beforeKill + AFTER_KILL, `${AFTER_KILL} confirms after the kill`, 90_000);
    stop = true;
    await Promise.all(workers);
    const loadEnded = Date.now();

    // Waits for the consumer to have every confirmed message (without throwing, so the figures get printed).
    const missing = (): number[] => [...confirmed].filter((id) => !consumed.has(id));
    const drainDeadline = Date.now() + 60_000;
    while (missing().length > 0 && Date.now() < drainDeadline) await sleep(100);
    const drainedAt = Date.now();
    const leaderAfter = await c.ctl([
      'list_queues',
      '-q',
      'name',
      'type',
      'leader',
      'members',
      'messages_ready',
      'messages_unacknowledged',
    ]);
    const duplicates = [...consumed.values()].filter((n) => n > 1).length;
    const lost = missing().length;
    console.log(
      `[amqp cluster] ${next} publishes, ${confirmed.size} confirmed (${beforeKill} before the kill), ` +
        `${failed.length} failed, ${lost} confirmed but not consumed, ${consumed.size} distinct consumed, ` +
        `${duplicates} consumed more than once; load ${loadEnded - loadStarted} ms; kill -9 of ${first!.nodeName} ` +
        `took ${killDone - killedAt} ms; publisher reconnected to ${publisher.connectedBroker()} ` +
        `${reconnectedAt - killedAt} ms after the kill, first confirm after the kill at +${firstConfirmAfterKill - killedAt} ms; ` +
        `all consumed ${drainedAt - killedAt} ms after the kill\n` +
        `[amqp cluster] queues before the kill:\n${leaderBefore}[amqp cluster] after:\n${leaderAfter}`,
    );
    if (failed.length > 0) console.log(`[amqp cluster] failed publishes: ${failed.slice(0, 5).join('; ')}`);
    if (lost > 0) console.log(`[amqp cluster] not consumed: ${missing().slice(0, 20).join(', ')}`);
    console.log(`[amqp cluster] client reports (${errors.length}):\n${errors.slice(0, 15).join('\n')}`);

    expect(lost).toBe(0);
    // Every publish was confirmed in the end: the client waited for the next member instead of failing.
    expect(failed).toEqual([]);
    // The clients went to the next member in --mq-url order, and both report the loss they recovered from.
    expect(publisher.connectedBroker()).toBe(address(second!.url));
    expect(consumer.connectedBroker()).toBe(address(second!.url));
    expect(errors.some((e) => e.startsWith('cluster-test-publisher: connection to') && e.includes('lost'))).toBe(true);
    // The queue is a quorum queue on all three members and no longer led by the killed one.
    const workLine = leaderAfter.split('\n').find((l) => l.startsWith(`${topic}\t`));
    expect(workLine).toMatch(/\tquorum\t/);
    expect(workLine).not.toMatch(new RegExp(`\\t${first!.nodeName}\\t`));
  }, 240_000);
});
