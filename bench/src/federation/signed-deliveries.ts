import { randomBytes } from 'node:crypto';
import { multibaseMultihash } from '@anchor/common/encoding';
import { waitFor } from '@anchor/testing/process';
import { loadAverage } from '../lib/machine.js';
import { metricValue, processCpuMs, startNodeProcess, type BenchNode } from './node-processes.js';

const DELIVERED = 'node_activitypub_deliveries_total{outcome="delivered"}';
const NOT_DELIVERED = ['dropped', 'dead-lettered', 'retry'].map(
  (outcome) => `node_activitypub_deliveries_total{outcome="${outcome}"}`,
);
/** Outbox posts in flight at once from the bench (the administrator's side, not what is measured). */
const POSTERS = 32;

export interface DeliveryFigures {
  deliveries: number;
  /** Deliveries completed per second, from the first outbox post to the last delivery. */
  perSecond: number;
  /** Outbox posts accepted per second (the sender's intake, for information). */
  postsPerSecond: number;
  /** Deliveries per second once every post was accepted (delivery alone); undefined when none were left by then. */
  afterPostsPerSecond: number | undefined;
  /** Deliveries that were retried, dropped or dead-lettered (a correct run has none). */
  failed: number;
  /** Seconds until every receiver had handled every activity (inbox collection), for information. */
  handledAfterS: number;
  /** CPU ms per delivery spent by the sender (its outbox intake included) and by the receivers (Linux only). */
  senderCpuMs: number | undefined;
  receiverCpuMs: number | undefined;
  /** CPU ms per delivery spent by this bench process (posting, polling metrics): it shares the cores too. */
  benchCpuMs: number;
  /** The machine's 1-minute load average when the measured run started and ended (other work on the cores). */
  loadAverage: [number, number];
}

/**
 * Signed deliveries through the node's own path: a sender node and `receivers` follower nodes run as
 * processes; the bench posts Like activities to the sender's outbox addressed to its followers, so each
 * post fans out (outbox → queue → DeliveryService) into one signed POST per follower inbox, which the
 * follower verifies (HTTP signature against the sender's key, signer = actor) before its 200. Counted
 * by the sender's `node_activitypub_deliveries_total{outcome="delivered"}`.
 */
export async function measureSignedDeliveries(
  dataRoot: string,
  options: { receivers: number; activities: number; warmup: number },
): Promise<DeliveryFigures> {
  const sender = await startNodeProcess('sender', dataRoot);
  const receivers = await Promise.all(
    Array.from({ length: options.receivers }, (_, i) => startNodeProcess(`receiver${i + 1}`, dataRoot)),
  );
  const senderId = await sender.admin.serviceId();
  for (const receiver of receivers) await receiver.admin.follow(senderId);
  await Promise.all(receivers.map(async (receiver) => receiver.admin.waitUntilIn('following', senderId, 30_000)));

  const followers = `${sender.admin.serviceEndpoint}/followers`;
  const like = () => ({
    '@context': ['https://www.w3.org/ns/activitystreams', 'https://w3id.org/activityanchors/v1'],
    type: 'Like',
    to: followers,
    object: {
      '@context': 'https://w3id.org/activityanchors/v1',
      type: 'AnchorEvent',
      url: `hl:${multibaseMultihash(randomBytes(32))}`,
    },
  });
  const postAll = async (count: number): Promise<void> => {
    let next = 0;
    await Promise.all(
      Array.from({ length: POSTERS }, async () => {
        while (next < count) {
          next++;
          await sender.admin.postToOutbox(like());
        }
      }),
    );
  };
  const deliveredReaches = (target: number) =>
    waitFor(async () => (await metricValue(sender.url, DELIVERED)) >= target, {
      timeoutMs: 300_000,
      intervalMs: 250,
      description: `${target} deliveries`,
    });

  // Warm-up: JIT, key and actor caches on both sides, LMDB pages.
  const warm = await metricValue(sender.url, DELIVERED);
  await postAll(options.warmup);
  await deliveredReaches(warm + options.warmup * receivers.length);

  const base = await metricValue(sender.url, DELIVERED);
  const failedBefore = await sumOf(sender, NOT_DELIVERED);
  const inboxBefore = await Promise.all(receivers.map((receiver) => inboxSize(receiver)));
  const cpuBefore = cpuOf(sender, receivers);
  const benchCpuBefore = process.cpuUsage();
  const loadBefore = loadAverage();
  const started = performance.now();
  await postAll(options.activities);
  const posted = performance.now();
  const deliveredWhilePosting = (await metricValue(sender.url, DELIVERED)) - base;
  const deliveries = options.activities * receivers.length;
  await deliveredReaches(base + deliveries);
  const delivered = performance.now();
  await waitFor(
    async () =>
      (
        await Promise.all(
          receivers.map((receiver, i) => inboxSize(receiver).then((size) => size - (inboxBefore[i] ?? 0))),
        )
      ).every((n) => n >= options.activities),
    {
      timeoutMs: 300_000,
      intervalMs: 200,
      description: 'the receivers to handle every activity',
    },
  );
  const handled = performance.now();
  const cpuAfter = cpuOf(sender, receivers);
  const benchCpu = process.cpuUsage(benchCpuBefore);
  const perDelivery = (before: number | undefined, after: number | undefined) =>
    before === undefined || after === undefined ? undefined : (after - before) / deliveries;
  return {
    senderCpuMs: perDelivery(cpuBefore.sender, cpuAfter.sender),
    receiverCpuMs: perDelivery(cpuBefore.receivers, cpuAfter.receivers),
    benchCpuMs: (benchCpu.user + benchCpu.system) / 1000 / deliveries,
    loadAverage: [loadBefore, loadAverage()],
    deliveries,
    perSecond: deliveries / ((delivered - started) / 1000),
    postsPerSecond: options.activities / ((posted - started) / 1000),
    afterPostsPerSecond:
      deliveredWhilePosting < deliveries
        ? (deliveries - deliveredWhilePosting) / ((delivered - posted) / 1000)
        : undefined,
    failed: (await sumOf(sender, NOT_DELIVERED)) - failedBefore,
    handledAfterS: (handled - started) / 1000,
  };
}

function cpuOf(
  sender: BenchNode,
  receivers: readonly BenchNode[],
): { sender: number | undefined; receivers: number | undefined } {
  const each = receivers.map((receiver) => processCpuMs(receiver.process.pid));
  return {
    sender: processCpuMs(sender.process.pid),
    receivers: each.some((ms) => ms === undefined) ? undefined : each.reduce((sum: number, ms) => sum + (ms ?? 0), 0),
  };
}

async function sumOf(node: BenchNode, samples: readonly string[]): Promise<number> {
  let sum = 0;
  for (const sample of samples) sum += await metricValue(node.url, sample);
  return sum;
}

async function inboxSize(node: BenchNode): Promise<number> {
  const response = await fetch(`${node.admin.serviceEndpoint}/inbox`);
  return ((await response.json()) as { totalItems: number }).totalItems;
}
