import { join } from 'node:path';
import { makeTempDir, stopAllProcesses, waitFor, type TempDir } from '@anchor/testing/process';
import { RabbitMqNode, rabbitmqNodeUnavailable } from '@anchor/testing/rabbitmq-node';
import { afterAll, describe, expect, it } from 'vitest';
import { CreateLoad, health, unpublished } from './fault-load.js';
import { startNodeProcess } from './node-process.js';

/**
 * A fault test: the node's RabbitMQ (a private broker node started here on its own port and data directory,
 * never the machine's shared one) is stopped and started again while creates flow. Nothing the node
 * acknowledged may be lost, the node must reconnect without a restart, and its health must show the outage.
 * The figures are printed for the CI log.
 */
const unavailable = rabbitmqNodeUnavailable();
if (unavailable) console.warn(`broker-restart fault test skipped: ${unavailable}`);

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

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

    const load = new CreateLoad(() => node.url);

    await sleep(2_000);
    const beforeOutage = load.acknowledged.length;
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
    await load.stop();

    // Every acknowledged create is published, by the same process that was running all along.
    const missing = await unpublished(node.url, load.acknowledged, 90_000);
    const publishedAllMs = Date.now() - upAt;
    console.log(
      `broker restart under load: acknowledged ${load.acknowledged.length} (${beforeOutage} before the outage), answers ${load.summary()}, ` +
        `lost ${missing.length}; outage ${upAt - downAt} ms; health back ${reconnectedMs} ms after the broker; all published ${publishedAllMs} ms after it`,
    );
    expect(load.acknowledged.length).toBeGreaterThan(beforeOutage);
    expect(load.serverErrors()).toBe(0);
    expect(missing).toEqual([]);
    expect(node.process.exitInfo).toBeUndefined();
  });
});
