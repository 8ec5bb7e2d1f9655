/**
 * Real node and vct-log processes for the federation tests. Each node comes with the node's own
 * administrator client (`NodeAdminClient`, the one the local federation wires nodes with), so a federation
 * is set up the way an operator does: only through the nodes' HTTP APIs (accept lists, outbox Follow /
 * Invite, `/policy`, `/log`). No tokens are configured, so administrator calls carry none.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { NodeAdminClient } from '@anchor/common/clients';
import { serviceBin } from '@anchor/dev-env';
import { AMQP_URL, amqpUnavailable } from '@anchor/testing/amqp-broker';
import { mongoServerForTests, type MongoTestServer } from '@anchor/testing/ferretdb';
import { freePort, startProcess, type ServiceProcess, type TempDir } from '@anchor/testing/process';

export interface RunningNode {
  name: string;
  url: string;
  port: number;
  /** The ActivityPub service id of a bare start: `<external endpoint>/services/node`. */
  service: string;
  dir: TempDir;
  process: ServiceProcess;
  admin: NodeAdminClient;
}

/**
 * A bare start (`--host-url`, `--external-endpoint http://127.0.0.1:<port>`, `--data-dir`) plus `args`; a
 * restart reuses the port and the data directory.
 */
export async function startNode(
  name: string,
  dir: TempDir,
  args: readonly string[],
  port?: number,
): Promise<RunningNode> {
  const listen = port ?? (await freePort());
  const url = `http://127.0.0.1:${listen}`;
  const child = await startProcess(serviceBin('@anchor/node'), {
    name,
    args: ['--host-url', `127.0.0.1:${listen}`, '--external-endpoint', url, '--data-dir', dir.path, ...args],
    env: { ANCHOR_LOG_LEVEL: process.env.FEDERATION_TEST_LOG_LEVEL ?? 'warning' },
    readyUrl: `${url}/healthcheck`,
    readyStatus: (status) => status === 200,
  });
  return {
    name,
    url,
    port: listen,
    service: `${url}/services/node`,
    dir,
    process: child,
    admin: new NodeAdminClient({ url }),
  };
}

export async function startVctLog(
  dir: TempDir,
  args: readonly string[] = [],
): Promise<{ process: ServiceProcess; url: string; logUrl: string }> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const process = await startProcess(serviceBin('@anchor/vct-log'), {
    name: 'vct-log',
    args: ['--host-url', `127.0.0.1:${port}`, '--data-dir', dir.path, ...args],
    env: { VCT_LOG_LEVEL: 'warning' },
    readyUrl: `${url}/healthcheck`,
    readyStatus: (status) => status === 200,
  });
  return { process, url, logUrl: `${url}/main` };
}

/**
 * Where the services of a federation test keep their state and pass their messages: embedded (LMDB and the
 * in-process queue, the default) or production's MongoDB (MONGODB_URL, else the FerretDB test server) and
 * RabbitMQ (a virtual host of the test's own, removed afterwards). The same assertions run on both.
 */
export interface FederationBackend {
  name: string;
  /** Why it cannot run here (no broker), or undefined. Under CI=true an unavailable backend throws instead. */
  unavailable(): Promise<string | undefined>;
  setUp(): Promise<void>;
  tearDown(): Promise<void>;
  nodeArgs(name: string): string[];
  logArgs(): string[];
}

export const EMBEDDED_BACKEND: FederationBackend = {
  name: 'LMDB and in-process queues',
  unavailable: async () => undefined,
  setUp: async () => undefined,
  tearDown: async () => undefined,
  nodeArgs: () => [],
  logArgs: () => [],
};

export function mongoAmqpBackend(): FederationBackend {
  const vhost = `anchor-federation-test-${process.pid}`;
  let mongo: MongoTestServer | undefined;
  const rabbitmqctl = (...args: string[]) => promisify(execFile)('rabbitmqctl', args, { timeout: 60_000 });
  const amqpUrl = () => {
    const url = new URL(AMQP_URL);
    url.pathname = `/${vhost}`;
    return url.toString();
  };
  return {
    name: 'MongoDB and RabbitMQ',
    async unavailable() {
      const broker = await amqpUnavailable();
      if (broker !== undefined) return broker;
      try {
        await rabbitmqctl('status');
        return undefined;
      } catch (error) {
        const reason = `rabbitmqctl cannot reach the broker: ${(error as Error).message.split('\n')[0]}`;
        if (process.env['CI'] === 'true') throw new Error(`CI=true but ${reason}`, { cause: error });
        return reason;
      }
    },
    async setUp() {
      await rabbitmqctl('delete_vhost', vhost).catch(() => undefined);
      await rabbitmqctl('add_vhost', vhost);
      await rabbitmqctl('set_permissions', '-p', vhost, new URL(AMQP_URL).username || 'guest', '.*', '.*', '.*');
      mongo = await mongoServerForTests();
    },
    async tearDown() {
      await mongo?.stop();
      await rabbitmqctl('delete_vhost', vhost).catch(() => undefined);
    },
    nodeArgs: (name) => [
      '--database-type',
      'mongodb',
      '--database-url',
      mongo!.url,
      '--database-prefix',
      `${name}_`,
      '--mq-url',
      amqpUrl(),
    ],
    logArgs: () => ['--database-type', 'mongodb', '--database-url', mongo!.url, '--database-prefix', 'vct_'],
  };
}
