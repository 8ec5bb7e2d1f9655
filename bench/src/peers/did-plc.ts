/**
 * The did:plc pair: Bluesky's PLC directory (@did-plc/server, bench/peers/plc-server.mjs) on a private
 * PostgreSQL cluster, against our node, driven by the same load generator with the same connection counts:
 * genesis operations (creates) at the highest rate held with p99 <= 50 ms, over 64 connections; resolutions of
 * the DIDs just created at the highest rate held with p99 <= 10 ms, over 20 connections (the node bench's
 * counts). CPU per operation counts every process that serves it: the directory and all of PostgreSQL's, and
 * our node process with all its threads (LMDB's included), our creates' anchoring after the answer included.
 */
import { existsSync, mkdirSync, readFileSync, renameSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { runProcess, startProcess } from '@anchor/testing/process';
import { freePort } from '@anchor/testing/process';
import { atLeast } from '../lib/report.js';
import { processCpuMs } from '../federation/node-processes.js';
import { heldRate, type HeldRate } from './held-rate.js';
import { startOurNode, resolutionsFile, writeCreates } from './our-node.js';
import { pair, skipped } from './pairs.js';
import { startPostgres } from './postgres.js';
import { ensure, PEERS_DIR } from './scripts.js';

const CREATE_CONNECTIONS = 64;
const RESOLVE_CONNECTIONS = 20;
const CREATE_P99_MS = 50;
const RESOLVE_P99_MS = 10;
/** Genesis operations prepared for the directory (cached: their signing costs minutes of CPU here). */
const PLC_OPERATIONS = 30_000;
const OUR_CREATES = 60_000;
const RESOLVED_DIDS = 10_000;

const NAMES = {
  creates: `did:plc: creates held at p99 <= ${CREATE_P99_MS} ms (${CREATE_CONNECTIONS} connections)`,
  resolutions: `did:plc: resolutions held at p99 <= ${RESOLVE_P99_MS} ms (${RESOLVE_CONNECTIONS} connections)`,
  createCapacity: `did:plc: creates as fast as each answers (${CREATE_CONNECTIONS} connections, no bound)`,
  resolveCapacity: `did:plc: resolutions as fast as each answers (${RESOLVE_CONNECTIONS} connections, no bound)`,
  createCpu: 'did:plc: CPU per create, every process (PostgreSQL, LMDB threads)',
  resolveCpu: 'did:plc: CPU per resolution, every process',
};

/** The directory's genesis operations, prepared once per machine (ANCHOR_CACHE_DIR, default ~/.cache/anchor). */
async function plcOperations(): Promise<string> {
  const dir = join(process.env.ANCHOR_CACHE_DIR ?? join(homedir(), '.cache', 'anchor'), 'peers');
  const file = join(dir, `plc-genesis-${PLC_OPERATIONS}.jsonl`);
  if (existsSync(file)) return file;
  mkdirSync(dir, { recursive: true });
  console.log(`preparing ${PLC_OPERATIONS.toLocaleString('en-US')} did:plc genesis operations (once per machine)...`);
  const run = await runProcess(join(PEERS_DIR, 'plc-ops.mjs'), {
    args: [String(PLC_OPERATIONS), `${file}.tmp`],
    timeoutMs: 30 * 60_000,
  });
  if (run.code !== 0) throw new Error(`plc-ops.mjs failed: ${run.stderr.trim()}`);
  renameSync(`${file}.tmp`, file);
  return file;
}

const describe = (who: string, figures: HeldRate, unit: string) =>
  console.log(
    `  ${who}: ${figures.held ? 'held' : 'NOT held at any rate tried'} ${Math.round(figures.rate).toLocaleString('en-US')} ${unit} ` +
      `(offered ${figures.offered.toLocaleString('en-US')}/s, p50 ${figures.p50.toFixed(2)} ms, p99 ${figures.p99.toFixed(2)} ms` +
      `${figures.failures > 0 ? `, ${figures.failures} failed` : ''}; ` +
      `capacity ${Math.round(figures.capacity).toLocaleString('en-US')}/s at p99 ${figures.capacityP99.toFixed(1)} ms; ` +
      `CPU ${figures.cpuMsPerOp?.toFixed(3) ?? '?'} ms per op)`,
  );

async function measurePlc(dir: string): Promise<{ creates: HeldRate; resolutions: HeldRate }> {
  const binDir = ensure('ensure-postgresql.sh');
  ensure('ensure-peers.sh');
  const operations = await plcOperations();
  const cluster = await startPostgres(binDir);
  try {
    const port = await freePort();
    const origin = `http://127.0.0.1:${port}`;
    const directory = await startProcess(join(PEERS_DIR, 'plc-server.mjs'), {
      name: 'did-plc',
      args: [String(port)],
      env: { DATABASE_URL: cluster.url },
      readyUrl: `${origin}/_health`,
      readyStatus: (status) => status === 200,
      readyTimeoutMs: 60_000,
    });
    const cpuMs = () => {
      const [db, server] = [cluster.cpuMs(), processCpuMs(directory.pid)];
      return db === undefined || server === undefined ? undefined : db + server;
    };
    try {
      const creates = await heldRate({
        origin,
        requestsFile: operations,
        connections: CREATE_CONNECTIONS,
        p99LimitMs: CREATE_P99_MS,
        random: false,
        cpuMs,
      });
      describe('did:plc directory, creates', creates, 'creates/s');
      console.log(
        `  did:plc directory: ${creates.okLines.length} of ${creates.used} creates taken answered 2xx (the DIDs resolved next)`,
      );
      // Only DIDs the directory answered 2xx for: a create that failed, or one the generator took from the file
      // but never sent, would be a 404 at resolution and fail every paced run.
      const lines = readFileSync(operations, 'utf8').split('\n');
      const created = creates.okLines
        .slice(-RESOLVED_DIDS)
        .map((line) => (JSON.parse(lines[line] as string) as { path: string }).path);
      const resolutions = await heldRate({
        origin,
        requestsFile: resolutionsFile(dir, created),
        connections: RESOLVE_CONNECTIONS,
        p99LimitMs: RESOLVE_P99_MS,
        random: true,
        cpuMs,
      });
      describe('did:plc directory, resolutions', resolutions, 'resolutions/s');
      return { creates, resolutions };
    } finally {
      await directory.stop();
    }
  } finally {
    await cluster.stop();
  }
}

async function measureOurs(dir: string): Promise<{ creates: HeldRate; resolutions: HeldRate }> {
  const node = await startOurNode(dir);
  try {
    const file = join(dir, 'node-creates.jsonl');
    const creates = writeCreates(file, OUR_CREATES, node.origin);
    const cpuMs = () => processCpuMs(node.process.pid);
    const held = await heldRate({
      origin: node.origin,
      requestsFile: file,
      connections: CREATE_CONNECTIONS,
      p99LimitMs: CREATE_P99_MS,
      random: false,
      cpuMs,
      settle: node.drained,
    });
    describe('our node, creates', held, 'creates/s');
    const created = held.okLines
      .slice(-RESOLVED_DIDS)
      .map((line) => `/sidetree/v1/identifiers/${(creates[line] as { did: string }).did}`);
    const resolutions = await heldRate({
      origin: node.origin,
      requestsFile: resolutionsFile(dir, created),
      connections: RESOLVE_CONNECTIONS,
      p99LimitMs: RESOLVE_P99_MS,
      random: true,
      cpuMs,
    });
    describe('our node, resolutions', resolutions, 'resolutions/s');
    return { creates: held, resolutions };
  } finally {
    await node.process.stop();
  }
}

export async function didPlcPairs(dir: string): Promise<void> {
  let peer: { creates: HeldRate; resolutions: HeldRate };
  try {
    peer = await measurePlc(dir);
  } catch (error) {
    for (const name of Object.values(NAMES)) skipped(name, (error as Error).message);
    return;
  }
  let ours: { creates: HeldRate; resolutions: HeldRate };
  try {
    ours = await measureOurs(dir);
  } catch (error) {
    for (const name of Object.values(NAMES)) skipped(name, `our side failed: ${(error as Error).message}`);
    return;
  }
  // A side that held no rate tried still has a figure: ours counts as 0 (a miss, plainly); the directory's as the
  // lowest rate tried, more than it holds, so the ratio printed is a lower bound on the real one.
  const heldPair = (name: string, unit: string, a: HeldRate, b: HeldRate, limitMs: number) => {
    const notes: string[] = [];
    if (!a.held)
      notes.push(
        `our node held p99 <= ${limitMs} ms at no rate tried (lowest ${a.offered}/s: p99 ${a.p99.toFixed(1)} ms), counted as 0`,
      );
    if (!b.held)
      notes.push(
        `the directory held p99 <= ${limitMs} ms at no rate tried (lowest ${b.offered}/s: p99 ${b.p99.toFixed(1)} ms), ` +
          `counted at that rate, more than it holds: the ratio is a lower bound`,
      );
    const row = pair(name, unit, a.held ? a.rate : 0, b.held ? b.rate : b.offered, {
      target: atLeast(3),
      ...(notes.length > 0 ? { note: notes.join('; ') } : {}),
    });
    if (notes.length > 0 && row.ratio >= 1) for (const note of notes) console.log(`         ${note}`);
  };
  heldPair(NAMES.creates, 'ops/s', ours.creates, peer.creates, CREATE_P99_MS);
  heldPair(NAMES.resolutions, 'req/s', ours.resolutions, peer.resolutions, RESOLVE_P99_MS);
  // Where a loaded machine lets neither side hold its bound, these still compare the two at the same load.
  pair(NAMES.createCapacity, 'ops/s', ours.creates.capacity, peer.creates.capacity);
  pair(NAMES.resolveCapacity, 'req/s', ours.resolutions.capacity, peer.resolutions.capacity);
  if (ours.creates.cpuMsPerOp !== undefined && peer.creates.cpuMsPerOp !== undefined)
    pair(NAMES.createCpu, 'ms', ours.creates.cpuMsPerOp, peer.creates.cpuMsPerOp, { lowerIsBetter: true });
  if (ours.resolutions.cpuMsPerOp !== undefined && peer.resolutions.cpuMsPerOp !== undefined)
    pair(NAMES.resolveCpu, 'ms', ours.resolutions.cpuMsPerOp, peer.resolutions.cpuMsPerOp, { lowerIsBetter: true });
}
