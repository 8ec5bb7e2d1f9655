/**
 * One service identity run as several processes, as an operator runs replicas: every replica on one
 * MongoDB-wire database (FerretDB of its own unless `mongoUrl` is given), the node's on one RabbitMQ
 * namespace, all behind one haproxy (round robin, health-checked on `/healthcheck`) whose address is the
 * identity's external endpoint. Replicas can be killed (SIGKILL), stopped and started again on their port.
 *
 *   const set = await startNodeReplicas({ amqpUrl, namespace });
 *   await fetch(`${set.url}/sidetree/v1/operations`, ...);   // through the balancer
 *   await set.replicas[1].kill();
 *   await set.stop();
 */
import { join } from 'node:path';
import { startFerretDb, type MongoTestServer } from '../ferretdb/index.js';
import { Haproxy } from '../haproxy/index.js';
import { freePort } from '../process/free-port.js';
import { builtServiceMain } from '../process/service-binary.js';
import { startProcess, type ServiceProcess } from '../process/service-process.js';
import { makeTempDir, type TempDir } from '../process/temp-dir.js';

export { haproxyBinary } from '../haproxy/index.js';

export interface ReplicaSetOptions {
  /** `services/<service>`, run from its build (`dist/main.js`). */
  service: 'node' | 'vct-log';
  /** How many replicas (default 3). */
  count?: number;
  /** Arguments every replica gets after `--host-url`, `--data-dir` and the database ones. */
  args?: (context: { frontUrl: string; root: string }) => string[];
  env?: Readonly<Record<string, string | undefined>>;
  /** A MongoDB-wire server to share; default a FerretDB of the set's own, stopped with the set. */
  mongoUrl?: string;
  readyTimeoutMs?: number;
  checkIntervalMs?: number;
}

export class Replica {
  private current: ServiceProcess | undefined;

  constructor(
    readonly index: number,
    readonly port: number,
    readonly dataDir: string,
    private readonly launch: () => Promise<ServiceProcess>,
  ) {}

  /** `http://127.0.0.1:<port>`: this replica alone, bypassing the balancer. */
  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  get process(): ServiceProcess {
    if (!this.current) throw new Error(`replica ${this.index} is not running`);
    return this.current;
  }

  get running(): boolean {
    return this.current !== undefined && this.current.exitInfo === undefined;
  }

  /** Starts (again, on the same port and data dir); resolves once its `/healthcheck` answers 200. */
  async start(): Promise<void> {
    if (this.running) throw new Error(`replica ${this.index} is already running`);
    this.current = await this.launch();
  }

  /** SIGKILL: no shutdown runs, leases and unacknowledged deliveries are left as a crash leaves them. */
  async kill(): Promise<void> {
    await this.current?.kill();
  }

  /** SIGTERM: a graceful stop. */
  async stop(): Promise<void> {
    await this.current?.stop();
  }
}

export class ReplicaSet {
  private constructor(
    readonly replicas: readonly Replica[],
    readonly proxy: Haproxy,
    readonly databaseUrl: string,
    readonly root: TempDir,
    private readonly database: MongoTestServer | undefined,
  ) {}

  /** The identity's address: the balancer's frontend. */
  get url(): string {
    return this.proxy.url;
  }

  static async start(options: ReplicaSetOptions): Promise<ReplicaSet> {
    const count = options.count ?? 3;
    const root = await makeTempDir(`anchor-${options.service}-replicas-`);
    const database = options.mongoUrl ? undefined : await startFerretDb({ readyTimeoutMs: 120_000 });
    const databaseUrl = options.mongoUrl ?? database!.url;
    const ports: number[] = [];
    while (ports.length < count + 1) {
      const port = await freePort();
      if (!ports.includes(port)) ports.push(port);
    }
    const [frontPort, ...replicaPorts] = ports as [number, ...number[]];
    const frontUrl = `http://127.0.0.1:${frontPort}`;
    const main = builtServiceMain(options.service);
    const shared = options.args?.({ frontUrl, root: root.path }) ?? [];
    const replicas = replicaPorts.map((port, index) => {
      const dataDir = join(root.path, `r${index}`);
      return new Replica(index, port, dataDir, () =>
        startProcess(main, {
          name: `${options.service}:r${index}:${port}`,
          args: [
            '--host-url',
            `127.0.0.1:${port}`,
            '--data-dir',
            dataDir,
            '--database-type',
            'mongodb',
            '--database-url',
            databaseUrl,
            '--log-level',
            'warning',
            ...shared,
          ],
          env: options.env,
          readyUrl: `http://127.0.0.1:${port}/healthcheck`,
          readyStatus: (status) => status === 200,
          readyTimeoutMs: options.readyTimeoutMs ?? 60_000,
        }),
      );
    });
    let proxy: Haproxy | undefined;
    try {
      proxy = await Haproxy.start({
        port: frontPort,
        backends: replicaPorts.map((port) => ({ port })),
        ...(options.checkIntervalMs !== undefined ? { checkIntervalMs: options.checkIntervalMs } : {}),
      });
      // The first replica alone: it creates what the identity keeps once in the database (keys, key ids).
      await replicas[0]!.start();
      await Promise.all(replicas.slice(1).map((replica) => replica.start()));
      await proxy.waitForUp(count);
    } catch (error) {
      await Promise.all(replicas.map((replica) => replica.kill()));
      await proxy?.stop();
      await database?.stop();
      await root.remove();
      throw error;
    }
    return new ReplicaSet(replicas, proxy, databaseUrl, root, database);
  }

  /** The replicas now running. */
  get running(): Replica[] {
    return this.replicas.filter((replica) => replica.running);
  }

  async stop(): Promise<void> {
    await Promise.all(this.replicas.map((replica) => replica.stop()));
    await this.proxy.stop();
    await this.database?.stop();
    await this.root.remove();
  }
}

export interface NodeReplicaOptions extends Omit<ReplicaSetOptions, 'service' | 'args'> {
  amqpUrl: string;
  /** One `--mq-namespace` for the whole set (one deployment). */
  namespace: string;
  extraArgs?: readonly string[];
}

/** The node as `count` replicas of one identity: one external endpoint (the balancer), one database, one MQ namespace. */
export function startNodeReplicas(options: NodeReplicaOptions): Promise<ReplicaSet> {
  const { amqpUrl, namespace, extraArgs = [], ...rest } = options;
  return ReplicaSet.start({
    ...rest,
    service: 'node',
    args: ({ frontUrl }) => [
      '--external-endpoint',
      frontUrl,
      '--mq-url',
      amqpUrl,
      '--mq-namespace',
      namespace,
      ...extraArgs,
    ],
  });
}

export interface VctLogReplicaOptions extends Omit<ReplicaSetOptions, 'service' | 'args'> {
  extraArgs?: readonly string[];
}

/** The vct-log as `count` replicas of one log: one base URL (the balancer), one database, one shared key file. */
export function startVctLogReplicas(options: VctLogReplicaOptions = {}): Promise<ReplicaSet> {
  const { extraArgs = [], ...rest } = options;
  return ReplicaSet.start({
    ...rest,
    service: 'vct-log',
    args: ({ frontUrl, root }) => ['--base-url', frontUrl, '--key-file', join(root, 'vct-log-key.pem'), ...extraArgs],
  });
}
