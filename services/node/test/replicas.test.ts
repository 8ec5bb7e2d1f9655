import { createStoreProvider, StoreLease } from '@anchor/common/storage';
import { AMQP_URL, amqpUnavailable, deleteQueues } from '@anchor/testing/amqp-broker';
import { waitFor } from '@anchor/testing/process';
import { haproxyBinary, startNodeReplicas, type Replica, type ReplicaSet } from '@anchor/testing/replicas';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AnchorBatches, UNFINISHED } from '../src/anchoring/anchor-batches.js';
import { metadataOf, postOperation, resolveDid, TestDid } from '../src/testing/test-node.js';
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
    const acknowledged = await createAll(set.url, dids);
    expect(acknowledged).toHaveLength(dids.length);
    const started = Date.now();
    // A single replica takes 25-35 s for as many on this shared machine under load: the bound says "not a minute".
    const anchored = await waitAllPublished(set.url, acknowledged, 60_000);
    console.info(`[replicas] ${acknowledged.length} creates published ${Date.now() - started} ms after the last ack`);
    expectPublishedOnce(anchored, acknowledged);
    // Every replica, asked directly, resolves every DID as published.
    for (const replica of set.replicas) await waitAllPublished(replica.url, acknowledged, 5_000);
  }, 120_000);

  it('loses no acknowledged create when the lease holder is killed mid-load', async () => {
    const holder = await leaseHolder(set);
    const dids = Array.from({ length: CREATES }, () => new TestDid(set.url));
    let killedAt = 0;
    const acknowledged = await createAll(set.url, dids, async (done) => {
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
    const anchored = await waitAllPublished(
      set.url,
      acknowledged,
      Math.max(1_000, killedAt + 30_000 - Date.now()),
    ).catch(async (error: Error) => {
      throw new Error(`${error.message}; unfinished batches: ${await unfinishedBatches(set)}`);
    });
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

/** Posts every create through `url`, 12 at a time; the DIDs whose create was acknowledged (200). */
async function createAll(
  url: string,
  dids: readonly TestDid[],
  onDone?: (done: number) => Promise<void>,
): Promise<TestDid[]> {
  const acknowledged: TestDid[] = [];
  let next = 0;
  let done = 0;
  const refusals = new Map<string, number>();
  const worker = async (): Promise<void> => {
    while (next < dids.length) {
      const did = dids[next++]!;
      const answer = await postOperation(url, did.created.request).catch((error: Error) => {
        const refusal = `no answer: ${String(error.cause ?? error.message)}`;
        refusals.set(refusal, (refusals.get(refusal) ?? 0) + 1);
        return undefined;
      });
      if (answer?.status === 200) acknowledged.push(did);
      else if (answer) {
        const refusal = `${answer.status} ${answer.text.slice(0, 120)}`;
        refusals.set(refusal, (refusals.get(refusal) ?? 0) + 1);
      }
      await onDone?.(++done);
    }
  };
  await Promise.all(Array.from({ length: 12 }, worker));
  if (refusals.size > 0) console.info('[replicas] not acknowledged:', Object.fromEntries(refusals));
  return acknowledged;
}

interface Published {
  canonicalReference: string;
  transactionNumber: number;
}

/** The published operations of each DID once all are published (resolved through `url`, 8 at a time). */
async function waitAllPublished(
  url: string,
  dids: readonly TestDid[],
  timeoutMs: number,
): Promise<Map<string, Published[]>> {
  const published = new Map<string, Published[]>();
  const deadline = Date.now() + timeoutMs;
  let waiting = [...dids];
  while (waiting.length > 0) {
    const still: TestDid[] = [];
    for (let i = 0; i < waiting.length; i += 8)
      await Promise.all(
        waiting.slice(i, i + 8).map(async (did) => {
          const answer = await resolveDid(url, did.did).catch(() => undefined);
          const method = answer?.status === 200 ? metadataOf(answer).method : undefined;
          if (method?.published === true) published.set(did.suffix, method.publishedOperations as Published[]);
          else still.push(did);
        }),
      );
    waiting = still;
    if (waiting.length === 0) break;
    if (Date.now() > deadline)
      throw new Error(`${waiting.length} of ${dids.length} acknowledged creates unpublished after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  return published;
}

/** No DID in two anchors (its create published once), no anchor under two transaction numbers. */
function expectPublishedOnce(published: Map<string, Published[]>, dids: readonly TestDid[]): void {
  const twice = dids.filter((did) => published.get(did.suffix)?.length !== 1);
  expect(twice.map((did) => `${did.suffix}: ${JSON.stringify(published.get(did.suffix))}`)).toEqual([]);
  const numbersOf = new Map<string, Set<number>>();
  for (const operations of published.values())
    for (const { canonicalReference, transactionNumber } of operations)
      numbersOf.set(canonicalReference, (numbersOf.get(canonicalReference) ?? new Set()).add(transactionNumber));
  expect([...numbersOf].filter(([, numbers]) => numbers.size > 1)).toEqual([]);
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
