/**
 * A FerretDB server (test/ferretdb) a fault test can stop and start again: its own loopback port and data
 * directory, both kept across restarts, so what was written before a restart is there after it.
 * (`@anchor/testing/ferretdb` starts a throwaway one per suite; this one is for database-restart tests.)
 */
import { spawn } from 'node:child_process';
import { mkdir } from 'node:fs/promises';
import { ferretDbBinary } from '../ferretdb/index.js';
import { freePort } from '../process/free-port.js';
import { ServiceProcess } from '../process/service-process.js';

const READY_LINE = /^ready mongodb:\/\/\S+/m;

export class FerretDbNode {
  private server: { process: ServiceProcess; stdin: NodeJS.WritableStream | null } | undefined;

  private constructor(
    private readonly binary: string,
    readonly dataDir: string,
    readonly port: number,
  ) {}

  /** Starts a server keeping its data in `dataDir` (created if missing). */
  static async start(dataDir: string): Promise<FerretDbNode> {
    await mkdir(dataDir, { recursive: true });
    const node = new FerretDbNode(await ferretDbBinary(), dataDir, await freePort());
    await node.up();
    return node;
  }

  /** mongodb:// connection string of the `anchor` database. */
  get url(): string {
    return `mongodb://127.0.0.1:${this.port}/anchor`;
  }

  /** Starts the server (again) on the same port and data; resolves once it accepts connections. */
  async up(timeoutMs = 30_000): Promise<void> {
    if (this.server) throw new Error('FerretDB is already running');
    // stdin stays an open pipe: when this process goes away, even by SIGKILL, the server sees its end and stops.
    const child = spawn(this.binary, ['--port', String(this.port), '--data-dir', this.dataDir, '--exit-on-stdin-eof'], {
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const server = new ServiceProcess(child, `ferretdb:${this.port}`);
    this.server = { process: server, stdin: child.stdin };
    try {
      await server.waitForLine(READY_LINE, timeoutMs);
    } catch (error) {
      await this.down();
      throw error;
    }
  }

  /** Stops the server (SIGTERM, as an operator's restart would); connections are closed by it. */
  async down(): Promise<void> {
    const server = this.server;
    if (!server) return;
    this.server = undefined;
    await server.process.stop();
    (server.stdin as (NodeJS.WritableStream & { destroy(): void }) | null)?.destroy();
  }

  get running(): boolean {
    return this.server !== undefined;
  }
}
