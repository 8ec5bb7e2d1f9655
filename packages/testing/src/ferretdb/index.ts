/**
 * The MongoDB-wire server the MongoDB suites run against: MONGODB_URL when it names a server (a real
 * MongoDB, e.g. a replica set), else FerretDB with its SQLite backend (test/ferretdb), started on a free
 * loopback port with a temporary data directory and stopped by `stop()`.
 *
 *   const server = await mongoServerForTests();   // in a beforeAll
 *   createMongoStoreProvider({ url: server.url, ... });
 *   await server.stop();                            // in the afterAll
 */
import { execFile, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { ServiceProcess } from '../process/service-process.js';
import { makeTempDir } from '../process/temp-dir.js';

export interface MongoTestServer {
  /** mongodb:// connection string. */
  readonly url: string;
  /** Which server it is, for the suites' printed notice: "FerretDB v1.24.0 (SQLite backend, reports MongoDB 7.0.42)". */
  readonly label: string;
  /** False on FerretDB, which has no multi-document transactions: the adapter's non-transactional path runs. */
  readonly transactions: boolean;
  /** The FerretDB server's SQLite directory (one `<database>.sqlite` file per database); absent for MONGODB_URL. */
  readonly dataDir?: string;
  /** Stops the server started for the tests (nothing for MONGODB_URL) and removes its data. */
  stop(): Promise<void>;
}

// src/ferretdb and dist/ferretdb sit at the same depth below the repository root.
const REPO_ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', '..');
const ENSURE_SCRIPT = join(REPO_ROOT, 'scripts', 'ensure-ferretdb.sh');
const READY_LINE = /^ready (mongodb:\/\/\S+) ferretdb=(\S+) mongodb=(\S+) backend=(\S+)$/m;

/** MONGODB_URL when set, else a FerretDB of its own. */
export async function mongoServerForTests(): Promise<MongoTestServer> {
  const url = process.env['MONGODB_URL'];
  if (url) return { url, label: `MongoDB at MONGODB_URL`, transactions: true, stop: async () => undefined };
  return startFerretDb();
}

/**
 * The test/ferretdb binary, built by scripts/ensure-ferretdb.sh into a machine-wide cache keyed by its
 * sources (CI builds it before the tests; the first run on a machine pays the build, minutes, once).
 */
export async function ferretDbBinary(): Promise<string> {
  if (!existsSync(ENSURE_SCRIPT)) throw new Error(`FerretDB: ${ENSURE_SCRIPT} is missing`);
  const { stdout } = await promisify(execFile)('bash', [ENSURE_SCRIPT], {
    timeout: 20 * 60_000,
    maxBuffer: 16 * 1024 * 1024,
  });
  const binary = stdout.trim().split('\n').pop() ?? '';
  if (!existsSync(binary))
    throw new Error(`FerretDB: ${ENSURE_SCRIPT} printed no binary path (got ${JSON.stringify(stdout)})`);
  return binary;
}

export async function startFerretDb(
  options: {
    readyTimeoutMs?: number;
    /** Further flags of test/ferretdb (its README). */ args?: readonly string[];
  } = {},
): Promise<MongoTestServer> {
  const binary = await ferretDbBinary();
  const data = await makeTempDir('anchor-ferretdb-');
  // stdin stays an open pipe: when this process goes away, even by SIGKILL, the server sees its end and stops.
  const child = spawn(
    binary,
    ['--port', '0', '--data-dir', data.path, '--exit-on-stdin-eof', ...(options.args ?? [])],
    {
      stdio: ['pipe', 'pipe', 'pipe'],
    },
  );
  const server = new ServiceProcess(child, 'ferretdb');
  const stop = async (): Promise<void> => {
    await server.stop();
    child.stdin?.destroy();
    await data.remove();
  };
  try {
    await server.waitForLine(READY_LINE, options.readyTimeoutMs ?? 30_000);
  } catch (error) {
    await stop();
    throw error;
  }
  const [, uri, ferretdb, mongodb, backend] = READY_LINE.exec(server.stdout())!;
  const url = new URL(uri!);
  url.pathname = '/anchor';
  return {
    url: url.toString(),
    label: `FerretDB ${ferretdb} (${backend} backend, reports MongoDB ${mongodb})`,
    transactions: false,
    dataDir: data.path,
    stop,
  };
}

/**
 * Where a MongoDB URL's (first) server is, and the same connection string aimed at 127.0.0.1:<port> as a
 * direct connection, so every byte goes through a proxy there (a replica-set URL would otherwise make the
 * driver reach the members directly). For tests that cut the link with `TcpProxy`.
 */
export function mongoThroughProxy(url: string): {
  target: { host: string; port: number };
  urlVia(port: number): string;
} {
  const match = /^(mongodb:\/\/(?:[^@/]*@)?)([^/?]+)(.*)$/.exec(url);
  if (!match) throw new Error('the MongoDB URL must be a mongodb:// connection string');
  const [host = '127.0.0.1', port = '27017'] = (match[2] ?? '').split(',')[0]?.split(':') ?? [];
  const path = match[3] === undefined || match[3] === '' ? '/' : match[3];
  const withoutReplicaSet = path.replace(/([?&])replicaSet=[^&]*(&|$)/, (_all, lead: string, tail: string) =>
    tail === '&' ? lead : '',
  );
  const query = withoutReplicaSet.includes('?')
    ? `${withoutReplicaSet}&directConnection=true`
    : `${withoutReplicaSet}?directConnection=true`;
  return {
    target: { host, port: Number(port) },
    urlVia: (proxyPort) => `${match[1] ?? ''}127.0.0.1:${proxyPort}${query}`,
  };
}
