/**
 * A private PostgreSQL cluster for the did:plc peer: Debian's server (scripts/ensure-postgresql.sh), initdb in a
 * temporary directory, listening on a loopback port only, with the server's defaults otherwise (fsync and
 * synchronous commit on: a commit is durable before the directory answers, as our node's creates are). The
 * server refuses to run as root, so the cluster belongs to the `postgres` user the Debian package creates when
 * this runs as root. Removed at the end.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { chownSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, waitFor } from '@anchor/testing/process';
import { startBinary, treeCpuMs, type BinaryProcess } from './processes.js';

export interface PostgresCluster {
  url: string;
  /** CPU ms so far of the postmaster and every backend and helper process it forked. */
  cpuMs(): number | undefined;
  stop(): Promise<void>;
}

function postgresUser(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const id = (flag: string) => Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }).trim());
  return { uid: id('-u'), gid: id('-g') };
}

export async function startPostgres(binDir: string): Promise<PostgresCluster> {
  const dir = mkdtempSync(join(tmpdir(), 'peers-pg-'));
  const data = join(dir, 'data');
  const user = postgresUser();
  if (user) chownSync(dir, user.uid, user.gid);
  const asUser = user ? { uid: user.uid, gid: user.gid } : {};
  const init = spawnSync(
    join(binDir, 'initdb'),
    ['-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--locale=C.UTF-8'],
    {
      ...asUser,
      encoding: 'utf8',
      timeout: 120_000,
    },
  );
  if (init.status !== 0) {
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`initdb failed (${init.status}): ${init.stderr.trim()}`);
  }
  const port = await freePort();
  const server: BinaryProcess = startBinary(
    join(binDir, 'postgres'),
    ['-D', data, '-h', '127.0.0.1', '-p', String(port), '-k', dir, '-c', 'max_connections=100'],
    asUser,
  );
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  try {
    await waitFor(
      () =>
        spawnSync(join(binDir, 'pg_isready'), ['-h', '127.0.0.1', '-p', String(port), '-q'], { timeout: 5_000 })
          .status === 0,
      { timeoutMs: 60_000, intervalMs: 200, description: `PostgreSQL on 127.0.0.1:${port}` },
    );
  } catch (error) {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`${(error as Error).message}: ${server.output()}`, { cause: error });
  }
  return {
    url,
    cpuMs: () => treeCpuMs(server.pid),
    stop: async () => {
      // SIGINT: PostgreSQL's fast shutdown (open sessions are ended, the cluster is then gone anyway).
      await server.stop('SIGINT');
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
