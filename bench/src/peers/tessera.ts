/**
 * The Tessera pair: transparency-dev's Tessera library with its POSIX storage, behind our minimal front
 * (bench/peers/tessera/main.go, built by scripts/ensure-tessera.sh from the Go module proxy), against our
 * vct-log (the built service, LMDB), both with their data on the same disk (this run's temporary directory)
 * and driven by the same load generator (request-load-process.ts):
 *   - appends as fast as each answers over 32 keep-alive connections (the vct-log bench's count), each answer
 *     given only once the entry is durable: Tessera's `Add` future resolves once its batch is sequenced and
 *     fsynced; our add-vc answers once the entry is committed (fsynced) to LMDB. The entries are the vct-log
 *     bench's ~2 KB credentials; ours canonicalises each (JSON-LD) and signs a timestamp, Tessera stores bytes.
 *   - inclusion proofs as fast as each answers over 16 connections, for leaves picked at random: ours by leaf
 *     hash (get-proof-by-hash), Tessera's by index (it has no hash index), both against the latest tree head.
 */
import { writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { leafHash } from '@anchor/common/merkle';
import { serviceBin } from '@anchor/dev-env';
import { freePort, startProcess, waitFor } from '@anchor/testing/process';
import { atLeast } from '../lib/report.js';
import { benchCredential } from '../vct-log/credentials.js';
import { runRequestLoad } from './held-rate.js';
import { logEntryWork } from './log-entry-work.js';
import { pair, skipped } from './pairs.js';
import { startBinary, treeCpuMs } from './processes.js';
import { ensure } from './scripts.js';
import { processCpuMs } from '../federation/node-processes.js';

const APPEND_CONNECTIONS = 32;
const PROOF_CONNECTIONS = 16;
const APPEND_S = 8;
const PROOF_S = 8;
/** Distinct credentials for our vct-log (a repeat is answered from the stored leaf: less work, so none is sent). */
const ENTRIES = 32_000;
/** Tessera without antispam appends a repeat in full, so it cycles over fewer. */
const TESSERA_ENTRIES = 8_000;
/** Tessera's batching: the longest an entry waits for its batch (our vct-log's group commit waits up to 4 ms). */
const TESSERA_BATCH_MAX_AGE = '4ms';

interface LogFigures {
  appends: number;
  appendP99: number;
  proofs: number;
  proofP99: number;
  size: number;
  cpuMsPerAppend: number | undefined;
}

function appendsFile(dir: string, name: string, path: string, entries: number): string {
  const run = Math.random().toString(36).slice(2, 8);
  const file = join(dir, `${name.replace(/\W+/g, '-')}-appends.jsonl`);
  const lines: string[] = [];
  for (let n = 0; n < entries; n++)
    lines.push(JSON.stringify({ method: 'POST', path, body: JSON.stringify(benchCredential(run, n)) }));
  writeFileSync(file, lines.join('\n'));
  return file;
}

async function measure(options: {
  dir: string;
  name: string;
  origin: string;
  appendPath: string;
  cycle: boolean;
  cpuMs: () => number | undefined;
  size: () => Promise<number>;
  proofPaths: (size: number) => Promise<string[]>;
}): Promise<LogFigures> {
  const file = appendsFile(options.dir, options.name, options.appendPath, options.cycle ? TESSERA_ENTRIES : ENTRIES);
  const common = { origin: options.origin, requestsFile: file, connections: APPEND_CONNECTIONS, cycle: options.cycle };
  const warm = await runRequestLoad({ ...common, durationS: 2 });
  const before = options.cpuMs();
  const appends = await runRequestLoad({ ...common, durationS: APPEND_S, offset: warm.used });
  const after = options.cpuMs();
  if (appends.failures > 0) console.log(`  ${options.name}: ${appends.failures} appends failed`);
  const total = warm.ok + appends.ok;
  await waitFor(async () => (await options.size()) >= total, {
    timeoutMs: 120_000,
    intervalMs: 100,
    description: `${options.name} to integrate ${total} entries`,
  });
  const size = await options.size();
  const proofsFile = join(options.dir, `${options.name.replace(/\W+/g, '-')}-proofs.jsonl`);
  writeFileSync(
    proofsFile,
    (await options.proofPaths(size)).map((path) => JSON.stringify({ method: 'GET', path })).join('\n'),
  );
  const proofLoad = { origin: options.origin, requestsFile: proofsFile, connections: PROOF_CONNECTIONS, random: true };
  await runRequestLoad({ ...proofLoad, durationS: 2 });
  const proofs = await runRequestLoad({ ...proofLoad, durationS: PROOF_S });
  if (proofs.failures > 0) console.log(`  ${options.name}: ${proofs.failures} proofs failed`);
  const figures = {
    appends: appends.rate,
    appendP99: appends.p99,
    proofs: proofs.rate,
    proofP99: proofs.p99,
    size,
    cpuMsPerAppend: before === undefined || after === undefined ? undefined : (after - before) / appends.ok,
  };
  console.log(
    `  ${options.name}: ${Math.round(figures.appends)} appends/s (p99 ${figures.appendP99.toFixed(1)} ms, CPU ${figures.cpuMsPerAppend?.toFixed(3) ?? '?'} ms each), ` +
      `${Math.round(figures.proofs)} proofs/s at ${size.toLocaleString('en-US')} entries (p99 ${figures.proofP99.toFixed(2)} ms)`,
  );
  return figures;
}

async function measureTessera(dir: string): Promise<LogFigures> {
  const binary = ensure('ensure-tessera.sh');
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  const server = startBinary(binary, [
    '--listen',
    `127.0.0.1:${port}`,
    '--storage-dir',
    join(dir, 'tessera-log'),
    '--batch-max-age',
    TESSERA_BATCH_MAX_AGE,
  ]);
  try {
    await waitFor(async () => (await fetch(`${origin}/size`).catch(() => undefined))?.ok === true, {
      timeoutMs: 30_000,
      intervalMs: 100,
      description: `the Tessera peer on ${origin}: ${server.output()}`,
    });
    return await measure({
      dir,
      name: 'Tessera (POSIX)',
      origin,
      appendPath: '/add',
      // Without antispam (not configured), Tessera appends a repeated entry in full like a new one.
      cycle: true,
      cpuMs: () => treeCpuMs(server.pid),
      size: async () => Number(await (await fetch(`${origin}/size`)).text()),
      proofPaths: async (size) => Array.from({ length: 2_000 }, () => `/proof/${Math.floor(Math.random() * size)}`),
    });
  } finally {
    await server.stop();
  }
}

function startOurs(dir: string, port: number) {
  return startProcess(serviceBin('@anchor/vct-log'), {
    name: 'vct-log',
    args: ['--host-url', `127.0.0.1:${port}`, '--data-dir', join(dir, 'vct-log'), '--log-level', 'warning'],
    readyUrl: `http://127.0.0.1:${port}/healthcheck`,
    readyStatus: (status) => status === 200,
    readyTimeoutMs: 60_000,
  });
}

async function measureOurs(dir: string): Promise<LogFigures> {
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  const service = await startOurs(dir, port);
  const getJson = async <T>(path: string): Promise<T> => {
    const response = await fetch(`${origin}${path}`);
    if (!response.ok) throw new Error(`GET ${path}: ${response.status}`);
    return (await response.json()) as T;
  };
  try {
    return await measure({
      dir,
      name: 'our vct-log (LMDB)',
      origin,
      appendPath: '/main/v1/add-vc',
      cycle: false,
      cpuMs: () => processCpuMs(service.pid),
      size: async () => (await getJson<{ tree_size: number }>('/main/v1/get-sth')).tree_size,
      proofPaths: async (size) => {
        const paths: string[] = [];
        for (let page = 0; page < 40; page++) {
          const start = Math.floor(Math.random() * Math.max(1, size - 50));
          const { entries } = await getJson<{ entries: Array<{ leaf_input: string }> }>(
            `/main/v1/get-entries?start=${start}&end=${Math.min(size - 1, start + 49)}`,
          );
          for (const entry of entries) {
            const hash = encodeURIComponent(leafHash(Buffer.from(entry.leaf_input, 'base64')).toString('base64'));
            paths.push(`/main/v1/get-proof-by-hash?hash=${hash}&tree_size=${size}`);
          }
        }
        return paths;
      },
    });
  } finally {
    await service.stop();
  }
}

export async function tesseraPairs(dir: string): Promise<void> {
  let peer: LogFigures;
  try {
    peer = await measureTessera(dir);
  } catch (error) {
    skipped('Tessera: appends durable before the answer', (error as Error).message);
    skipped('Tessera: inclusion proofs', (error as Error).message);
    return;
  }
  const ours = await measureOurs(dir);
  const work = await logEntryWork();
  const perEntry = work.canonicaliseMicros + work.signMicros;
  const ceiling = (availableParallelism() * 1e6) / perEntry;
  console.log(
    `  our per-entry work that Tessera does not do, one core in-process: canonicalisation ${work.canonicaliseMicros.toFixed(0)} µs + ` +
      `the timestamp's Ed25519 signature ${work.signMicros.toFixed(0)} µs = ${perEntry.toFixed(0)} µs; on ${availableParallelism()} cores doing nothing else ` +
      `that alone allows ${Math.round(ceiling).toLocaleString('en-US')} appends/s, ${(ceiling / peer.appends).toFixed(2)}x Tessera's rate here, before HTTP and storage`,
  );
  pair(
    `log: appends durable before the answer (${APPEND_CONNECTIONS} conn): vct-log / Tessera`,
    'appends/s',
    ours.appends,
    peer.appends,
    {
      target: atLeast(1),
      note: `ours canonicalises each credential and signs its timestamp, ${perEntry.toFixed(0)} µs of CPU an entry before HTTP and storage; Tessera stores the bytes`,
    },
  );
  if (ours.cpuMsPerAppend !== undefined && peer.cpuMsPerAppend !== undefined)
    pair('log: CPU per append', 'ms', ours.cpuMsPerAppend, peer.cpuMsPerAppend, { lowerIsBetter: true });
  pair(`log: inclusion proofs (${PROOF_CONNECTIONS} conn): vct-log / Tessera`, 'proofs/s', ours.proofs, peer.proofs);
}

/**
 * Our vct-log's CPU per append alone (`--only vct-log-cpu`): the same appends and connections as the pair, the
 * CPU of the service process over every thread (HTTP thread and entry workers) divided by the appends answered.
 * A cost rather than a rate, so it holds on a busy machine where the pair's wall-clock rates do not.
 */
export async function vctLogAppendCpu(dir: string): Promise<void> {
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  const service = await startOurs(dir, port);
  try {
    const file = appendsFile(dir, 'vct-log-cpu', '/main/v1/add-vc', ENTRIES);
    const common = { origin, requestsFile: file, connections: APPEND_CONNECTIONS };
    const warm = await runRequestLoad({ ...common, durationS: 2 });
    const before = processCpuMs(service.pid);
    const appends = await runRequestLoad({ ...common, durationS: APPEND_S, offset: warm.used });
    const after = processCpuMs(service.pid);
    if (before === undefined || after === undefined) throw new Error('no /proc here: CPU per append unknown');
    console.log(
      `  our vct-log (LMDB): ${appends.ok} appends (${appends.failures} failed), CPU ${(((after - before) * 1_000) / appends.ok).toFixed(0)} µs an append, every thread`,
    );
  } finally {
    await service.stop();
  }
}
