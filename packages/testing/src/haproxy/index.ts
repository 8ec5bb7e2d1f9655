/**
 * Debian's haproxy (installed by scripts/ensure-haproxy.sh) as the load balancer in front of a service's
 * replicas: one loopback frontend, round robin over the backends, each health-checked on `GET /healthcheck`
 * (200 = in rotation), so a killed replica leaves the rotation as a real deployment's would.
 *
 *   const proxy = await startHaproxy({ backends: [{ port: 4001 }, { port: 4002 }] });
 *   await proxy.waitForUp(2);   // both backends passed their health check
 *   fetch(`${proxy.url}/...`);
 *   await proxy.stop();
 */
import { execFile, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { freePort } from '../process/free-port.js';
import { ServiceProcess } from '../process/service-process.js';
import { makeTempDir, type TempDir } from '../process/temp-dir.js';

const REPO_ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', '..');
const ENSURE_SCRIPT = join(REPO_ROOT, 'scripts', 'ensure-haproxy.sh');

export interface HaproxyOptions {
  backends: ReadonlyArray<{ port: number; host?: string }>;
  /** Frontend port (default: a free one). A service told its external URL up front needs it before it starts. */
  port?: number;
  /** Health-check interval (default 500 ms); a backend leaves after 3 failed checks, returns after 1 good one. */
  checkIntervalMs?: number;
}

export interface BackendState {
  name: string;
  /** haproxy's status column: UP, DOWN, `UP 1/2` (going down), ... */
  status: string;
}

/** The haproxy binary, or why there is none (CI=true makes a missing one an error in the script). */
export async function haproxyBinary(): Promise<{ binary?: string; reason?: string }> {
  if (!existsSync(ENSURE_SCRIPT)) return { reason: `${ENSURE_SCRIPT} is missing` };
  try {
    const { stdout, stderr } = await promisify(execFile)('bash', [ENSURE_SCRIPT], { timeout: 10 * 60_000 });
    const binary = stdout.trim().split('\n').pop() ?? '';
    if (binary && existsSync(binary)) return { binary };
    return { reason: stderr.trim() || 'scripts/ensure-haproxy.sh found no haproxy' };
  } catch (error) {
    return { reason: (error as Error).message };
  }
}

/** The haproxy configuration: HTTP mode, round robin, health checks, connection failures retried elsewhere. */
export function haproxyConfig(options: {
  port: number;
  backends: HaproxyOptions['backends'];
  statsSocket: string;
  checkIntervalMs: number;
}): string {
  const servers = options.backends.map(
    (backend, index) => `  server r${index} ${backend.host ?? '127.0.0.1'}:${backend.port} check`,
  );
  return [
    'global',
    '  maxconn 4096',
    `  stats socket ${options.statsSocket} mode 600 level admin`,
    'defaults',
    '  mode http',
    '  timeout connect 2s',
    // A loaded replica answers its health check slowly; slow is not down (a dead one refuses at once).
    '  timeout check 5s',
    '  timeout client 120s',
    '  timeout server 120s',
    // A request whose connection failed was never sent: safe to send to another replica, even a POST.
    '  retries 3',
    '  option redispatch',
    'frontend front',
    `  bind 127.0.0.1:${options.port}`,
    '  default_backend replicas',
    'backend replicas',
    '  balance roundrobin',
    '  option httpchk GET /healthcheck',
    '  http-check expect status 200',
    `  default-server inter ${options.checkIntervalMs}ms fall 3 rise 1`,
    ...servers,
    '',
  ].join('\n');
}

export class Haproxy {
  private constructor(
    readonly port: number,
    private readonly process: ServiceProcess,
    private readonly dir: TempDir,
    private readonly statsSocket: string,
  ) {}

  /** `http://127.0.0.1:<port>`: the frontend. */
  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  static async start(options: HaproxyOptions): Promise<Haproxy> {
    const { binary, reason } = await haproxyBinary();
    if (!binary) throw new Error(`haproxy is unavailable: ${reason}`);
    const dir = await makeTempDir('anchor-haproxy-');
    const port = options.port ?? (await freePort());
    const statsSocket = join(dir.path, 'admin.sock');
    const configFile = join(dir.path, 'haproxy.cfg');
    await writeFile(
      configFile,
      haproxyConfig({ port, backends: options.backends, statsSocket, checkIntervalMs: options.checkIntervalMs ?? 500 }),
    );
    // -db: foreground, no daemon. setpriv ends it with its parent even when the parent is SIGKILLed.
    const command = existsSync('/usr/bin/setpriv')
      ? ['/usr/bin/setpriv', ['--pdeathsig', 'KILL', binary, '-db', '-f', configFile]]
      : [binary, ['-db', '-f', configFile]];
    const child = spawn(command[0] as string, command[1] as string[], { stdio: ['ignore', 'pipe', 'pipe'] });
    const proxy = new Haproxy(port, new ServiceProcess(child, `haproxy:${port}`), dir, statsSocket);
    try {
      await proxy.waitForFrontend();
    } catch (error) {
      await proxy.stop();
      throw error;
    }
    return proxy;
  }

  private async waitForFrontend(timeoutMs = 10_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      if (this.process.exitInfo) throw new Error(this.process.describe('haproxy exited while starting'));
      if (await tcpOpen(this.port)) return;
      if (Date.now() > deadline) throw new Error(this.process.describe(`did not listen within ${timeoutMs} ms`));
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  /** Every backend's state, from the admin socket (`show stat`). */
  async backends(): Promise<BackendState[]> {
    const csv = await adminCommand(this.statsSocket, 'show stat');
    const [header, ...rows] = csv.trim().split('\n');
    const columns = (header ?? '').replace(/^# /, '').split(',');
    const svname = columns.indexOf('svname');
    const status = columns.indexOf('status');
    return rows
      .map((row) => row.split(','))
      .filter((cells) => cells[0] === 'replicas' && cells[svname] !== 'BACKEND')
      .map((cells) => ({ name: cells[svname] ?? '', status: cells[status] ?? '' }));
  }

  /** Waits until `count` backends are UP (passed their health check). */
  async waitForUp(count: number, timeoutMs = 30_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const states = await this.backends();
      if (states.filter((state) => state.status === 'UP').length >= count) return;
      if (Date.now() > deadline)
        throw new Error(`haproxy: ${count} backends not UP within ${timeoutMs} ms: ${JSON.stringify(states)}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  async stop(): Promise<void> {
    await this.process.stop();
    await this.dir.remove();
  }
}

export const startHaproxy = (options: HaproxyOptions): Promise<Haproxy> => Haproxy.start(options);

function tcpOpen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

function adminCommand(socketPath: string, command: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(socketPath);
    let answer = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (answer += chunk));
    socket.once('error', reject);
    socket.once('end', () => resolve(answer));
    socket.once('connect', () => socket.end(`${command}\n`));
  });
}
