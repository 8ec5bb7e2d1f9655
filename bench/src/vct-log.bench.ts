/**
 * vct-log under load, as deployed: the built service runs as its own process on a fresh LMDB data
 * directory, and this process drives it over loopback HTTP.
 *
 *   1. add-vc, sustained: distinct ~2 KB credentials from 32 keep-alive connections for 25 s after a 5 s
 *      warm-up; integration latency = from the add-vc response to the first signed tree head (polled every
 *      10 ms) that covers the entry, sampled on every 20th credential.
 *   2. The log is grown to 100,000 entries; get-proof-by-hash is then driven at a steady 3,000 requests/s
 *      over up to 16 keep-alive connections for 20 s, for leaves spread over the tree, and its latency
 *      percentiles are reported.
 *      The same load is then sent to a bare node:http server with a fixed answer: its latencies are what the
 *      machine (loopback, scheduling, the load generator) adds to any server's, for reading the figures.
 *   3. The service is restarted on its 100,000-entry database: time until it answers again.
 *
 * Targets (2 cores, the load generator included): >= 1,500 add-vc/s sustained, integration p99 <= 1.5 s,
 * proof p99 <= 2 ms at >= 3,000 proofs/s.
 *
 *   cd /work/main && npx tsc -b services/vct-log bench && node bench/dist/vct-log.bench.js
 */
import { fileURLToPath } from 'node:url';
import { leafHash } from '@anchor/common/merkle';
import { serviceBin } from '@anchor/dev-env';
import { freePort, makeTempDir, startProcess, stopAllProcesses, type ServiceProcess } from '@anchor/testing/process';
import { atLeast, atMost, percentile, report, summary } from './lib/report.js';
import { addVcLoad } from './vct-log/add-vc-load.js';
import { benchCredential, clientLeafHash } from './vct-log/credentials.js';
import { steadyGetLoad } from './vct-log/steady-get-load.js';
import { SthWatch } from './vct-log/sth-watch.js';

const SECTION = 'vct-log';
const MAIN_JS = serviceBin('@anchor/vct-log');
const FLOOR_JS = fileURLToPath(new URL('./vct-log/floor-server.js', import.meta.url));
const CONNECTIONS = 32;
const WARMUP_S = 5;
const SUSTAINED_S = 25;
const SAMPLE_EVERY = 20;
const GROWN_SIZE = 100_000;
const PROOF_RATE = 3_000;
const PROOF_S = 20;

const dir = await makeTempDir('vct-bench-');
const port = await freePort();
const origin = `http://127.0.0.1:${port}`;
const run = Math.random().toString(36).slice(2, 8);

async function startService(): Promise<ServiceProcess> {
  return startProcess(MAIN_JS, {
    args: ['--host-url', `127.0.0.1:${port}`, '--data-dir', dir.path, '--log-level', 'warning'],
    readyUrl: `${origin}/healthcheck`,
    readyStatus: (status) => status === 200,
    readyTimeoutMs: 120_000,
    name: 'vct-log',
  });
}

async function getJson<T>(path: string): Promise<T> {
  const response = await fetch(`${origin}${path}`);
  if (!response.ok) throw new Error(`GET ${path}: ${response.status} ${await response.text()}`);
  return (await response.json()) as T;
}

const treeSize = async (): Promise<number> => (await getJson<{ tree_size: number }>('/main/v1/get-sth')).tree_size;

