/**
 * A private RabbitMQ node for fault tests: its own Erlang node name, AMQP port, distribution port, data and
 * log directories, bound to 127.0.0.1, so a test can stop and restart it under load without touching the
 * machine's shared broker. Durable queues and persistent messages survive its restarts (same data dir).
 * Needs Debian's rabbitmq-server (installed by scripts/ensure-rabbitmq.sh); `rabbitmqNodeUnavailable` says why not.
 */
import { execFile, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import { connect as tcpConnect } from 'node:net';
import { join } from 'node:path';
import { freePort } from '../process/index.js';

const SERVER = '/usr/lib/rabbitmq/bin/rabbitmq-server';
const CTL = '/usr/lib/rabbitmq/bin/rabbitmqctl';

/** Undefined when a private node can be started here; otherwise why not (CI=true makes that an error). */
export function rabbitmqNodeUnavailable(): string | undefined {
  const reason = !existsSync(SERVER) ? `${SERVER} is missing (install Debian's rabbitmq-server)` : undefined;
  if (reason && process.env['CI'] === 'true')
    throw new Error(`CI=true but a private RabbitMQ node cannot be started: ${reason}`);
  return reason;
}

function portOpen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = tcpConnect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

export class RabbitMqNode {
  private child: ChildProcess | undefined;
  private output = '';

  private constructor(
    readonly dir: string,
    readonly port: number,
    readonly distPort: number,
    readonly nodeName: string,
  ) {}

  /** amqp URL of the node (guest may log in from loopback). */
  get url(): string {
    return `amqp://guest:guest@127.0.0.1:${this.port}`;
  }

  /**
   * Creates the node's directories under `dir` and starts it. Nodes meant to form a cluster share an Erlang
   * `cookie` (written to the node's HOME, `dir`) and get distinct names (`name` + the AMQP port);
   * `advancedConfig` is the node's advanced.config (Erlang terms).
   */
  static async start(
    dir: string,
    options: { cookie?: string; name?: string; advancedConfig?: string } = {},
  ): Promise<RabbitMqNode> {
    const port = await freePort();
    let distPort = await freePort();
    while (distPort === port) distPort = await freePort();
    const node = new RabbitMqNode(dir, port, distPort, `${options.name ?? 'anchor-test'}-${port}@localhost`);
    await mkdir(join(dir, 'mnesia'), { recursive: true });
    await mkdir(join(dir, 'log'), { recursive: true });
    await writeFile(join(dir, 'enabled_plugins'), '[].\n');
    if (options.advancedConfig !== undefined) await writeFile(join(dir, 'advanced.config'), options.advancedConfig);
    if (options.cookie !== undefined) {
      const cookie = join(dir, '.erlang.cookie');
      await writeFile(cookie, options.cookie);
      await chmod(cookie, 0o400);
    }
    try {
      await node.up();
    } catch (error) {
      // A node that never came up (timed out) is still a process of ours.
      await node.kill();
      throw error;
    }
    return node;
  }

  private env(): NodeJS.ProcessEnv {
    return {
      ...process.env,
      HOME: this.dir,
      RABBITMQ_NODENAME: this.nodeName,
      RABBITMQ_NODE_IP_ADDRESS: '127.0.0.1',
      RABBITMQ_NODE_PORT: String(this.port),
      RABBITMQ_DIST_PORT: String(this.distPort),
      RABBITMQ_MNESIA_BASE: join(this.dir, 'mnesia'),
      RABBITMQ_LOG_BASE: join(this.dir, 'log'),
      RABBITMQ_CONFIG_FILE: join(this.dir, 'rabbitmq'),
      RABBITMQ_ADVANCED_CONFIG_FILE: join(this.dir, 'advanced.config'),
      RABBITMQ_ENABLED_PLUGINS_FILE: join(this.dir, 'enabled_plugins'),
      RABBITMQ_PID_FILE: join(this.dir, 'rabbitmq.pid'),
      RABBITMQ_SERVER_ADDITIONAL_ERL_ARGS: '-kernel inet_dist_use_interface {127,0,0,1}',
      ERL_EPMD_ADDRESS: '127.0.0.1',
    };
  }

  /** Starts the node (again) on the same ports and data; resolves once it accepts AMQP connections. */
  async up(timeoutMs = 120_000): Promise<void> {
    if (this.child) throw new Error(`${this.nodeName} is already running`);
    const child = spawn(SERVER, [], { env: this.env(), stdio: ['ignore', 'pipe', 'pipe'] });
    this.child = child;
    child.stdout?.on('data', (chunk: Buffer) => (this.output += chunk.toString('utf8')));
    child.stderr?.on('data', (chunk: Buffer) => (this.output += chunk.toString('utf8')));
    child.once('exit', () => {
      if (this.child === child) this.child = undefined;
    });
    const deadline = Date.now() + timeoutMs;
    while (!(await portOpen(this.port))) {
      if (!this.child) throw new Error(`${this.nodeName} exited while starting:\n${this.output.slice(-2_000)}`);
      if (Date.now() > deadline)
        throw new Error(
          `${this.nodeName} did not accept connections within ${timeoutMs} ms:\n${this.output.slice(-2_000)}`,
        );
      await new Promise((r) => setTimeout(r, 200));
    }
  }

  /** Stops the node as an operator would (rabbitmqctl stop): connections are closed by the broker. */
  async down(): Promise<void> {
    const child = this.child;
    if (!child) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    spawnSync(CTL, ['-n', this.nodeName, 'stop'], { env: this.env(), stdio: 'ignore', timeout: 60_000 });
    const killer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    await exited;
    clearTimeout(killer);
    this.child = undefined;
  }

  /** Runs rabbitmqctl against this node (without blocking the event loop); rejects with its output on failure. */
  ctl(args: readonly string[], timeoutMs = 60_000): Promise<string> {
    return new Promise((resolve, reject) => {
      execFile(
        CTL,
        ['-n', this.nodeName, ...args],
        { env: this.env(), timeout: timeoutMs },
        (error, stdout, stderr) => {
          if (error)
            reject(new Error(`rabbitmqctl ${args.join(' ')} on ${this.nodeName}: ${error.message}\n${stderr}`));
          else resolve(stdout);
        },
      );
    });
  }

  /** Waits until the node accepts AMQP connections again (after start_app). */
  async accepting(timeoutMs = 60_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!(await portOpen(this.port))) {
      if (Date.now() > deadline) throw new Error(`${this.nodeName} does not accept connections`);
      await new Promise((r) => setTimeout(r, 200));
    }
  }

  /**
   * kill -9 of the Erlang VM (its pid file names it; the rabbitmq-server script that started it is only its
   * parent): no shutdown, connections die with the process, as in a crash or an OOM kill.
   */
  async kill(): Promise<void> {
    const child = this.child;
    if (!child) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    const pid = Number((await readFile(join(this.dir, 'rabbitmq.pid'), 'utf8').catch(() => '')).trim());
    if (Number.isInteger(pid) && pid > 0) process.kill(pid, 'SIGKILL');
    const killer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(killer);
    this.child = undefined;
  }

  get running(): boolean {
    return this.child !== undefined;
  }
}
