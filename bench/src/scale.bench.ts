/**
 * Cost as the work grows (`npm run bench -- scale [--max-dids N] [--database-type mongodb] [--log-entries N] [--keep]`).
 * `--max-dids 0 --log-entries N` measures the log alone; `--keep` leaves the grown stores on disk.
 *
 * One node (a process, LMDB by default; `--database-type mongodb` against `--database-url` or a FerretDB of
 * its own) is grown through its public API to `--max-dids` (default 1,000,000) DIDs: creates as fast as it
 * takes them, an update to a tenth of them, and 100 updates to each of five DIDs. At 10k, 100k and 1M DIDs
 * (those up to the maximum), with nothing else running, it measures:
 *   - create p99 at a paced 500/s (open loop, 5,000 creates);
 *   - the node's start-up time on that store (stopped, started again on the same port, until healthy);
 *   - resolution of random DIDs cold (each once after the restart, so none is in the resolution cache: p99
 *     paced at 600/s, throughput over 16 connections) and warm (1,000 DIDs resolved before: p99 at 1,000/s,
 *     throughput), of the five 100-update DIDs (first resolution after the restart, then p99 at 200/s), and by
 *     `versionTime` (p99 at 500/s);
 *   - store bytes on disk per DID and the node's resident memory.
 * Then a fresh node follows the grown one and catches up the whole history (ops/s ingested, time to done; a
 * 1,000-DID sample resolved on both), `anchor export` writes the full export to a file (interrupted a third of
 * the way and resumed with `--resume`), `anchor import` builds an empty mirror from it, and the mirror resolves
 * a 1,000-DID sample exactly as the source does. Last, a vct-log is grown to `--log-entries` (default: the DID
 * maximum): add-vc rate, proof p99 and get-entries p99 on an empty log and at each size.
 *
 * Writes the table as JSON and the curves as SVG (Vega-Lite) to `--out` (default services/node/docs/scale),
 * prints the figures beside their targets, and ends with one JSON line (`sizes`, `catchup_ops_per_s`, `log`,
 * `chart`, ...). Targets: at the largest size, create p99, cold and warm resolution p99 at most 1.5x their
 * values at 10k; catch-up >= 5,000 ops/s; log add-vc >= 90% of the empty log's rate; proof p99 growing at most
 * as log(size).
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { NodeAdminClient } from '@anchor/common/clients';
import { leafHash } from '@anchor/common/merkle';
import { serviceBin } from '@anchor/dev-env';
import {
  freePort,
  makeTempDir,
  startProcess,
  stopAllProcesses,
  waitFor,
  type ServiceProcess,
} from '@anchor/testing/process';
import { startFerretDb, type MongoTestServer } from '@anchor/testing/ferretdb';
import { metricValue, startNodeProcess } from './federation/node-processes.js';
import { ed25519VerifiesPerSecond, jsReferenceMicros, loadAverage, syncedAppendMs } from './lib/machine.js';
import { atLeast, atMost, percentile, report, summary } from './lib/report.js';
import { KEPT_RUN_FILE, rateByTenths, type KeptScaleRun } from './scale/catch-up-rate.js';
import { renderCurvesSvg, type CurvePoint } from './scale/chart.js';
import type { PhaseResult, ScalePhase } from './scale/load.js';
import { addVcLoad } from './vct-log/add-vc-load.js';
import { steadyGetLoad } from './vct-log/steady-get-load.js';

const SECTION = 'scale';
const LOG_JS = serviceBin('@anchor/vct-log');
const LOAD_JS = fileURLToPath(new URL('./scale/load.js', import.meta.url));
const CLI_JS = fileURLToPath(new URL('../../packages/cli/dist/main.js', import.meta.url));
const REPO = fileURLToPath(new URL('../../', import.meta.url));

function option(name: string): string | undefined {
  const at = process.argv.indexOf(`--${name}`);
  return at >= 0 ? process.argv[at + 1] : undefined;
}
const MAX_DIDS = Number(option('max-dids') ?? 1_000_000);
const DATABASE = (option('database-type') ?? 'lmdb') as 'lmdb' | 'mongodb';
const LOG_ENTRIES = Number(option('log-entries') ?? MAX_DIDS);
/** Leaves the run's data (the grown stores, the export) in its temporary directory, for profiling at size. */
const KEEP = process.argv.includes('--keep');
const OUT = option('out') ?? join(REPO, 'services', 'node', 'docs', 'scale');
const SIZES = [...new Set([10_000, 100_000, 1_000_000].filter((size) => size < MAX_DIDS).concat(MAX_DIDS))];
const HEAVY_DIDS = 5;
const HEAVY_UPDATES = 100;
const GROW_CONNECTIONS = 32;
const PACED_CREATES = { rate: 500, count: 5_000 };
const COLD = { rate: 600, count: 3_000 };
const WARM = { rate: 1_000, dids: 1_000, durationS: 5 };
/**
 * The paced rates, fixed for the whole run: the values above, or half of what the node served closed loop at
 * the first size when that is less (on a loaded machine a rate beyond capacity measures only the backlog).
 */
