import { createStoreProvider, StoreLease } from '@anchor/common/storage';
import { AMQP_URL, amqpUnavailable, deleteQueues } from '@anchor/testing/amqp-broker';
import { waitFor } from '@anchor/testing/process';
import { haproxyBinary, startNodeReplicas, type Replica, type ReplicaSet } from '@anchor/testing/replicas';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AnchorBatches, UNFINISHED } from '../src/anchoring/anchor-batches.js';
import {
  checkResolution,
  createAll,
  published,
  publishedTwice,
  TestDid,
  type Published,
} from '../src/testing/index.js';
import { namespaceQueues, testMqNamespace } from './node-process.js';

/**
 * One node identity as three processes on one FerretDB and one RabbitMQ namespace, behind haproxy (the issue's
 * operator setup): creates spread over all three are each published exactly once and resolve the same from
 * every replica; a SIGKILL of the lease holder mid-load loses no acknowledged create, a survivor takes the lease
 * within its TTL, and everything is published soon after.
 */
const unavailable = (await amqpUnavailable()) ?? (await haproxyBinary()).reason;
if (unavailable) console.warn(`replicas test skipped: ${unavailable}`);

const LEASE_MS = 4_000;
/** Creates per test: the bench runs the 600; this many keeps both tests inside two minutes on a shared 2-core machine. */
const CREATES = 120;

describe.skipIf(unavailable !== undefined)('three replicas of one node behind haproxy', () => {
  const namespace = testMqNamespace();
  let set: ReplicaSet;

  beforeAll(async () => {
    set = await startNodeReplicas({
      amqpUrl: AMQP_URL,
      namespace,
      extraArgs: ['--batch-writer-lease', `${LEASE_MS}ms`, '--batch-writer-timeout', '200ms'],
    });
  }, 180_000);

  afterAll(async () => {
    await set?.stop();
    await deleteQueues(namespaceQueues(namespace));
  });

  it('publishes every create spread over three replicas exactly once, resolvable from every replica', async () => {
    const dids = Array.from({ length: CREATES }, () => new TestDid(set.url));
    const acknowledged = await createAll(set.url, dids, 12);
    expect(acknowledged).toHaveLength(dids.length);
    const started = Date.now();
    // A single replica takes 25-35 s for as many on this shared machine under load: the bound says "not a minute".
    const anchored = await waitAllPublished(set, acknowledged, 60_000);
    console.info(`[replicas] ${acknowledged.length} creates published ${Date.now() - started} ms after the last ack`);
    expectPublishedOnce(anchored, acknowledged);
    // Every replica, asked directly, resolves every DID as published with the operations the store holds.
    for (const replica of set.replicas)
      expect((await checkResolution(replica.url, acknowledged, anchored, acknowledged.length)).mismatches).toEqual([]);
  }, 120_000);

  it('loses no acknowledged create when the lease holder is killed mid-load', async () => {
    const holder = await leaseHolder(set);
    const dids = Array.from({ length: CREATES }, () => new TestDid(set.url));
    let killedAt = 0;
    const acknowledged = await createAll(set.url, dids, 12, async (done) => {
      if (done === Math.floor(CREATES / 3)) {
        killedAt = Date.now();
        await holder.kill();
      }
    });
    // Requests the killed replica was answering get no answer: those are not acknowledged, the rest must be.
    expect(acknowledged.length).toBeGreaterThan(CREATES * 0.8);
    const successor = await waitFor(
      async () => {
        const next = await leaseHolder(set).catch(() => undefined);
        return next && next !== holder ? next : undefined;
      },
      { timeoutMs: LEASE_MS * 3, intervalMs: 100, description: 'a new batch-writer lease holder' },
    );
    const takeoverMs = Date.now() - killedAt;
    const anchored = await waitAllPublished(set, acknowledged, Math.max(1_000, killedAt + 30_000 - Date.now())).catch(
      async (error: Error) => {
        throw new Error(`${error.message}; unfinished batches: ${await unfinishedBatches(set)}`);
      },
    );
    const publishedMs = Date.now() - killedAt;
    console.info(
      `[replicas] killed r${holder.index}: r${successor.index} took the lease in ${takeoverMs} ms, ` +
        `${acknowledged.length} acknowledged creates all published ${publishedMs} ms after the kill`,
    );
    // Followers retry when the holder's lease runs out: the lease, plus the store's latency on a loaded machine.
    expect(takeoverMs).toBeLessThan(LEASE_MS + 1_500);
    expect(publishedMs).toBeLessThan(30_000);
    expectPublishedOnce(anchored, acknowledged);
    await holder.start();
    await set.proxy.waitForUp(3);
  }, 120_000);
});

/** Every DID's create published exactly once: in one anchor, and no anchor under two transaction numbers. */
function expectPublishedOnce(found: Map<string, Published[]>, dids: readonly TestDid[]): void {
  const missing = dids.filter((did) => found.get(did.suffix)?.length !== 1);
  expect(missing.map((did) => `${did.suffix}: ${JSON.stringify(found.get(did.suffix))}`)).toEqual([]);
  expect(publishedTwice(found)).toBe(0);
}

/** Waits until every DID is published (read from the shared database by `_id`); each one's published operations. */
async function waitAllPublished(set: ReplicaSet, dids: readonly TestDid[], timeoutMs: number) {
  const { found, unpublished } = await published(set.databaseUrl, dids, Date.now() + timeoutMs);
  if (unpublished > 0)
    throw new Error(`${unpublished} of ${dids.length} acknowledged creates unpublished after ${timeoutMs} ms`);
  return found;
}

/** The replica holding the batch-writer lease (read from the shared database). */
async function leaseHolder(set: ReplicaSet): Promise<Replica> {
  const storage = await createStoreProvider({ type: 'mongodb', url: set.databaseUrl, sweepIntervalMs: 0 });
  try {
    const tip = await (await StoreLease.open(storage, { name: 'batch-writer', holder: 'reader', durationMs: 0 })).tip();
    const replica = set.replicas.find((r) => tip?.holder.includes(`|127.0.0.1:${r.port}|`));
    if (!replica || !tip || tip.expiresAt < Date.now()) throw new Error(`no live lease holder: ${JSON.stringify(tip)}`);
    return replica;
  } finally {
    await storage.close();
  }
}

/** The batches not completed yet, with their status, size, attempts and last error: what a failure reports. */
async function unfinishedBatches(set: ReplicaSet): Promise<string> {
  const storage = await createStoreProvider({ type: 'mongodb', url: set.databaseUrl, sweepIntervalMs: 0 });
  try {
    const batches = await (await AnchorBatches.open(storage)).in([...UNFINISHED, 'failed']);
    return JSON.stringify(
      batches.map(({ key, value }) => ({
        key,
        status: value.status,
        operations: value.operationKeys.length,
        attempts: value.attempts,
        ageMs: Date.now() - value.createdAt,
        lastError: value.lastError,
      })),
    );
  } finally {
    await storage.close();
  }
}
