import { NodeAdminClient } from '@anchor/common/clients';
import { GarbageServer, SilentServer } from '@anchor/testing/bad-peers';
import { makeTempDir, stopAllProcesses, waitFor } from '@anchor/testing/process';
import { afterAll, describe, expect, it } from 'vitest';
import { CreateLoad, HealthProbe, metric, unpublished } from './fault-load.js';
import { startNodeProcess, type NodeProcess } from './node-process.js';

/**
 * Fault tests with misbehaving peers, on loopback. First, node A has two followers, B and C (real nodes); B
 * is then replaced on its port by a server that accepts connections and never answers, and A's
 * transparency log is set to a server that answers every request with garbage. While creates and Likes
 * flow: deliveries to C go on, the hung follower holds a bounded number of connections and its deliveries
 * are retried and then dead-lettered (the delivery metrics show it), A's health and intake stay quick, the
 * garbage log is called with backoff rather than in a tight loop (the anchor step failures metric shows
 * it), and once the log is cleared every acknowledged create is published. Second, A has two witnesses
 * and a policy either satisfies; one of them answers only after A's deadline: every anchor is completed by
 * the other on time, and the slow one gets a bounded number of Offers. The figures are printed for the CI log.
 */
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Short deadlines and retries, so the faults play out within the test. */
const FAST_FAILURE = [
  ['--http-timeout', '1s'],
  ['--batch-writer-timeout', '200ms'],
  ['--mq-redelivery-initial-interval', '200ms'],
  ['--mq-redelivery-multiplier', '2'],
  ['--mq-redelivery-max-interval', '1s'],
  ['--mq-redelivery-max-attempts', '3'],
].flat();

const deliveries = (outcome: string) => `node_activitypub_deliveries_total{outcome="${outcome}"}`;

async function inboxSize(node: NodeProcess): Promise<number> {
  return ((await (await fetch(`${node.url}/services/node/inbox`)).json()) as { totalItems: number }).totalItems;
}

function like(admin: NodeAdminClient, i: number): Record<string, unknown> {
  return {
    '@context': ['https://www.w3.org/ns/activitystreams', 'https://w3id.org/activityanchors/v1'],
    type: 'Like',
    to: `${admin.serviceEndpoint}/followers`,
    object: {
      '@context': 'https://w3id.org/activityanchors/v1',
      type: 'AnchorEvent',
      url: `hl:uEiA${String(i).padStart(43, 'A')}`,
    },
  };
}

