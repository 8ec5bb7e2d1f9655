import { join } from 'node:path';
import { createStoreProvider, StoreLease } from '@anchor/common/storage';
import { AMQP_URL, amqpUnavailable, deleteQueues } from '@anchor/testing/amqp-broker';
import { freePort, makeTempDir, stopAllProcesses, waitFor, type TempDir } from '@anchor/testing/process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { metadataOf, postOperation, resolveDid, TestDid } from '../src/testing/test-node.js';
import { namespaceQueues, startNodeProcess, testMqNamespace, type NodeProcess } from './node-process.js';

/**
 * Two instances of one deployment (one external endpoint) sharing a database (one LMDB environment, which
 * LMDB shares between processes) and RabbitMQ: both accept and resolve, one is the batch writer, the
 * observer runs wherever the queue delivers, caches stay right on both, and when the writer dies the other
 * instance takes over its lease and its in-flight anchors.
 */
const unavailable = await amqpUnavailable();
if (unavailable) console.warn(`multi-instance test skipped: RabbitMQ unreachable at ${AMQP_URL} (${unavailable})`);

describe.skipIf(unavailable !== undefined)('two instances of one deployment', () => {
  let dir: TempDir;
  let a: NodeProcess;
  let b: NodeProcess;
  let deployment: string;

  beforeAll(async () => {
    dir = await makeTempDir('node-multi-');
    const portA = await freePort();
    deployment = `http://127.0.0.1:${portA}`;
    const args = [
      '--external-endpoint',
      deployment,
      '--mq-url',
      AMQP_URL,
      '--mq-namespace',
      namespace,
      '--batch-writer-lease',
      '2s',
      '--batch-writer-timeout',
      '200ms',
    ];
    a = await startNodeProcess(dir, { port: portA, args });
    b = await startNodeProcess(dir, { args });
  });

  afterAll(async () => {
    await stopAllProcesses();
    await deleteQueues(namespaceQueues(namespace));
    await dir?.remove();
  });

  // Both instances share one namespace (one deployment); a namespace of the test's own, not the URL's.
  const namespace = testMqNamespace();

  const published = (node: NodeProcess, did: TestDid, operations: number) =>
    waitFor(
      async () => {
        const result = await resolveDid(node.url, did.did);
        const method = metadataOf(result)?.method as { publishedOperations?: unknown[] } | undefined;
        return result.status === 200 && (method?.publishedOperations?.length ?? 0) >= operations ? result : undefined;
      },
      {
        timeoutMs: 30_000,
        intervalMs: 100,
        description: `${did.did} published with ${operations} operations on ${node.url}`,
      },
    );

  it('accepts on both, anchors once, and resolves the same everywhere', async () => {
    const dids = Array.from({ length: 20 }, () => new TestDid(deployment));
    await Promise.all(
      dids.map(async (did, index) =>
        expect((await postOperation((index % 2 ? a : b).url, did.created.request)).status).toBe(200),
      ),
    );
    for (const did of dids) await published(a, did, 1);
    // Updates through the other instance: checked against the state the first one wrote.
    await Promise.all(
      dids.map(async (did, index) =>
        expect((await postOperation((index % 2 ? b : a).url, did.update('key-2'))).status).toBe(200),
      ),
    );
    for (const did of dids) {
      const onB = await published(b, did, 2);
      const onA = await published(a, did, 2);
      expect(onA.body).toEqual(onB.body);
    }
  });

  it('refuses on one instance a commitment already spent through the other', async () => {
    const did = new TestDid(deployment);
    await postOperation(a.url, did.created.request);
    const first = did.update('key-2', false);
    expect((await postOperation(a.url, first)).status).toBe(200);
    const rival = did.update('key-3', false);
    const answer = await postOperation(b.url, rival);
    expect(answer.status).toBe(400);
    expect(answer.body.message).toMatch(/already reveals this update commitment/);
  });

  it('the surviving instance takes over batching when the writer dies', async () => {
    // Whichever holds the lease, kill it; the other must anchor what is accepted afterwards.
    const [writer, survivor] = (await isWriter(a)) ? [a, b] : [b, a];
    await writer.process.kill();
    const did = new TestDid(deployment);
    expect((await postOperation(survivor.url, did.created.request)).status).toBe(200);
    await published(survivor, did, 1);
  });

  /** Reads the lease from the shared database (LMDB lets this process open it too). */
  async function isWriter(node: NodeProcess): Promise<boolean> {
    const storage = await createStoreProvider({ type: 'lmdb', dataDir: join(dir.path, 'db'), sweepIntervalMs: 0 });
    try {
      const lease = await StoreLease.open(storage, { name: 'batch-writer', holder: 'reader', durationMs: 0 });
      const tip = await lease.tip();
      expect(tip).toBeDefined();
      return tip!.holder.includes(`|127.0.0.1:${node.port}|`);
    } finally {
      await storage.close();
    }
  }
});