async function waitForTreeSize(size: number): Promise<void> {
  const deadline = Date.now() + 60_000;
  while ((await treeSize()) < size) {
    if (Date.now() > deadline) throw new Error(`the log did not reach ${size} entries`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

try {
  let service = await startService();
  console.log(`service: ${MAIN_JS} (LMDB in ${dir.path}); load from this process, ${CONNECTIONS} connections`);

  // 1. Sustained add-vc with sampled integration latency.
  const warm = await addVcLoad({ origin, run, firstN: 0, connections: CONNECTIONS, durationS: WARMUP_S });
  const watch = new SthWatch(`${origin}/main/v1/get-sth`, 10);
  const sustained = await addVcLoad({
    origin,
    run,
    firstN: warm.nextN,
    connections: CONNECTIONS,
    durationS: SUSTAINED_S,
    sampleEvery: SAMPLE_EVERY,
  });
  await waitForTreeSize(sustained.nextN);
  await watch.stop();
  if (warm.failures + sustained.failures > 0) console.log(`add-vc failures: ${warm.failures + sustained.failures}`);

  // Where each sampled entry landed (as a client finds it), and when a head first covered that index.
  const size = await treeSize();
  const integrationMs: number[] = [];
  for (const sample of sustained.samples) {
    const hash = await clientLeafHash(benchCredential(run, sample.n), sample.timestamp);
    const { leaf_index: index } = await getJson<{ leaf_index: number }>(
      `/main/v1/get-proof-by-hash?hash=${encodeURIComponent(hash.toString('base64'))}&tree_size=${size}`,
    );
    const coveredAt = watch.coveredAt(index);
    if (coveredAt === undefined) throw new Error(`no observed head covers entry ${index}`);
    integrationMs.push(Math.max(0, coveredAt - sample.answeredAt));
  }
  report(
    SECTION,
    `add-vc sustained (${SUSTAINED_S} s, ~2 KB credentials)`,
    sustained.perSecond,
    'add-vc/s',
    atLeast(1_500),
  );
  report(SECTION, 'add-vc response latency p99', sustained.latencyP99Ms, 'ms');
  report(SECTION, `integration latency p50 (${integrationMs.length} samples)`, percentile(integrationMs, 50), 'ms');
  report(SECTION, 'integration latency p99', percentile(integrationMs, 99), 'ms', atMost(1_500));

  // 2. Grow to 100,000 entries, then proofs at a fixed rate.
  console.log(`growing the log to ${GROWN_SIZE.toLocaleString('en-US')} entries...`);
  let nextN = sustained.nextN;
  const missing = GROWN_SIZE - (await treeSize());
  if (missing > 0) {
    const growth = await addVcLoad({ origin, run, firstN: nextN, connections: CONNECTIONS, amount: missing });
    nextN = growth.nextN;
    report(
      SECTION,
      `add-vc while growing to ${GROWN_SIZE.toLocaleString('en-US')} entries`,
      growth.perSecond,
      'add-vc/s',
    );
  }
  await waitForTreeSize(GROWN_SIZE);
  const grown = await treeSize();
  console.log(`proofs at ${grown.toLocaleString('en-US')} entries...`);

  const hashes: string[] = [];
  for (let page = 0; page < 40; page++) {
    const start = Math.floor(Math.random() * (grown - 50));
    const { entries } = await getJson<{ entries: Array<{ leaf_input: string }> }>(
      `/main/v1/get-entries?start=${start}&end=${start + 49}`,
    );
    for (const entry of entries)
      hashes.push(encodeURIComponent(leafHash(Buffer.from(entry.leaf_input, 'base64')).toString('base64')));
  }
  let pick = 0;
  const paths = (): string =>
    `/main/v1/get-proof-by-hash?hash=${hashes[(pick = (pick + 7919) % hashes.length)]}&tree_size=${grown}`;
  await steadyGetLoad({ origin, paths, ratePerSecond: PROOF_RATE, durationS: 3, connections: 16 });
  const proofs = await steadyGetLoad({ origin, paths, ratePerSecond: PROOF_RATE, durationS: PROOF_S, connections: 16 });
  if (proofs.failures > 0) console.log(`proof failures: ${proofs.failures}`);
  report(
    SECTION,
    `proofs served at ${grown.toLocaleString('en-US')} entries`,
    proofs.rate,
    'proofs/s',
    atLeast(PROOF_RATE),
  );
  report(SECTION, 'get-proof-by-hash latency p50', percentile(proofs.latenciesMs, 50), 'ms');
  report(SECTION, 'get-proof-by-hash latency p99', percentile(proofs.latenciesMs, 99), 'ms', atMost(2));

  // The same load against a bare node:http server: what the machine adds to any answer (no target).
  const floorPort = await freePort();
  const floor = await startProcess(FLOOR_JS, {
    args: [String(floorPort)],
    readyLine: 'listening',
    name: 'floor-server',
  });
  const floorOrigin = `http://127.0.0.1:${floorPort}`;
  const floorLoad = await steadyGetLoad({
    origin: floorOrigin,
    paths,
    ratePerSecond: PROOF_RATE,
    durationS: 10,
    connections: 16,
  });
  report(SECTION, 'same load on a bare node:http server: latency p50', percentile(floorLoad.latenciesMs, 50), 'ms');
  report(SECTION, 'same load on a bare node:http server: latency p99', percentile(floorLoad.latenciesMs, 99), 'ms');
  await floor.stop();

  // 3. Restart on the grown database.
  await service.stop();
  const restartStarted = performance.now();
  service = await startService();
  report(
    SECTION,
    `restart until ready (${grown.toLocaleString('en-US')} entries)`,
    (performance.now() - restartStarted) / 1000,
    's',
  );
  if ((await treeSize()) !== grown) throw new Error('the restarted log lost entries');
  await service.stop();
} finally {
  await stopAllProcesses();
  await dir.remove();
}
summary();
