import { join } from 'node:path';
import { makeTempDir, stopAllProcesses, waitFor, type TempDir } from '@anchor/testing/process';
import { RabbitMqNode, rabbitmqNodeUnavailable } from '@anchor/testing/rabbitmq-node';
import { afterAll, describe, expect, it } from 'vitest';
import { metadataOf, postOperation, resolveDid, TestDid } from '../src/testing/test-node.js';
import { startNodeProcess, type NodeProcess } from './node-process.js';

/**
 * A fault test: the node's RabbitMQ (a private broker node started here on its own port and data directory,
 * never the machine's shared one) is stopped and started again while creates flow. Nothing the node
 * acknowledged may be lost, the node must reconnect without a restart, and its health must show the outage.
 * The figures are printed for the CI log.
 */
const unavailable = rabbitmqNodeUnavailable();
if (unavailable) console.warn(`broker-restart fault test skipped: ${unavailable}`);

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function health(node: NodeProcess): Promise<{ status: number; body: Record<string, string> }> {
  const response = await fetch(`${node.url}/healthcheck`, { headers: { accept: 'application/json' } });
  return { status: response.status, body: (await response.json()) as Record<string, string> };
}

describe.skipIf(unavailable !== undefined)('a node through a broker restart under load', () => {
  let dir: TempDir | undefined;
  let broker: RabbitMqNode | undefined;

  afterAll(async () => {
    await stopAllProcesses();
    await broker?.down();
    await dir?.remove();
  });

  it('loses nothing acknowledged, reconnects by itself and reports the outage', { timeout: 600_000 }, async () => {
    dir = await makeTempDir('node-broker-restart-');
    broker = await RabbitMqNode.start(join(dir.path, 'rabbitmq'));
    const node = await startNodeProcess(await makeTempDir('node-broker-restart-data-'), {
      args: [
        '--mq-url',
        broker.url,
        '--batch-writer-timeout',
        '200ms',
        '--mq-redelivery-initial-interval',
        '100ms',
        '--mq-redelivery-multiplier',
        '1.5',
      ],
    });

    const acknowledged: TestDid[] = [];
    const refused: number[] = [];
    let loading = true;
    const worker = async () => {
      while (loading) {
        const did = new TestDid(node.url);
        try {
          const answer = await postOperation(node.url, did.created.request);
          if (answer.status === 200) acknowledged.push(did);
          else refused.push(answer.status);
        } catch {
          refused.push(0);
        }
        await sleep(20);
      }
    };
    const workers = Array.from({ length: 4 }, worker);

    await sleep(2_000);
    const beforeOutage = acknowledged.length;
    await broker.down();
    const downAt = Date.now();
    const outage = await waitFor(
      async () => {
        const answer = await health(node);
        return answer.status === 503 && answer.body.mqStatus === 'not connected' ? answer : undefined;
      },
      { timeoutMs: 30_000, intervalMs: 200, description: 'health reporting the broker outage' },
    );
    expect(outage.body.dbStatus).toBe('success');
    await sleep(2_000);
    await broker.up();
    const upAt = Date.now();
    await waitFor(
      async () => {
        const answer = await health(node);
        return answer.status === 200 && answer.body.mqStatus === 'success' ? answer : undefined;
      },
      { timeoutMs: 60_000, intervalMs: 200, description: 'health back to success after the broker returned' },
    );
    const reconnectedMs = Date.now() - upAt;
    await sleep(2_000);
    loading = false;
    await Promise.all(workers);

    // Every acknowledged create is published, by the same process that was running all along.
    const missing: string[] = [];
    for (const did of acknowledged) {
      try {
        await waitFor(
          async () => {
            const answer = await resolveDid(node.url, did.did);
            return answer.status === 200 &&
              (metadataOf(answer)?.method as { published?: boolean } | undefined)?.published === true
              ? answer
              : undefined;
          },
          { timeoutMs: 90_000, intervalMs: 200, description: `${did.did} published` },
        );
      } catch {
        missing.push(did.did);
      }
    }
    const publishedAllMs = Date.now() - upAt;
    console.log(
      `broker restart under load: acknowledged ${acknowledged.length} (${beforeOutage} before the outage), not acknowledged ${refused.length}, ` +
        `lost ${missing.length}; outage ${upAt - downAt} ms; health back ${reconnectedMs} ms after the broker; all published ${publishedAllMs} ms after it`,
    );
    expect(acknowledged.length).toBeGreaterThan(beforeOutage);
    expect(missing).toEqual([]);
    expect(node.process.exitInfo).toBeUndefined();
  });
});
