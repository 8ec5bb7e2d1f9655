import { NodeAdminClient } from '@anchor/common/clients';
import { GarbageServer, SilentServer } from '@anchor/testing/bad-peers';
import { makeTempDir, stopAllProcesses, waitFor } from '@anchor/testing/process';
import { afterAll, describe, expect, it } from 'vitest';
import { metadataOf, postOperation, resolveDid, TestDid } from '../src/testing/test-node.js';
import { startNodeProcess, type NodeProcess } from './node-process.js';

/**
 * Fault tests with misbehaving peers, on loopback. First, node A has two followers, B and C (real nodes); B
 * is then replaced on its port by a server that accepts connections and never answers, and A's
 * transparency log is set to a server that answers every request with garbage. While creates and Likes
 * flow: deliveries to C go on, the hung follower holds a bounded number of connections and its deliveries
 * are retried and then dead-lettered (the delivery metrics show it), A's health and intake stay quick, the
 * garbage log is called with backoff rather than in a tight loop, and once the log is cleared every
 * acknowledged create is published. Second, A has two witnesses and a policy either satisfies; one of them
 * answers only after A's deadline: every anchor is completed by the other on time, and the slow one gets
 * a bounded number of Offers. The figures are printed for the CI log.
 */
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function metric(node: NodeProcess, sample: string): Promise<number> {
  const text = await (await fetch(`${node.url}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith(`${sample} `));
  return line ? Number(line.slice(sample.length + 1)) : 0;
}

/** The sum of every series of a family, e.g. `node_anchor_step_failures_total{`. */
async function metricSum(node: NodeProcess, prefix: string): Promise<number> {
  const text = await (await fetch(`${node.url}/metrics`)).text();
  return text
    .split('\n')
    .filter((l) => l.startsWith(prefix))
    .reduce((sum, l) => sum + Number(l.slice(l.lastIndexOf(' ') + 1)), 0);
}

const deliveries = (outcome: string) => `node_activitypub_deliveries_total{outcome="${outcome}"}`;

async function inboxSize(node: NodeProcess): Promise<number> {
  return ((await (await fetch(`${node.url}/services/node/inbox`)).json()) as { totalItems: number }).totalItems;
}

describe('a node with a hung follower and a log that answers garbage', () => {
  const servers: Array<{ close(): Promise<void> }> = [];
  afterAll(async () => {
    await stopAllProcesses();
    await Promise.all(servers.map((server) => server.close()));
  });

  it(
    'keeps delivering to healthy followers, bounds its retries and connections, and loses nothing',
    { timeout: 180_000 },
    async () => {
      const a = await startNodeProcess(await makeTempDir('bad-peers-a-'), {
        args: [
          '--http-timeout',
          '1s',
          '--batch-writer-timeout',
          '200ms',
          '--mq-redelivery-initial-interval',
          '200ms',
          '--mq-redelivery-multiplier',
          '2',
          '--mq-redelivery-max-interval',
          '1s',
          '--mq-redelivery-max-attempts',
          '3',
        ],
      });
      const b = await startNodeProcess(await makeTempDir('bad-peers-b-'));
      const c = await startNodeProcess(await makeTempDir('bad-peers-c-'));
      const admin = {
        a: new NodeAdminClient({ url: a.url }),
        b: new NodeAdminClient({ url: b.url }),
        c: new NodeAdminClient({ url: c.url }),
      };
      const aId = await admin.a.serviceId();
      await admin.b.follow(aId);
      await admin.c.follow(aId);
      await admin.b.waitUntilIn('following', aId, 30_000);
      await admin.c.waitUntilIn('following', aId, 30_000);

      // B goes silent on its own port; A's log answers garbage.
      await b.process.stop();
      const hung = await SilentServer.listen(b.port);
      servers.push(hung);
      const garbage = await GarbageServer.listen();
      servers.push(garbage);
      await admin.a.setLog(`${garbage.url}/main`);
      const cInboxBefore = await inboxSize(c);
      const retriedBefore = await metric(a, deliveries('retry'));

      const acknowledged: TestDid[] = [];
      const refused = new Map<number, number>();
      let healthWorstMs = 0;
      let acceptWorstMs = 0;
      let loading = true;
      const creator = async () => {
        while (loading) {
          const did = new TestDid(a.url);
          const started = Date.now();
          const answer = await postOperation(a.url, did.created.request);
          acceptWorstMs = Math.max(acceptWorstMs, Date.now() - started);
          if (answer.status === 200) acknowledged.push(did);
          else refused.set(answer.status, (refused.get(answer.status) ?? 0) + 1);
          await sleep(50);
        }
      };
      const prober = async () => {
        while (loading) {
          const started = Date.now();
          await fetch(`${a.url}/healthcheck`).then((r) => r.arrayBuffer());
          healthWorstMs = Math.max(healthWorstMs, Date.now() - started);
          await sleep(200);
        }
      };
      const LIKES = 20;
      const loadStarted = Date.now();
      const load = Promise.all([creator(), creator(), prober()]);
      for (let i = 0; i < LIKES; i++) {
        await admin.a.postToOutbox({
          '@context': ['https://www.w3.org/ns/activitystreams', 'https://w3id.org/activityanchors/v1'],
          type: 'Like',
          to: `${admin.a.serviceEndpoint}/followers`,
          object: {
            '@context': 'https://w3id.org/activityanchors/v1',
            type: 'AnchorEvent',
            url: `hl:uEiA${String(i).padStart(43, 'A')}`,
          },
        });
        await sleep(250);
      }
      // C gets every Like although each one to B hangs until A's timeout.
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
      loading = false;
      await load;
      const loadSeconds = (Date.now() - loadStarted) / 1000;
      const retried = (await metric(a, deliveries('retry'))) - retriedBefore;
      const deadLettered = await metric(a, deliveries('dead-lettered'));
      const logCalls = garbage.count('/main/v1/add-vc');
      const stepFailures = await metricSum(a, 'node_anchor_step_failures_total{');
      // Each cut batch waits for the log on the redelivery schedule (0.2, 0.4, 0.8, then 1 s apart): at most
      // about one call a second per batch once backed off, never a tight loop.
      const batches = await metric(a, 'node_batch_size_count');
      const logCallBound = Math.round(batches * (loadSeconds + 3));
      const unpublishedWhileGarbage = acknowledged.length;

      // With the log cleared, everything acknowledged is anchored and published.
      await admin.a.setLog('');
      const clearedAt = Date.now();
      const pending = new Set(acknowledged);
      await waitFor(
        async () => {
          await Promise.all(
            [...pending].slice(0, 50).map(async (did) => {
              const answer = await resolveDid(a.url, did.did);
              if (
                answer.status === 200 &&
                (metadataOf(answer)?.method as { published?: boolean } | undefined)?.published === true
              )
                pending.delete(did);
            }),
          );
          return pending.size === 0;
        },
        {
          timeoutMs: 60_000,
          intervalMs: 200,
          description: `${pending.size} acknowledged creates published after the log was cleared`,
        },
      ).catch(() => undefined);

      console.log(
        `bad peers: ${LIKES} Likes, all in the healthy follower's inbox ${cDoneMs} ms after the load began; to the hung follower ${retried} retries and ${deadLettered} dead-lettered, ` +
          `its connections ${hung.accepted} accepted, at most ${hung.peakOpen} open at once; ${acknowledged.length} creates acknowledged (worst ${acceptWorstMs} ms, refused ${[...refused].map(([s, n]) => `${s}: ${n}`).join(', ') || 'none'}), ` +
          `health worst ${healthWorstMs} ms; anchor step failures ${stepFailures}; the garbage log got ${logCalls} add-vc calls in ${loadSeconds.toFixed(1)} s for ${batches} batches (bound ${logCallBound}) of ${unpublishedWhileGarbage} creates; ` +
          `after clearing it, lost ${pending.size}, all published ${Date.now() - clearedAt} ms later`,
      );
      expect(retried).toBeGreaterThan(0);
      expect(deadLettered).toBeGreaterThanOrEqual(LIKES);
      expect(hung.peakOpen).toBeLessThanOrEqual(100);
      expect(healthWorstMs).toBeLessThan(2_000);
      expect(acceptWorstMs).toBeLessThan(5_000);
      expect([...refused.keys()].filter((status) => status >= 500)).toEqual([]);
      expect(logCalls).toBeGreaterThan(0);
      expect(stepFailures).toBeGreaterThan(0);
      expect(logCalls).toBeLessThanOrEqual(logCallBound);
      expect([...pending].map((did) => did.did)).toEqual([]);
      expect(a.process.exitInfo).toBeUndefined();
    },
  );

  it(
    'completes every anchor through the other witness when one answers after the deadline, and bounds its Offers to the slow one',
    { timeout: 180_000 },
    async () => {
      const a = await startNodeProcess(await makeTempDir('slow-witness-a-'), {
        args: [
          '--http-timeout',
          '1s',
          '--batch-writer-timeout',
          '200ms',
          '--anchor-status-in-process-grace-period',
          '2s',
          '--anchor-status-monitoring-interval',
          '500ms',
          '--mq-redelivery-initial-interval',
          '200ms',
          '--mq-redelivery-multiplier',
          '2',
          '--mq-redelivery-max-interval',
          '1s',
          '--mq-redelivery-max-attempts',
          '3',
        ],
      });
      const b = await startNodeProcess(await makeTempDir('slow-witness-b-'));
      const c = await startNodeProcess(await makeTempDir('slow-witness-c-'));
      const admin = new NodeAdminClient({ url: a.url });
      const [bId, cId] = await Promise.all([
        new NodeAdminClient({ url: b.url }).serviceId(),
        new NodeAdminClient({ url: c.url }).serviceId(),
      ]);
      await admin.inviteWitness(bId);
      await admin.inviteWitness(cId);
      await admin.waitUntilIn('witnesses', bId, 30_000);
      await admin.waitUntilIn('witnesses', cId, 30_000);
      // Either witness's proof satisfies the policy: a slow one must not hold an anchor back.
      await admin.setWitnessPolicy('MinPercent(50,system)');

      // B now answers every request, Offers included, 3 s later: after A's 1 s deadline.
      await b.process.stop();
      const slow = await GarbageServer.listen({ port: b.port, delayMs: 3_000 });
      servers.push(slow);
      const retriedBefore = await metric(a, deliveries('retry'));

      const acknowledged: TestDid[] = [];
      let healthWorstMs = 0;
      let loading = true;
      const creator = async () => {
        while (loading) {
          const did = new TestDid(a.url);
          if ((await postOperation(a.url, did.created.request)).status === 200) acknowledged.push(did);
          await sleep(100);
        }
      };
      const prober = async () => {
        while (loading) {
          const started = Date.now();
          await fetch(`${a.url}/healthcheck`).then((r) => r.arrayBuffer());
          healthWorstMs = Math.max(healthWorstMs, Date.now() - started);
          await sleep(200);
        }
      };
      const load = Promise.all([creator(), creator(), prober()]);
      await sleep(6_000);
      loading = false;
      await load;
      const stoppedAt = Date.now();

      const pending = new Set(acknowledged);
      await waitFor(
        async () => {
          await Promise.all(
            [...pending].slice(0, 50).map(async (did) => {
              const answer = await resolveDid(a.url, did.did);
              if (
                answer.status === 200 &&
                (metadataOf(answer)?.method as { published?: boolean } | undefined)?.published === true
              )
                pending.delete(did);
            }),
          );
          return pending.size === 0;
        },
        {
          timeoutMs: 60_000,
          intervalMs: 200,
          description: `${pending.size} acknowledged creates published with the slow witness replaced`,
        },
      ).catch(() => undefined);
      const publishedMs = Date.now() - stoppedAt;
      const retried = (await metric(a, deliveries('retry'))) - retriedBefore;
      const batches = await metric(a, 'node_batch_size_count');
      console.log(
        `slow witness: ${acknowledged.length} creates acknowledged in ${batches} batches, lost ${pending.size}, all published ${publishedMs} ms after the load; the slow witness got ${slow.requests.length} requests ` +
          `(${slow.count('/services/node/inbox')} to its inbox), at most ${slow.peakOpen} waiting at once; ${retried} delivery retries; health worst ${healthWorstMs} ms`,
      );
      expect(slow.count('/services/node/inbox')).toBeGreaterThan(0);
      // Each anchor's Offer to the slow witness is tried at most --mq-redelivery-max-attempts times.
      expect(slow.count('/services/node/inbox')).toBeLessThanOrEqual(batches * 3);
      expect(retried).toBeGreaterThan(0);
      expect(slow.peakOpen).toBeLessThanOrEqual(100);
      expect(healthWorstMs).toBeLessThan(2_000);
      expect([...pending].map((did) => did.did)).toEqual([]);
      expect(a.process.exitInfo).toBeUndefined();
    },
  );
});
