import { IDENTITY_HEADER, MIN_REDELIVERY_JITTER_MS, namespaceFor, quantizeDelay } from '@anchor/common/mq';
import { AMQP_URL, amqpUnavailable, deleteQueues, publishToQueue } from '@anchor/testing/amqp-broker';
import { makeTempDir, stopAllProcesses, waitFor, type TempDir } from '@anchor/testing/process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { metadataOf, postOperation, resolveDid, TestDid } from '../src/testing/test-node.js';
import { namespaceQueues, startNodeProcess, type NodeProcess } from './node-process.js';

/**
 * Two independent nodes (different identities, data directories and databases) on one RabbitMQ and one
 * vhost: each must anchor exactly its own operations. With fixed queue names the second node consumed
 * about half of the first's operations and published them as its own while the first stalled.
 */
const unavailable = await amqpUnavailable();
if (unavailable) console.warn(`shared-broker test skipped: RabbitMQ unreachable at ${AMQP_URL} (${unavailable})`);

const PER_NODE = 40;
// The wait queues of the nodes' 50 ms redelivery backoff plus its jitter.
const WAITS = [...new Set(Array.from({ length: MIN_REDELIVERY_JITTER_MS }, (_, ms) => quantizeDelay(50 + ms)))];

describe.skipIf(unavailable !== undefined)('two nodes sharing one broker and vhost', () => {
  const dirs: TempDir[] = [];
  const nodes: NodeProcess[] = [];

  const start = async (extra: string[] = []): Promise<NodeProcess> => {
    const dir = await makeTempDir('node-shared-broker-');
    dirs.push(dir);
    const node = await startNodeProcess(dir, {
      args: [
        '--mq-url',
        AMQP_URL,
        '--batch-writer-timeout',
        '200ms',
        '--mq-redelivery-initial-interval',
        '50ms',
        '--mq-redelivery-multiplier',
        '1',
        ...extra,
      ],
    });
    nodes.push(node);
    return node;
  };

  const cleanup = async (): Promise<void> => {
    await stopAllProcesses();
    // Work, dead-letter and wait queues: nothing of this test may reach a later node on the same port.
    const names = nodes.flatMap((n) => namespaceQueues(namespaceFor(`${n.url}/services/node`), WAITS));
    await deleteQueues([...names, ...namespaceQueues('shared-ns', WAITS)]);
    nodes.length = 0;
    for (const dir of dirs.splice(0)) await dir.remove();
  };

  beforeAll(() => deleteQueues(namespaceQueues('shared-ns', WAITS)));
  afterAll(cleanup);

  async function createOn(node: NodeProcess, count: number): Promise<TestDid[]> {
    const dids = Array.from({ length: count }, () => new TestDid(node.url));
    await Promise.all(
      dids.map(async (did) => expect((await postOperation(node.url, did.created.request)).status).toBe(200)),
    );
    return dids;
  }

  /** Published on `owner`, anchored by `owner` (its anchor origin), and unknown to `other`, which does not follow it. */
  async function expectOwnedBy(owner: NodeProcess, other: NodeProcess, dids: readonly TestDid[]): Promise<void> {
    for (const did of dids) {
      const result = await waitFor(
        async () => {
          const answer = await resolveDid(owner.url, did.did);
          const method = metadataOf(answer)?.method as { published?: boolean } | undefined;
          return answer.status === 200 && method?.published === true ? answer : undefined;
        },
        { timeoutMs: 30_000, intervalMs: 100, description: `${did.did} published on ${owner.url}` },
      );
      const method = metadataOf(result)?.method as { anchorOrigin?: string };
      expect(method.anchorOrigin).toBe(owner.url);
      expect((await resolveDid(other.url, did.did)).status).toBe(404);
    }
  }

  it('each node publishes exactly its own operations under the default namespaces', async () => {
    const one = await start();
    const two = await start();
    const [ofOne, ofTwo] = await Promise.all([createOn(one, PER_NODE), createOn(two, PER_NODE)]);
    await expectOwnedBy(one, two, ofOne);
    await expectOwnedBy(two, one, ofTwo);
    await cleanup();
  });

  it(
    "two identities forced onto one namespace refuse each other's messages and still publish only their own",
    { timeout: 120_000 },
    async () => {
      const one = await start(['--mq-namespace', 'shared-ns']);
      const two = await start(['--mq-namespace', 'shared-ns']);
      const [ofOne, ofTwo] = await Promise.all([createOn(one, 10), createOn(two, 10)]);
      await expectOwnedBy(one, two, ofOne);
      await expectOwnedBy(two, one, ofTwo);
      // A message stamped with a third identity on the shared queue is refused by whichever node takes it, never
      // processed (which message of the two nodes reaches the wrong one first is chance, this one is not).
      await publishToQueue(
        'shared-ns.node.anchor',
        { anchor: 'hl:intruder' },
        { [IDENTITY_HEADER]: 'https://intruder.example/services/node' },
      );
      const refusals = await waitFor(
        async () => {
          const lines = `${one.process.output()}\n${two.process.output()}`
            .split('\n')
            .filter((line) => line.includes('refused a queue message published by another node'));
          return lines.some((line) => line.includes('intruder.example')) ? lines : undefined;
        },
        { timeoutMs: 15_000, intervalMs: 100, description: 'the foreign message refused' },
      );
      expect(refusals.length).toBeGreaterThan(0);
    },
  );
});
