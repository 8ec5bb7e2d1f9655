/**
 * The Fedify pair: signed deliveries per second from one sender to one receiver that verifies each signature
 * (verifying-receiver-process.ts: signature, digest, key fetched once and cached, owner = actor, then 202; it
 * says why it is neither sender's own inbox). Both senders deliver to it: a Fedify actor
 * (bench/peers/fedify-sender.mjs, Fedify's own `sendActivity`, 32 in flight) and our node (Like activities
 * posted to its outbox addressed to the receiver, fanned out through its queue and delivered by its delivery
 * path, 32 POSTs in flight by default; the outbox posts are part of our path). Rate: deliveries the receiver
 * verified per second, from the first send to the last delivery. CPU per delivery: the sender's process, and the
 * receiver's.
 */
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { multibaseMultihash } from '@anchor/common/encoding';
import { fileURLToPath } from 'node:url';
import { freePort, startProcess, waitFor, type ServiceProcess } from '@anchor/testing/process';
import { processCpuMs, startNodeProcess } from '../federation/node-processes.js';
import { atLeast } from '../lib/report.js';
import { pair, skipped } from './pairs.js';
import { ensure, PEERS_DIR, REPO_ROOT } from './scripts.js';

const RECEIVER_JS = fileURLToPath(new URL('./verifying-receiver-process.js', import.meta.url));
const CONCURRENCY = 32;
/** Outbox posts in flight at once against our node (the federation bench's count). */
const POSTERS = 32;
const WARMUP = 100;
/** Each sender's measured run is sized from its warm-up rate to last about this long. */
const TARGET_S = 10;
const ACTIVITY_ANCHORS = 'https://w3id.org/activityanchors/v1';
const CONTEXT_ARGS = [
  '--context',
  `${ACTIVITY_ANCHORS}=${REPO_ROOT}packages/common/src/jsonld/contexts/activityanchors-v1.json`,
];

interface Delivered {
  perSecond: number;
  deliveries: number;
  /** Deliveries the sender saw fail (warm-up included); a correct run has none. */
  failed: number;
  senderCpuMs: number | undefined;
  receiverCpuMs: number | undefined;
}

const getText = async (url: string): Promise<string> => {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`GET ${url}: ${response.status} ${await response.text()}`);
  return response.text();
};

async function start(file: string, args: string[], name: string): Promise<{ origin: string; process: ServiceProcess }> {
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  const process = await startProcess(file, {
    name,
    args: [String(port), ...args],
    readyLine: ' at http',
    readyTimeoutMs: 120_000,
  });
  return { origin, process };
}

/**
 * One sender's run: `send(n)` starts n deliveries and resolves, with how many of them the sender saw fail, when
 * it has handed them all over; the run ends when the receiver has verified all the others.
 */
async function measure(
  receiver: { origin: string; process: ServiceProcess },
  senderPid: number,
  send: (count: number) => Promise<number>,
): Promise<Delivered> {
  const count = async () => Number(await getText(`${receiver.origin}/count`));
  const deliveredBy = async (target: number, timeoutMs: number) =>
    waitFor(async () => (await count()) >= target, {
      timeoutMs,
      intervalMs: 100,
      description: `${target} deliveries at the receiver`,
    });
  const warmStart = await count();
  const warmStarted = performance.now();
  const warmFailed = await send(WARMUP);
  await deliveredBy(warmStart + WARMUP - warmFailed, 300_000);
  const warmRate = WARMUP / ((performance.now() - warmStarted) / 1000);
  const deliveries = Math.max(200, Math.min(10_000, Math.round(warmRate * TARGET_S)));
  const base = await count();
  const before = { sender: processCpuMs(senderPid), receiver: processCpuMs(receiver.process.pid) };
  const started = performance.now();
  const failed = await send(deliveries);
  await deliveredBy(base + deliveries - failed, 600_000);
  const seconds = (performance.now() - started) / 1000;
  const after = { sender: processCpuMs(senderPid), receiver: processCpuMs(receiver.process.pid) };
  const per = (a: number | undefined, b: number | undefined) =>
    a === undefined || b === undefined ? undefined : (b - a) / deliveries;
  return {
    perSecond: (deliveries - failed) / seconds,
    deliveries,
    failed: failed + warmFailed,
    senderCpuMs: per(before.sender, after.sender),
    receiverCpuMs: per(before.receiver, after.receiver),
  };
}

const describe = (who: string, figures: Delivered) =>
  console.log(
    `  ${who}: ${Math.round(figures.perSecond).toLocaleString('en-US')} deliveries/s (${figures.deliveries.toLocaleString('en-US')}); ` +
      `CPU per delivery: sender ${figures.senderCpuMs?.toFixed(3) ?? '?'} ms, receiver ${figures.receiverCpuMs?.toFixed(3) ?? '?'} ms` +
      (figures.failed > 0 ? `; ${figures.failed} FAILED at the sender` : ''),
  );

export async function fedifyPairs(dir: string): Promise<void> {
  const NAME = `deliveries: signed, one sender to one verifying inbox (${CONCURRENCY} in flight)`;
  let receiver: { origin: string; process: ServiceProcess };
  let peer: Delivered;
  try {
    ensure('ensure-peers.sh');
    receiver = await start(RECEIVER_JS, [], 'receiver');
    const sender = await start(join(PEERS_DIR, 'fedify-sender.mjs'), CONTEXT_ARGS, 'fedify-sender');
    const to = `${receiver.origin}/users/receiver`;
    const inbox = `${to}/inbox`;
    peer = await measure(receiver, sender.process.pid, async (count) => {
      const result = JSON.parse(
        await getText(
          `${sender.origin}/send?${new URLSearchParams({ to, inbox, count: String(count), concurrency: String(CONCURRENCY) })}`,
        ),
      ) as { failed: number; firstError?: string };
      if (result.failed > 0)
        console.log(`  the Fedify sender failed ${result.failed} deliveries: ${result.firstError}`);
      return result.failed;
    });
    describe('Fedify sender', peer);
    await sender.process.stop();
  } catch (error) {
    skipped(`Fedify: ${NAME}`, (error as Error).message);
    return;
  }
  try {
    const node = await startNodeProcess('sender', dir);
    const to = `${receiver.origin}/users/receiver`;
    const like = () => ({
      '@context': ['https://www.w3.org/ns/activitystreams', ACTIVITY_ANCHORS],
      type: 'Like',
      to,
      object: { '@context': ACTIVITY_ANCHORS, type: 'AnchorEvent', url: `hl:${multibaseMultihash(randomBytes(32))}` },
    });
    const ours = await measure(receiver, node.process.pid, async (count) => {
      let next = 0;
      await Promise.all(
        Array.from({ length: POSTERS }, async () => {
          while (next < count) {
            next++;
            await node.admin.postToOutbox(like());
          }
        }),
      );
      // Our node retries a failed delivery itself; the receiver's count says whether all arrived.
      return 0;
    });
    describe('our node', ours);
    const refused = Number(await getText(`${receiver.origin}/refused`));
    if (refused > 0) console.log(`  the receiver refused ${refused} deliveries (their signatures did not verify)`);
    await node.process.stop();
    pair(`Fedify: ${NAME}`, 'deliv/s', ours.perSecond, peer.perSecond, { target: atLeast(2) });
    if (ours.senderCpuMs !== undefined && peer.senderCpuMs !== undefined)
      pair(
        "Fedify: the sender's CPU per delivery (our node: outbox post included)",
        'ms',
        ours.senderCpuMs,
        peer.senderCpuMs,
        {
          lowerIsBetter: true,
        },
      );
  } finally {
    await receiver.process.stop();
  }
}