const rates = { create: 0, cold: 0, warm: 0, heavy: 0, versionTime: 0 };
const half = (capacity: number, cap: number): number => Math.max(2, Math.min(cap, Math.floor(capacity / 2)));
const THROUGHPUT_S = 4;
const SAMPLE = 1_000;

const dir = await makeTempDir('scale-bench-');
const didsFile = join(dir.path, 'dids.txt');
writeFileSync(didsFile, '');

interface SizeFigures {
  dids: number;
  create_p99_ms: number;
  resolve_cold_p99_ms: number;
  resolve_warm_p99_ms: number;
  resolve_cold_per_s: number;
  resolve_warm_per_s: number;
  resolve_100_updates_first_ms: number;
  resolve_100_updates_p99_ms: number;
  resolve_version_time_p99_ms: number;
  disk_bytes_per_did: number;
  rss_mb: number;
  rss_anon_mb: number;
  rss_file_mb: number;
  startup_ms: number;
  load_average: number;
}

/** Operations the node accepted from this bench (creates and updates): what a full history holds. */
let accepted = 0;

function runPhase(phase: ScalePhase): Promise<PhaseResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [LOAD_JS], { stdio: ['pipe', 'pipe', 'inherit'] });
    child.stdin.end(JSON.stringify(phase));
    let result: PhaseResult | undefined;
    createInterface({ input: child.stdout }).on('line', (line) => {
      if (line.startsWith('result ')) result = JSON.parse(line.slice(7)) as PhaseResult;
    });
    child.once('error', reject);
    child.once('exit', (code) => {
      if (!result || code !== 0) return reject(new Error(`load phase ${phase.kind} exited with ${code}`));
      if (phase.kind !== 'resolve') accepted += result.ok;
      resolve(result);
    });
  });
}

/** Bytes the files under `path` take on disk (allocated blocks, not apparent sizes). */
function diskBytes(path: string): number {
  const stats = statSync(path);
  if (!stats.isDirectory()) return stats.blocks * 512;
  return readdirSync(path).reduce((sum, name) => sum + diskBytes(join(path, name)), 0);
}

/** Resident memory of `pid` from /proc (`VmRSS`, or its `RssAnon` heap part / `RssFile` mapped-file part: LMDB's pages). */
function rssMb(pid: number, field: 'VmRSS' | 'RssAnon' | 'RssFile' = 'VmRSS'): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? Number.NaN) / 1024;
}

const suffixes = (): string[] => readFileSync(didsFile, 'utf8').split('\n').filter(Boolean);
const didPath = (suffix: string, query = ''): string => `/sidetree/v1/identifiers/did:node:uAAA:${suffix}${query}`;
function writePaths(name: string, paths: readonly string[]): string {
  const file = join(dir.path, `${name}.txt`);
  writeFileSync(file, `${paths.join('\n')}\n`);
  return file;
}
/** `count` distinct picks of `from`, none of `excluded`. */
function distinct(from: readonly string[], count: number, excluded: Set<string>): string[] {
  const picked: string[] = [];
  const seen = new Set(excluded);
  for (let tries = 0; picked.length < count && tries < count * 20; tries++) {
    const candidate = from[Math.floor(Math.random() * from.length)] as string;
    if (seen.has(candidate)) continue;
    seen.add(candidate);
    picked.push(candidate);
  }
  return picked;
}

/** A node process on a fixed port (so a restart keeps its origin) with its data under `dir/<name>`. */
async function startNode(name: string, port: number, extra: readonly string[]): Promise<ServiceProcess> {
  return (await startNodeProcess(name, dir.path, extra, { port, readyTimeoutMs: 600_000 })).process;
}

const pending = async (url: string): Promise<number> => metricValue(url, 'node_pending_operations');
const drained = (url: string) =>
  waitFor(async () => (await pending(url)) === 0, {
    timeoutMs: 1_800_000,
    intervalMs: 500,
    description: 'every accepted operation to be anchored',
  });