describe('a node with misbehaving peers', () => {
  const servers: Array<{ close(): Promise<void> }> = [];
  afterAll(async () => {
    await stopAllProcesses();
    await Promise.all(servers.map((server) => server.close()));
  });

  it(
    'keeps delivering to healthy followers past a hung one and a garbage log, bounds retries and connections, and loses nothing',
    { timeout: 180_000 },
    async () => {
      const a = await startNodeProcess(await makeTempDir('bad-peers-a-'), { args: FAST_FAILURE });
      const b = await startNodeProcess(await makeTempDir('bad-peers-b-'));
      const c = await startNodeProcess(await makeTempDir('bad-peers-c-'));
      const admin = new NodeAdminClient({ url: a.url });
      const aId = await admin.serviceId();
      for (const follower of [b, c]) await new NodeAdminClient({ url: follower.url }).follow(aId);
      for (const follower of [b, c])
        await new NodeAdminClient({ url: follower.url }).waitUntilIn('following', aId, 30_000);

      // B goes silent on its own port; A's log answers garbage.
      await b.process.stop();
      const hung = await SilentServer.listen(b.port);
      servers.push(hung);
      const garbage = await GarbageServer.listen();
      servers.push(garbage);
      await admin.setLog(`${garbage.url}/main`);
      const cInboxBefore = await inboxSize(c);
      const retriedBefore = await metric(a, deliveries('retry'));

      const LIKES = 20;
      const loadStarted = Date.now();
      const load = new CreateLoad(() => a.url, { concurrency: 2, pauseMs: 50 });
      const probe = new HealthProbe(a);
      for (let i = 0; i < LIKES; i++) {
        await admin.postToOutbox(like(admin, i));
        await sleep(250);
      }
      // C gets every Like although each one to B hangs until A's deadline.
      await waitFor(async () => (await inboxSize(c)) - cInboxBefore >= LIKES, {
        timeoutMs: 30_000,
        intervalMs: 200,
        description: `${LIKES} Likes in C's inbox`,
      });
      const cDoneMs = Date.now() - loadStarted;
      // Every delivery to B ends: retried, then dead-lettered after the last attempt.
      await waitFor(async () => (await metric(a, deliveries('dead-lettered'))) >= LIKES, {
        timeoutMs: 60_000,
        intervalMs: 250,
        description: `${LIKES} deliveries to the hung follower dead-lettered`,
      });
      await Promise.all([load.stop(), probe.stop()]);
      const loadSeconds = (Date.now() - loadStarted) / 1000;
      const retried = (await metric(a, deliveries('retry'))) - retriedBefore;
      const deadLettered = await metric(a, deliveries('dead-lettered'));
      const logCalls = garbage.count('/main/v1/add-vc');
      const stepFailures = await metric(a, 'node_anchor_step_failures_total{');
      // Each cut batch waits for the log on the redelivery schedule (0.2, 0.4, 0.8, then 1 s apart): at most
      // about one call a second per batch once backed off, never a tight loop.
      const batches = await metric(a, 'node_batch_size_count');
      const logCallBound = Math.round(batches * (loadSeconds + 3));

      // With the log cleared, everything acknowledged is anchored and published.
      await admin.setLog('');
      const clearedAt = Date.now();
      const missing = await unpublished(a.url, load.acknowledged, 60_000);

      console.log(
        `bad peers: ${LIKES} Likes, all in the healthy follower's inbox ${cDoneMs} ms after the load began; to the hung follower ${retried} retries and ${deadLettered} dead-lettered, ` +
          `its connections ${hung.accepted} accepted, at most ${hung.peakOpen} open at once; ${load.acknowledged.length} creates acknowledged (slowest ${load.worstMs} ms; answers ${load.summary()}), ` +
          `health slowest ${probe.worstMs} ms; anchor step failures ${stepFailures}; the garbage log got ${logCalls} add-vc calls in ${loadSeconds.toFixed(1)} s for ${batches} batches (bound ${logCallBound}); ` +
          `after clearing it, lost ${missing.length}, all published ${Date.now() - clearedAt} ms later`,
      );
      expect(retried).toBeGreaterThan(0);
      expect(deadLettered).toBeGreaterThanOrEqual(LIKES);
      expect(hung.peakOpen).toBeLessThanOrEqual(100);
      expect(probe.worstMs).toBeLessThan(2_000);
      expect(load.worstMs).toBeLessThan(5_000);
      expect(load.serverErrors()).toBe(0);
      expect(logCalls).toBeGreaterThan(0);
      expect(logCalls).toBeLessThanOrEqual(logCallBound);
      expect(stepFailures).toBeGreaterThan(0);
      expect(missing).toEqual([]);
      expect(a.process.exitInfo).toBeUndefined();
    },
  );

  it(
    'completes every anchor through the other witness when one answers after the deadline, and bounds its Offers to the slow one',
    { timeout: 180_000 },
    async () => {
      const a = await startNodeProcess(await makeTempDir('slow-witness-a-'), {
        args: [
          ...FAST_FAILURE,
          '--anchor-status-in-process-grace-period',
          '2s',
          '--anchor-status-monitoring-interval',
          '500ms',
        ],
      });
      const b = await startNodeProcess(await makeTempDir('slow-witness-b-'));
      const c = await startNodeProcess(await makeTempDir('slow-witness-c-'));
      const admin = new NodeAdminClient({ url: a.url });
      const witnesses = await Promise.all(
        [b, c].map((witness) => new NodeAdminClient({ url: witness.url }).serviceId()),
      );
      for (const witness of witnesses) await admin.inviteWitness(witness);
      for (const witness of witnesses) await admin.waitUntilIn('witnesses', witness, 30_000);
      // Either witness's proof satisfies the policy: a slow one must not hold an anchor back.
      await admin.setWitnessPolicy('MinPercent(50,system)');

      // B now answers every request, Offers included, 3 s later: after A's 1 s deadline.
      await b.process.stop();
      const slow = await GarbageServer.listen({ port: b.port, delayMs: 3_000 });
      servers.push(slow);
      const retriedBefore = await metric(a, deliveries('retry'));

      const load = new CreateLoad(() => a.url, { concurrency: 2, pauseMs: 100 });
      const probe = new HealthProbe(a);
      await sleep(6_000);
      await Promise.all([load.stop(), probe.stop()]);
      const stoppedAt = Date.now();
      const missing = await unpublished(a.url, load.acknowledged, 60_000);
      const publishedMs = Date.now() - stoppedAt;
      const retried = (await metric(a, deliveries('retry'))) - retriedBefore;
      const batches = await metric(a, 'node_batch_size_count');
      const offers = slow.count('/services/node/inbox');
      console.log(
        `slow witness: ${load.acknowledged.length} creates acknowledged in ${batches} batches, lost ${missing.length}, all published ${publishedMs} ms after the load; ` +
          `the slow witness got ${slow.requests.length} requests (${offers} to its inbox), at most ${slow.peakOpen} waiting at once; ${retried} delivery retries; health slowest ${probe.worstMs} ms`,
      );
      expect(offers).toBeGreaterThan(0);
      // Each anchor's Offer to the slow witness is tried at most --mq-redelivery-max-attempts times.
      expect(offers).toBeLessThanOrEqual(batches * 3);
      expect(retried).toBeGreaterThan(0);
      expect(slow.peakOpen).toBeLessThanOrEqual(100);
      expect(probe.worstMs).toBeLessThan(2_000);
      expect(missing).toEqual([]);
      expect(a.process.exitInfo).toBeUndefined();
    },
  );
});
