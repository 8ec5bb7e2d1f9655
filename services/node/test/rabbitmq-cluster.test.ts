import { join } from 'node:path';
import { makeTempDir, stopAllProcesses, waitFor, type TempDir } from '@anchor/testing/process';
import { RabbitMqCluster, rabbitmqNodeUnavailable } from '@anchor/testing/rabbitmq-cluster';
import { serializeRequest } from '@anchor/sidetree';
import { afterAll, describe, expect, it } from 'vitest';
import { TestDid } from '../src/testing/test-node.js';
import { health, unpublished } from './fault-load.js';
import { startNodeProcess, testMqNamespace } from './node-process.js';

/**
 * A node process (LMDB store, so the broker is the only shared part) on a private three-member RabbitMQ
 * cluster with quorum queues. Creates are posted over 8 connections; a third of the way in, the member
 * leading the node's anchoring queue (the one the node connected to first) is killed with SIGKILL. Every
 * acknowledged create must be published, every refusal must be a documented 503 with Retry-After, and the
 * node's consumers must go on (creates acknowledged after the kill get published too). Figures are printed.
 */
const unavailable = rabbitmqNodeUnavailable();
if (unavailable !== undefined) console.warn(`[node on rabbitmq cluster] SKIPPED: ${unavailable}`);

const CREATES = 200;
const CONNECTIONS = 8;
/**
 * Bound for publication after the kill. A batch is cut every 200 ms; the kit waits for a new leader and
 * resends unconfirmed publishes within ~1 s (ADR 0015), and a failed anchoring step is retried from 100 ms
 * growing x1.5; 60 s leaves room for a 2-core machine shared by other test runs (measured: see ADR 0015).
 */
const PUBLISHED_WITHIN_MS = 60_000;

interface Refusal {
  status: number;
  retryAfter: string | null;
  message: string;
}

describe.skipIf(unavailable !== undefined)('a node on a three-member RabbitMQ cluster', () => {
  let dir: TempDir | undefined;
  let cluster: RabbitMqCluster | undefined;

  afterAll(async () => {
    await stopAllProcesses();
    await cluster?.stop();
    await dir?.remove();
  }, 60_000);

  it('loses no acknowledged create when a member is killed -9 under load', { timeout: 240_000 }, async () => {
    dir = await makeTempDir('node-rabbit-cluster-');
    const bootStarted = Date.now();
    cluster = await RabbitMqCluster.start(join(dir.path, 'rabbitmq'), 3);
    const bootMs = Date.now() - bootStarted;
    const namespace = testMqNamespace();
    const node = await startNodeProcess(await makeTempDir('node-rabbit-cluster-data-'), {
      args: [
        '--mq-url',
        cluster.urls,
        '--mq-queue-type',
        'quorum',
        '--mq-namespace',
        namespace,
        '--batch-writer-timeout',
        '200ms',
        '--mq-redelivery-initial-interval',
        '100ms',
        '--mq-redelivery-multiplier',
        '1.5',
        '--mq-redelivery-max-interval',
        '2s',
      ],
    });

    const acknowledged: { did: TestDid; at: number }[] = [];
    const refusals: Refusal[] = [];
    const noAnswer: string[] = [];
    let posted = 0;
    let killedAt = 0;
    let killAfter: () => Promise<void> = async () => {};
    const worker = async (): Promise<void> => {
      while (posted < CREATES) {
        posted++;
        if (posted === Math.floor(CREATES / 3)) await killAfter();
        const did = new TestDid(node.url);
        try {
          const response = await fetch(`${node.url}/sidetree/v1/operations`, {
            method: 'POST',
            body: serializeRequest(did.created.request),
            headers: { 'content-type': 'application/json' },
          });
          const text = await response.text();
          if (response.status === 200) acknowledged.push({ did, at: Date.now() });
          else
            refusals.push({ status: response.status, retryAfter: response.headers.get('retry-after'), message: text });
        } catch (e) {
          noAnswer.push(e instanceof Error ? e.message : String(e));
        }
      }
    };

    // The member to kill: the leader of the node's anchoring queue (declared through the first member).
    const leaders = async (): Promise<Map<string, string>> => {
      const out = await cluster!.ctl(['list_queues', '-q', 'name', 'leader']);
      return new Map(
        out
          .trim()
          .split('\n')
          .map((line) => line.split('\t') as [string, string])
          .filter(([name]) => name.startsWith(`${namespace}.`)),
      );
    };
    const anchorQueue = `${namespace}.node.anchor`;
    const before = await waitFor(async () => ((await leaders()).has(anchorQueue) ? leaders() : undefined), {
      timeoutMs: 30_000,
      intervalMs: 500,
      description: `the queue ${anchorQueue} on the cluster`,
    });
    const victim = cluster.members.find((m) => m.nodeName === before.get(anchorQueue))!;
    expect(victim).toBeDefined();
    killAfter = async () => {
      killedAt = Date.now();
      await victim.kill();
    };

    const loadStarted = Date.now();
    await Promise.all(Array.from({ length: CONNECTIONS }, () => worker()));
    const loadEnded = Date.now();
    expect(killedAt).toBeGreaterThan(0);

    const missing = await unpublished(
      node.url,
      acknowledged.map((a) => a.did),
      PUBLISHED_WITHIN_MS,
    );
    const allPublishedAt = Date.now();
    const after = await leaders();
    const ackedAfterKill = acknowledged.filter((a) => a.at > killedAt).length;
    const statuses = new Map<number, number>();
    for (const r of refusals) statuses.set(r.status, (statuses.get(r.status) ?? 0) + 1);
    console.log(
      `[node on rabbitmq cluster] ${posted} creates over ${CONNECTIONS} connections, ${acknowledged.length} acknowledged ` +
        `(${ackedAfterKill} after the kill), refused ${[...statuses].map(([s, n]) => `${s} x${n}`).join(', ') || 'none'}, ` +
        `no answer ${noAnswer.length}, lost ${missing.length}; cluster up in ${bootMs} ms; load ${loadEnded - loadStarted} ms; ` +
        `kill -9 of ${victim.nodeName} (leader of ${anchorQueue}); all published ${allPublishedAt - killedAt} ms after the kill ` +
        `(${allPublishedAt - loadEnded} ms after the last answer)\n` +
        `[node on rabbitmq cluster] leaders before: ${JSON.stringify([...before])}\n` +
        `[node on rabbitmq cluster] leaders after: ${JSON.stringify([...after])}`,
    );
    for (const r of refusals.slice(0, 5)) console.log(`[node on rabbitmq cluster] refusal: ${JSON.stringify(r)}`);

    expect(missing).toEqual([]);
    expect(noAnswer).toEqual([]);
    // The documented refusal is a 503 with Retry-After; no 500, 502, 504 or other 5xx.
    expect(refusals.filter((r) => r.status !== 503 || r.retryAfter === null)).toEqual([]);
    // Consumers resumed: creates acknowledged after the kill were published too (they are in `missing` otherwise).
    expect(ackedAfterKill).toBeGreaterThan(0);
    expect(after.get(anchorQueue)).toBeDefined();
    expect(after.get(anchorQueue)).not.toBe(victim.nodeName);
    // The node was connected to the killed member and moved on to the next one in --mq-url.
    expect(node.process.output()).toContain(
      `connection to ${victim.url.replace(':guest@', ':***@')} lost; reconnecting to the next broker`,
    );
    // The node reports its broker healthy again, on a surviving member, without a restart.
    const report = await health(node);
    expect(report.status).toBe(200);
    expect(report.body.mqStatus).toBe('success');
    expect(node.process.exitInfo).toBeUndefined();
  });
});
