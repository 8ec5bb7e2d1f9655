import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { AMQP_URL, amqpUnavailable } from '@anchor/testing/amqp-broker';
import { makeTempDir, stopAllProcesses, waitFor, type TempDir } from '@anchor/testing/process';
import { TcpProxy } from '@anchor/testing/tcp-proxy';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postOperation, TestDid, waitPublished } from '../src/testing/test-node.js';
import { startNodeProcess, type NodeProcess } from './node-process.js';
import { health, startNodeOnProxiedDatabase, type ProxiedDatabaseNode } from './proxied-database-node.js';

/**
 * /healthcheck follows the node's real dependencies: the built node talks to RabbitMQ and MongoDB (MONGODB_URL
 * when set, else FerretDB) through a TCP proxy that the test cuts and restores, as a network failure would.
 */

const healthBecomes = (
  node: NodeProcess,
  status: number,
  check: (body: Record<string, string>) => boolean,
  timeoutMs: number,
) =>
  waitFor(
    async () => {
      const answer = await health(node);
      return answer.status === status && check(answer.body) ? answer : undefined;
    },
    { timeoutMs, intervalMs: 200, description: `/healthcheck answering ${status}` },
  );

/** Cuts every open connection and refuses new ones, as a broken network does. */
function breakLink(proxy: TcpProxy): void {
  proxy.refuse();
  proxy.cut();
}

// A virtual host of its own, so this node's consumers never take messages of other tests' nodes (queue
// names are the same for every node). Created with rabbitmqctl, which ships with the broker.
const VHOST = 'anchor-node-health-test';
const run = promisify(execFile);
async function ensureVhost(): Promise<string | undefined> {
  try {
    await run('rabbitmqctl', ['add_vhost', VHOST], { timeout: 30_000 });
    await run(
      'rabbitmqctl',
      ['set_permissions', '-p', VHOST, new URL(AMQP_URL).username || 'guest', '.*', '.*', '.*'],
      { timeout: 30_000 },
    );
    return undefined;
  } catch (error) {
    return `cannot create the RabbitMQ virtual host ${VHOST} with rabbitmqctl: ${(error as Error).message.split('\n')[0]}`;
  }
}

const brokerProblem = (await amqpUnavailable()) ?? (await ensureVhost());
if (brokerProblem !== undefined) {
  if (process.env['CI'] === 'true') throw new Error(`CI=true but the AMQP health test cannot run: ${brokerProblem}`);
  console.warn(`AMQP health test skipped: ${brokerProblem}`);
}

describe.skipIf(brokerProblem !== undefined)('health follows the queue (RabbitMQ through a TCP proxy)', () => {
  let dir: TempDir;
  let proxy: TcpProxy;
  let node: NodeProcess;

  beforeAll(async () => {
    const broker = new URL(AMQP_URL);
    proxy = await TcpProxy.start({ host: broker.hostname, port: Number(broker.port || 5672) });
    const viaProxy = new URL(proxy.through(AMQP_URL));
    viaProxy.pathname = `/${VHOST}`;
    dir = await makeTempDir('node-health-mq-');
    node = await startNodeProcess(dir, { args: ['--mq-url', viaProxy.toString(), '--batch-writer-timeout', '200ms'] });
  });

  afterAll(async () => {
    await stopAllProcesses();
    await proxy?.close();
    await dir?.remove();
  });

  it('is 200 with the queue connected', async () => {
    expect(await health(node)).toMatchObject({
      status: 200,
      body: { mqStatus: 'success', dbStatus: 'success', kmsStatus: 'success', status: 'OK' },
    });
  });

  it('goes 503 "not connected" when the broker is unreachable, naming only the failing component', async () => {
    breakLink(proxy);
    const down = await healthBecomes(node, 503, (body) => body.mqStatus === 'not connected', 15_000);
    expect(down.body).toMatchObject({
      mqStatus: 'not connected',
      dbStatus: 'success',
      kmsStatus: 'success',
      status: 'Unavailable',
    });
    expect(Date.parse(down.body.currentTime ?? '')).not.toBeNaN();
  });

  it('is 200 again once the broker is reachable, and the pipeline runs through the queue again', async () => {
    proxy.accept();
    // The adapter reconnects with backoff (at most 10 s between attempts).
    await healthBecomes(node, 200, (body) => body.mqStatus === 'success', 30_000);
    const did = new TestDid(node.url);
    expect((await postOperation(node.url, did.created.request)).status).toBe(200);
    await waitPublished(node.url, did.did, 1, 30_000);
  });
});

describe('health follows the database (MongoDB through a TCP proxy)', () => {
  let node: NodeProcess;
  let proxy: TcpProxy;
  let database: ProxiedDatabaseNode | undefined;

  beforeAll(async () => {
    database = await startNodeOnProxiedDatabase('health');
    ({ node, proxy } = database);
  }, 20 * 60_000);

  afterAll(async () => {
    await stopAllProcesses();
    await database?.close();
  });

  it('is 200 with the database reachable, 503 with the ping error while it is not, 200 once it returns', async () => {
    expect(await health(node)).toMatchObject({ status: 200, body: { dbStatus: 'success' } });
    breakLink(proxy);
    const down = await healthBecomes(node, 503, (body) => body.dbStatus !== 'success', 30_000);
    expect(down.body).toMatchObject({ mqStatus: 'success', status: 'Unavailable' });
    expect(down.body.dbStatus).not.toBe('');
    proxy.accept();
    await healthBecomes(node, 200, (body) => body.dbStatus === 'success', 60_000);
  });
});
