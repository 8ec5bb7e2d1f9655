/**
 * Quorum wait queues per epoch, on the shared broker (a one-member quorum queue takes the same arguments and
 * expires the same way as on a cluster): each epoch's delayed messages go to that epoch's queue, and a publish
 * whose queue's epoch ended before it went out goes to the new epoch's queue instead (ADR 0015).
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { Options } from 'amqplib';
import { AmqpMessageQueue, HEADERS, waitQueue, workQueue, type AmqpQueueOptions } from '@anchor/common/mq';
import { AMQP_LABEL, AMQP_URL, amqpUnavailable, deleteQueues, queueDepth } from '../amqp-broker/index.js';
import { expectAppError, sleep, uniqueName } from '../contract-kit/index.js';
import { Collector } from '../mq-contract/collector.js';

const unavailable = await amqpUnavailable();
if (unavailable !== undefined)
  console.warn(`[amqp wait epochs] SKIPPED: RabbitMQ unreachable at ${AMQP_LABEL} (${unavailable})`);

/** The shortest epoch the adapter takes, so that a test sees two of them. */
const EPOCH_MS = 1_000;
/** Longer than an epoch, so that both epochs' messages are still waiting when the queues are counted. */
const DELAY_MS = 5_000;

describe.skipIf(unavailable !== undefined)('amqp quorum wait queues per epoch', () => {
  const queues: AmqpMessageQueue[] = [];
  const names: string[] = [];

  async function open(options: Partial<AmqpQueueOptions> = {}): Promise<AmqpMessageQueue> {
    const q = await AmqpMessageQueue.connect({
      url: AMQP_URL,
      queueType: 'quorum',
      waitEpochMs: EPOCH_MS,
      publishTimeoutMs: 10_000,
      connectTimeoutMs: 5_000,
      onError: () => undefined,
      ...options,
    });
    queues.push(q);
    return q;
  }

  function topic(): string {
    const t = uniqueName('epochs');
    names.push(t, `${t}.dead`);
    return t;
  }

  afterEach(async () => {
    const used = queues.splice(0);
    await Promise.all(used.map((q) => q.close()));
    await deleteQueues(names.splice(0));
  });

  /** Sleeps into the next epoch, with a margin from its edges. */
  async function nextEpoch(): Promise<void> {
    await sleep(EPOCH_MS - (Date.now() % EPOCH_MS) + 50);
  }

  it("parks each epoch's delayed messages in that epoch's own wait queue, and delivers them all", async () => {
    const q = await open();
    const t = topic();
    const waits = (): string[] => q.queuesOf(t).filter((n) => n.startsWith(`${t}.wait.`));
    await nextEpoch();
    await q.publish(t, 'a', { delayMs: DELAY_MS });
    const [first] = waits();
    await nextEpoch();
    await q.publish(t, 'b', { delayMs: DELAY_MS });
    names.push(...waits());
    expect(waits()).toHaveLength(2);
    const second = waits().find((n) => n !== first)!;
    const epochOf = (name: string): number => Number(name.split('.').pop());
    expect(first).toMatch(new RegExp(`^${t}\\.wait\\.${DELAY_MS}\\.\\d+$`));
    expect(epochOf(second)).toBeGreaterThan(epochOf(first!));
    expect(await queueDepth(first!)).toBe(1);
    expect(await queueDepth(second)).toBe(1);
    const got = new Collector<string>();
    await q.subscribe(t, got.handler());
    await got.waitFor(2, 20_000);
    expect(got.bodies).toEqual(['a', 'b']);
  });

  it("sends a publish whose wait queue's epoch ended before it went out to the new epoch's queue", async () => {
    const q = await open();
    const t = topic();
    await nextEpoch();
    const asked: string[] = [];
    let ended: string | undefined;
    // The first answer is the queue of the epoch that has just ended (as if it ended while declaring).
    const route = (now: number) => {
      const spec = waitQueue(t, DELAY_MS, 'quorum', {
        epochMs: EPOCH_MS,
        now: asked.length === 0 ? now - EPOCH_MS : now,
      });
      ended ??= spec.name;
      asked.push(spec.name);
      return [workQueue(t, 'quorum'), spec];
    };
    const props: Options.Publish = {
      persistent: true,
      messageId: 'm1',
      contentType: 'application/json',
      headers: { [HEADERS.attempt]: 1, [HEADERS.publishedAt]: Date.now() },
    };
    await q.republish(route, Buffer.from('"late"'), props, 'test publish');
    names.push(...asked);
    expect(asked).toHaveLength(2);
    expect(asked[1]).not.toBe(ended);
    // The ended epoch's queue was declared but not published to; the new one holds the message.
    expect(await queueDepth(ended!)).toBe(0);
    expect(await queueDepth(asked[1]!)).toBe(1);
  });

  it('refuses an epoch shorter than a second or not a whole number of milliseconds', async () => {
    await expectAppError(open({ waitEpochMs: 999 }), 'bad_request', /waitEpochMs must be an integer >= 1000/);
    await expectAppError(open({ waitEpochMs: 1_000.5 }), 'bad_request', /waitEpochMs/);
    await expectAppError(open({ waitEpochMs: Number.NaN }), 'bad_request', /waitEpochMs/);
  });
});