/** The resolution result as text with a node's own address written as the source's (the https-hinted id). */
async function resolutionText(url: string, suffix: string, sourceUrl: string): Promise<string> {
  const response = await fetch(`${url}${didPath(suffix)}`);
  const text = `${response.status} ${await response.text()}`;
  const here = encodeURIComponent(new URL(url).host);
  return text.replaceAll(here, encodeURIComponent(new URL(sourceUrl).host));
}

async function sameResolutions(url: string, sourceUrl: string, sample: readonly string[]): Promise<number> {
  let same = 0;
  for (const suffix of sample)
    if ((await resolutionText(url, suffix, sourceUrl)) === (await resolutionText(sourceUrl, suffix, sourceUrl))) same++;
  return same;
}

const figures: SizeFigures[] = [];
const curve: CurvePoint[] = [];
const result: Record<string, unknown> = { database: DATABASE, max_dids: MAX_DIDS };
let mongo: MongoTestServer | undefined;
/** Written beside kept data (`--keep`): how `npm run bench -- catchup --kept <dir>` starts this source again. */
let keptRun: KeptScaleRun | undefined;

try {
  const machine = {
    ed25519_verifies_per_s: ed25519VerifiesPerSecond(),
    fsync_append_p99_ms: syncedAppendMs(dir.path).p99,
    js_reference_us: jsReferenceMicros(),
    load_average_start: loadAverage(),
    cores: 2,
  };
  result.machine = machine;
  report(SECTION, 'machine: Ed25519 verifies/s on one core, before the run', machine.ed25519_verifies_per_s, '/s');
  report(SECTION, 'machine: 4 KB append + fdatasync, p99', machine.fsync_append_p99_ms, 'ms');
  report(SECTION, 'machine: JS reference workload, CPU per op', machine.js_reference_us, 'µs');
  report(SECTION, 'machine: load average (1 min) as the run started', machine.load_average_start, '');

  // --max-dids 0: the log alone.
  if (MAX_DIDS > 0) {
    let databaseArgs: string[] = [];
    if (DATABASE === 'mongodb') {
      const url = option('database-url') ?? (mongo = await startFerretDb({ readyTimeoutMs: 120_000 })).url;
      databaseArgs = ['--database-type', 'mongodb', '--database-url', url];
      console.log(`database: ${mongo?.label ?? url}`);
    }
    const sourcePort = await freePort();
    const sourceUrl = `http://127.0.0.1:${sourcePort}`;
    const sourceArgs = [...databaseArgs, '--database-prefix', 'source', '--max-operations-per-batch', '10000'];
    let source = await startNode('source', sourcePort, sourceArgs);
    console.log(`source node ${sourceUrl} (${DATABASE}); sizes ${SIZES.join(', ')}`);

    // The five DIDs that get 100 updates each: created first, their updates posted in the background (each
    // DID's in order; the node anchors one operation of a DID per batch, so they land over ~100 batches).
    await runPhase({ kind: 'grow', origin: sourceUrl, count: HEAVY_DIDS, connections: 1, file: didsFile });
    const heavy = suffixes().slice(0, HEAVY_DIDS);
    const heavyUpdates = runPhase({ kind: 'chain', origin: sourceUrl, suffixes: heavy, steps: HEAVY_UPDATES });
    const updated: Array<{ suffix: string; before: string }> = [];
    let grown = HEAVY_DIDS;

    for (const size of SIZES) {
      // Grow: creates, then an update of a tenth of the new DIDs (the paced creates of the measurement count too).
      // The paced creates of the measurement count too (their number is known once the first growth fixed the rate).
      const toCreate = size - grown - (rates.create > 0 ? Math.min(PACED_CREATES.count, rates.create * 10) : 0);
      if (toCreate > 0) {
        const started = performance.now();
        const before = suffixes().length;
        const growth = await runPhase({
          kind: 'grow',
          origin: sourceUrl,
          count: toCreate,
          connections: GROW_CONNECTIONS,
          file: didsFile,
        });
        if (growth.failures > 0) console.log(`growth: ${growth.failures} creates failed (${growth.firstFailure})`);
        report(SECTION, `  growing to ${size.toLocaleString('en-US')}: creates accepted`, growth.rate, 'ops/s');
        if (rates.create === 0) rates.create = half(growth.rate, PACED_CREATES.rate);
        await drained(sourceUrl);
        const fresh = suffixes().slice(before);
        const toUpdate = fresh.filter((_, i) => i % 10 === 5);
        const beforeUpdates = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
        await new Promise((resolve) => setTimeout(resolve, 1_100));
        const updates = await runPhase({
          kind: 'update',
          origin: sourceUrl,
          suffixes: toUpdate,
          step: 1,
          connections: GROW_CONNECTIONS,
        });
        if (updates.failures > 0) console.log(`growth: ${updates.failures} updates failed (${updates.firstFailure})`);
        for (const suffix of toUpdate) updated.push({ suffix, before: beforeUpdates });
        report(SECTION, `  growing to ${size.toLocaleString('en-US')}: updates accepted`, updates.rate, 'ops/s');
        console.log(`grew to ${suffixes().length} DIDs in ${((performance.now() - started) / 1000).toFixed(0)} s`);
      }
      if (size === SIZES[0]) {
        const chain = await heavyUpdates;
        if (chain.failures > 0) console.log(`heavy DIDs: ${chain.failures} updates failed (${chain.firstFailure})`);
      }
      await drained(sourceUrl);

      // 1. Creates at a fixed pace (10 s of them).
      rates.create ||= PACED_CREATES.rate;
      const paced = await runPhase({
        kind: 'paced-create',
        origin: sourceUrl,
        count: Math.min(PACED_CREATES.count, rates.create * 10),
        rate: rates.create,
        connections: 32,
        file: didsFile,
      });
      await drained(sourceUrl);
      const all = suffixes();
      grown = all.length;

      // 2. Start-up on this store.
      const loadAtStart = loadAverage();
      await source.stop(120_000);
      const restartAt = performance.now();
      source = await startNode('source', sourcePort, sourceArgs);
      const startupMs = performance.now() - restartAt;

      // 3. Cold: nothing is in the resolution cache after the restart; each DID is asked once.
      const heavyFirst: number[] = [];
      for (const suffix of heavy) {
        const at = performance.now();
        const response = await fetch(`${sourceUrl}${didPath(suffix)}`);
        await response.text();
        heavyFirst.push(performance.now() - at);
      }
      const heavySet = new Set(heavy);
      // Throughput first (over DIDs the paced phase will not ask), which also fixes the paced rate at the first size.
      const coldPool = Math.min(Math.floor((all.length - HEAVY_DIDS) / 2), 20_000);
      const coldMore = distinct(all, coldPool, heavySet);
      const coldClosed = await runPhase({
        kind: 'resolve',
        origin: sourceUrl,
        pathsFile: writePaths(
          'cold-throughput',
          coldMore.map((suffix) => didPath(suffix)),
        ),
        durationS: THROUGHPUT_S,
        connections: 16,
      });
      if (rates.cold === 0) {
        rates.cold = half(coldClosed.rate, COLD.rate);
        rates.versionTime = half(coldClosed.rate, 500);
      }
      const cold = distinct(all, Math.min(COLD.count, rates.cold * 5), new Set([...coldMore, ...heavy]));
      const coldPaced = await runPhase({
        kind: 'resolve',
        origin: sourceUrl,
        pathsFile: writePaths(
          'cold',
          cold.map((suffix) => didPath(suffix)),
        ),
        rate: rates.cold,
        durationS: cold.length / rates.cold,
        connections: 16,
      });

      // 4. Warm: DIDs resolved once already.
      const warmPaths = writePaths(
        'warm',
        cold.slice(0, WARM.dids).map((suffix) => didPath(suffix)),
      );
      const warmClosed = await runPhase({
        kind: 'resolve',
        origin: sourceUrl,
        pathsFile: warmPaths,
        random: true,
        durationS: THROUGHPUT_S,
        connections: 16,
      });
      if (rates.warm === 0) {
        rates.warm = half(warmClosed.rate, WARM.rate);
        rates.heavy = half(warmClosed.rate / 2, 200);
      }
      const warmPaced = await runPhase({
        kind: 'resolve',
        origin: sourceUrl,
        pathsFile: warmPaths,
        random: true,
        rate: rates.warm,
        durationS: WARM.durationS,
        connections: 16,
      });
      const heavyPaced = await runPhase({
        kind: 'resolve',
        origin: sourceUrl,
        pathsFile: writePaths(
          'heavy',
          heavy.map((suffix) => didPath(suffix)),
        ),
        random: true,
        rate: rates.heavy,
        durationS: 5,
        connections: 8,
      });
      const versioned = distinct(
        updated.map((entry, index) => String(index)),
        Math.min(2_000, updated.length),
        new Set(),
      ).map((index) => updated[Number(index)]!);
      const versionPaced = await runPhase({
        kind: 'resolve',
        origin: sourceUrl,
        pathsFile: writePaths(
          'version-time',
          versioned.map(({ suffix, before }) => didPath(suffix, `?versionTime=${before}`)),
        ),
        rate: rates.versionTime,
        durationS: Math.min(4, versioned.length / rates.versionTime),
        connections: 16,
      });
      const failures = [paced, coldPaced, coldClosed, warmPaced, warmClosed, heavyPaced, versionPaced].reduce(
        (sum, phase) => sum + phase.failures,
        0,
      );
      if (failures > 0) console.log(`at ${grown} DIDs: ${failures} requests failed`);

      const row: SizeFigures = {
        dids: grown,
        create_p99_ms: paced.p99,
        resolve_cold_p99_ms: coldPaced.p99,
        resolve_warm_p99_ms: warmPaced.p99,
        resolve_cold_per_s: coldClosed.rate,
        resolve_warm_per_s: warmClosed.rate,
        resolve_100_updates_first_ms: Math.max(...heavyFirst),
        resolve_100_updates_p99_ms: heavyPaced.p99,
        resolve_version_time_p99_ms: versionPaced.p99,
        disk_bytes_per_did: DATABASE === 'lmdb' ? diskBytes(join(dir.path, 'source')) / grown : Number.NaN,
        rss_mb: rssMb(source.pid),
        rss_anon_mb: rssMb(source.pid, 'RssAnon'),
        rss_file_mb: rssMb(source.pid, 'RssFile'),
        startup_ms: startupMs,
        load_average: loadAtStart,
      };
      figures.push(row);
      const at = grown.toLocaleString('en-US');
      report(SECTION, `at ${at} DIDs: create p99 (${rates.create}/s paced)`, row.create_p99_ms, 'ms');
      report(SECTION, `at ${at} DIDs: resolve cold p99 (${rates.cold}/s paced)`, row.resolve_cold_p99_ms, 'ms');
      report(SECTION, `at ${at} DIDs: resolve cold throughput (16 conns)`, row.resolve_cold_per_s, 'req/s');
      report(SECTION, `at ${at} DIDs: resolve warm p99 (${rates.warm}/s paced)`, row.resolve_warm_p99_ms, 'ms');
      report(SECTION, `at ${at} DIDs: resolve warm throughput (16 conns)`, row.resolve_warm_per_s, 'req/s');
      report(SECTION, `at ${at} DIDs: 100-update DID, first resolution`, row.resolve_100_updates_first_ms, 'ms');
      report(SECTION, `at ${at} DIDs: 100-update DID, p99 (${rates.heavy}/s)`, row.resolve_100_updates_p99_ms, 'ms');
      report(
        SECTION,
        `at ${at} DIDs: by versionTime, p99 (${rates.versionTime}/s)`,
        row.resolve_version_time_p99_ms,
        'ms',
      );
      report(SECTION, `at ${at} DIDs: store bytes on disk per DID`, row.disk_bytes_per_did, 'B');
      report(SECTION, `at ${at} DIDs: node resident memory`, row.rss_mb, 'MB');
      report(SECTION, `at ${at} DIDs: of it anonymous (heap, buffers)`, row.rss_anon_mb, 'MB');
      report(SECTION, `at ${at} DIDs: of it mapped files (LMDB pages)`, row.rss_file_mb, 'MB');
      report(SECTION, `at ${at} DIDs: start-up on this store`, row.startup_ms, 'ms');
      report(SECTION, `at ${at} DIDs: load average (1 min) as measuring began`, row.load_average, '');
      for (const [metric, value] of [
        ['create p99 ms', row.create_p99_ms],
        ['resolve cold p99 ms', row.resolve_cold_p99_ms],
        ['resolve warm p99 ms', row.resolve_warm_p99_ms],
        ['resolve cold req/s', row.resolve_cold_per_s],
        ['resolve warm req/s', row.resolve_warm_per_s],
        ['100-update DID p99 ms', row.resolve_100_updates_p99_ms],
        ['versionTime p99 ms', row.resolve_version_time_p99_ms],
        ['disk bytes per DID', row.disk_bytes_per_did],
        ['node RSS MB', row.rss_mb],
        ['start-up ms', row.startup_ms],
      ] as const)
        if (Number.isFinite(value)) curve.push({ metric, size: grown, value, of: 'DIDs' });
    }
    result.sizes = figures;
    result.paced_rates = { ...rates };
    const first = figures[0]!;
    const last = figures.at(-1)!;
    if (figures.length > 1) {
      const ratio = (key: keyof SizeFigures) => (last[key] as number) / (first[key] as number);
      const of = `${last.dids.toLocaleString('en-US')} / ${first.dids.toLocaleString('en-US')} DIDs`;
      result.ratios = {
        create_p99: ratio('create_p99_ms'),
        resolve_cold_p99: ratio('resolve_cold_p99_ms'),
        resolve_warm_p99: ratio('resolve_warm_p99_ms'),
      };
      report(SECTION, `create p99, ${of}`, ratio('create_p99_ms'), 'x', atMost(1.5));
      report(SECTION, `resolve cold p99, ${of}`, ratio('resolve_cold_p99_ms'), 'x', atMost(1.5));
      report(SECTION, `resolve warm p99, ${of}`, ratio('resolve_warm_p99_ms'), 'x', atMost(1.5));
    }

    // Everything anchored, everything the source holds.
    // (The node's counters start again at each restart: the bench counts what was accepted.)
    const sourceOperations = accepted;
    if (DATABASE === 'lmdb') keptRun = { sourcePort, sourceArgs, operations: sourceOperations };
    const sample = distinct(suffixes(), Math.min(SAMPLE, grown), new Set());
    result.operations = sourceOperations;

    // 5. A new node follows the grown one and catches up the whole history.
    {
      const followerPort = await freePort();
      const followerUrl = `http://127.0.0.1:${followerPort}`;
      await startNode('follower', followerPort, [
        ...databaseArgs,
        '--database-prefix',
        'follower',
        '--sync-interval',
        '1s',
        '--sync-min-activity-age',
        '0s',
      ]);
      const follower = new NodeAdminClient({ url: followerUrl });
      const sourceId = await new NodeAdminClient({ url: sourceUrl }).serviceId();
      const loadAtStart = loadAverage();
      const started = performance.now();
      await follower.follow(sourceId);
      await follower.waitUntilIn('following', sourceId, 60_000);
      // The applied count over time: whether the rate holds as the follower's store grows.
      const progress: Array<{ s: number; applied: number }> = [];
      await waitFor(
        async () => {
          const applied = await metricValue(followerUrl, 'node_observer_operations_applied_total{origin="remote"}');
          progress.push({ s: (performance.now() - started) / 1000, applied });
          return applied >= sourceOperations;
        },
        { timeoutMs: 4 * 3_600_000, intervalMs: 250, description: 'the follower to catch up' },
      );
      const seconds = (performance.now() - started) / 1000;
      result.catchup_tenths_ops_per_s = rateByTenths(progress, sourceOperations);
      const same = await sameResolutions(followerUrl, sourceUrl, sample);
      result.catchup_ops_per_s = sourceOperations / seconds;
      result.catchup_s = seconds;
      result.catchup_sample_same = same;
      report(
        SECTION,
        `catch-up of a new follower: ${sourceOperations.toLocaleString('en-US')} operations, verified`,
        sourceOperations / seconds,
        'ops/s',
        atLeast(5_000),
      );
      report(SECTION, '  time to done', seconds, 's');
      const tenths = result.catchup_tenths_ops_per_s as number[];
      report(SECTION, '  rate over the first tenth of the history', tenths[0] ?? 0, 'ops/s');
      report(SECTION, '  rate over the last tenth of the history', tenths[tenths.length - 1] ?? 0, 'ops/s');
      report(SECTION, `  sampled DIDs resolving as on the source`, same, 'DIDs', atLeast(sample.length));
      report(SECTION, '  load average (1 min) as it started / ended', loadAtStart, '');
      report(SECTION, '  load average (1 min) as it ended', loadAverage(), '');
      await follower.close?.();
    }

    // 6. The export, interrupted and resumed, and a mirror built from it.
    {
      const file = join(dir.path, 'export.jsonl');
      const cli = (...args: string[]) =>
        spawnSync(process.execPath, [CLI_JS, ...args], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
      const started = performance.now();
      // Interrupted a third of the way (by the file's expected size, from a first page), then resumed.
      const interrupted = spawn(process.execPath, [CLI_JS, 'export', '-n', sourceUrl, '--file', file], {
        stdio: 'ignore',
      });
      await waitFor(
        () => {
          try {
            return statSync(file).size > 0 && readFileSync(file, 'utf8').split('\n').length > grown / 3_000;
          } catch {
            return false;
          }
        },
        { timeoutMs: 3_600_000, intervalMs: 200, description: 'a third of the export' },
      ).catch(() => undefined);
      interrupted.kill('SIGKILL');
      await new Promise((resolve) => interrupted.once('exit', resolve));
      const resumed = cli('export', '-n', sourceUrl, '--file', file, '--resume', '--json');
      if (resumed.status !== 0) throw new Error(`anchor export --resume failed: ${resumed.stderr}`);
      const exportSeconds = (performance.now() - started) / 1000;
      const exported = JSON.parse(resumed.stdout) as { operations: number; pages: number };
      const bytes = statSync(file).size;
      result.export = {
        operations: exported.operations,
        pages: exported.pages,
        bytes,
        seconds: exportSeconds,
        resumed_note: resumed.stderr.split('\n').find((line) => line.startsWith('resuming')) ?? '',
      };
      report(
        SECTION,
        `export (interrupted, resumed): operations in the file`,
        exported.operations,
        'ops',
        atLeast(sourceOperations),
      );
      report(SECTION, '  export rate', exported.operations / exportSeconds, 'ops/s');
      report(SECTION, '  export file size per operation', bytes / exported.operations, 'B');

      const mirrorPort = await freePort();
      const mirrorUrl = `http://127.0.0.1:${mirrorPort}`;
      await startNode('mirror', mirrorPort, [...databaseArgs, '--database-prefix', 'mirror']);
      const importStarted = performance.now();
      const imported = cli('import', '-n', mirrorUrl, '--file', file, '--json');
      if (imported.status !== 0) throw new Error(`anchor import failed: ${imported.stderr}`);
      const importSeconds = (performance.now() - importStarted) / 1000;
      const totals = JSON.parse(imported.stdout) as { operations: number };
      const same = await sameResolutions(mirrorUrl, sourceUrl, sample);
      result.mirror = {
        operations: totals.operations,
        seconds: importSeconds,
        sample_same: same,
        sample: sample.length,
      };
      report(SECTION, 'mirror import from the export: verified', totals.operations / importSeconds, 'ops/s');
      report(SECTION, `  sampled DIDs resolving exactly as on the source`, same, 'DIDs', atLeast(sample.length));
    }
    await stopAllProcesses();
  }

  // 7. The log.
  const logRows: Array<{ entries: number; add_per_s: number; proof_p99_ms: number; get_entries_p99_ms: number }> = [];
  if (LOG_ENTRIES > 0) {
    const port = await freePort();
    const origin = `http://127.0.0.1:${port}`;
    await startProcess(LOG_JS, {
      name: 'vct-log',
      args: ['--host-url', `127.0.0.1:${port}`, '--data-dir', join(dir.path, 'vct'), '--log-level', 'warning'],
      readyUrl: `${origin}/healthcheck`,
      readyStatus: (status) => status === 200,
      readyTimeoutMs: 120_000,
    });
    const run = Math.random().toString(36).slice(2, 8);
    const treeSize = async (): Promise<number> =>
      ((await (await fetch(`${origin}/main/v1/get-sth`)).json()) as { tree_size: number }).tree_size;
    const settled = (size: number) =>
      waitFor(async () => (await treeSize()) >= size, {
        timeoutMs: 600_000,
        intervalMs: 100,
        description: `${size} entries`,
      });
    let next = 0;
    const logRates = { proof: 0, entries: 0 };
    result.log_paced_rates = logRates;
    for (const size of [0, ...[10_000, 100_000, 1_000_000].filter((s) => s < LOG_ENTRIES), LOG_ENTRIES]) {
      const missing = size - next;
      if (missing > 0) {
        const growth = await addVcLoad({ origin, run, firstN: next, connections: 32, amount: missing });
        next = growth.nextN;
        await settled(next);
      }
      const entries = await treeSize();
      const add = await addVcLoad({ origin, run, firstN: next, connections: 32, durationS: 10 });
      next = add.nextN;
      await settled(next);
      const grownTo = await treeSize();
      const hashes: string[] = [];
      for (let page = 0; page < 20; page++) {
        const start = Math.floor(Math.random() * (grownTo - 50));
        const { entries: got } = (await (
          await fetch(`${origin}/main/v1/get-entries?start=${start}&end=${start + 49}`)
        ).json()) as { entries: Array<{ leaf_input: string }> };
        for (const entry of got)
          hashes.push(encodeURIComponent(leafHash(Buffer.from(entry.leaf_input, 'base64')).toString('base64')));
      }
      let pick = 0;
      const proofPath = () =>
        `/main/v1/get-proof-by-hash?hash=${hashes[(pick = (pick + 7919) % hashes.length)]}&tree_size=${grownTo}`;
      const rangePath = () => {
        const start = Math.floor(Math.random() * Math.max(1, grownTo - 100));
        return `/main/v1/get-entries?start=${start}&end=${Math.min(grownTo - 1, start + 99)}`;
      };
      // The paced rates, fixed at the first size: 1,000 proofs/s and 200 get-entries/s, or half of what the
      // log served when offered twice that, if less.
      if (logRates.proof === 0) {
        // What was served per second of wall time (the load's own rate counts over the scheduled time only).
        const probe = async (paths: () => string, rate: number): Promise<number> => {
          const started = performance.now();
          const served = await steadyGetLoad({ origin, paths, ratePerSecond: rate, durationS: 2, connections: 16 });
          return served.latenciesMs.length / ((performance.now() - started) / 1000);
        };
        logRates.proof = half(await probe(proofPath, 2_000), 1_000);
        logRates.entries = half(await probe(rangePath, 400), 200);
      }
      const proofs = await steadyGetLoad({
        origin,
        paths: proofPath,
        ratePerSecond: logRates.proof,
        durationS: 5,
        connections: 16,
      });
      const ranges = await steadyGetLoad({
        origin,
        paths: rangePath,
        ratePerSecond: logRates.entries,
        durationS: 5,
        connections: 16,
      });
      const row = {
        entries: Math.max(entries, 1),
        add_per_s: add.perSecond,
        proof_p99_ms: percentile(proofs.latenciesMs, 99),
        get_entries_p99_ms: percentile(ranges.latenciesMs, 99),
      };
      logRows.push(row);
      const at = entries.toLocaleString('en-US');
      report(SECTION, `log at ${at} entries: add-vc (32 conns, 10 s)`, row.add_per_s, 'add-vc/s');
      report(SECTION, `log at ${at} entries: get-proof-by-hash p99 (${logRates.proof}/s)`, row.proof_p99_ms, 'ms');
      report(
        SECTION,
        `log at ${at} entries: get-entries (100) p99 (${logRates.entries}/s)`,
        row.get_entries_p99_ms,
        'ms',
      );
      if (entries > 0) {
        curve.push({ metric: 'log add-vc/s', size: entries, value: row.add_per_s, of: 'log entries' });
        curve.push({ metric: 'log proof p99 ms', size: entries, value: row.proof_p99_ms, of: 'log entries' });
        curve.push({
          metric: 'log get-entries p99 ms',
          size: entries,
          value: row.get_entries_p99_ms,
          of: 'log entries',
        });
      }
    }
    const empty = logRows[0]!;
    const full = logRows.at(-1)!;
    report(
      SECTION,
      `log add-vc at ${full.entries.toLocaleString('en-US')} / empty`,
      full.add_per_s / empty.add_per_s,
      'x',
      atLeast(0.9),
    );
    const sized = logRows.filter((row) => row.entries >= 10_000);
    if (sized.length > 1) {
      const growth = sized.at(-1)!.proof_p99_ms / sized[0]!.proof_p99_ms;
      const bound = Math.log2(sized.at(-1)!.entries) / Math.log2(sized[0]!.entries);
      report(
        SECTION,
        `log proof p99 growth, ${sized.at(-1)!.entries.toLocaleString('en-US')} / ${sized[0]!.entries.toLocaleString('en-US')} entries`,
        growth,
        'x',
        atMost(bound),
      );
    }
  }
  result.log = logRows;
  result.load_average_end = loadAverage();

  mkdirSync(OUT, { recursive: true });
  const base = join(OUT, MAX_DIDS > 0 ? `scale-${DATABASE}-${MAX_DIDS}` : `scale-log-${LOG_ENTRIES}`);
  writeFileSync(`${base}.json`, `${JSON.stringify(result, null, 2)}\n`);
  const svg = await renderCurvesSvg(
    curve,
    `did:node costs as the data grows (${DATABASE}, 2 cores, load average ${machine.load_average_start.toFixed(1)} at the start)`,
  );
  writeFileSync(`${base}.svg`, svg);
  result.chart = `${base}.svg`;
} finally {
  await stopAllProcesses();
  await mongo?.stop();
  if (KEEP) {
    dir.keep();
    if (keptRun) writeFileSync(join(dir.path, KEPT_RUN_FILE), `${JSON.stringify(keptRun)}\n`);
    console.log(`data kept in ${dir.path}`);
  } else await dir.remove();
}
summary();
console.log(JSON.stringify(result));
