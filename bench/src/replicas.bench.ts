/**
 * One node identity as one and as three replicas (`npm run bench -- replicas [--creates N] [--lease 15s] [--kills 2]`):
 * processes on one FerretDB and one RabbitMQ namespace behind haproxy (`@anchor/testing/replicas`), the
 * issue's operator setup. For each size: creates/s through the balancer and CPU per create (every replica's
 * user + system time over the run, from /proc), then how long until every acknowledged create is published.
 * With three, further runs (`--kills`, default 2) each kill the batch-writer lease holder (SIGKILL) a third of
 * the way in: how long until a survivor holds the lease, and until every acknowledged create is published; the
 * killed replica is started again before the next. Each DID's create must be
 * published exactly once (no DID in two anchors, no anchor under two transaction numbers).
 * The last line is one JSON object (see `result` below); its `lost` counts acknowledged creates not published
 * by the deadline (PUBLISH_DEADLINE_MS after the last ack). `npm test` never runs this.
 *
 * Whether a create is published is read from the shared database, the records resolution reads (a DID's
 * latest anchor, under its bare suffix in the `operation` store, written with its published operation), by
 * `_id`; then a sample is resolved through the balancer. Polling resolution itself was the run's heaviest
 * load: on FerretDB a resolution reads a DID's operations by key prefix, which FerretDB's SQLite backend
 * cannot plan (it plans only `{_id: <key>}`), so each read two whole collections (0.5-5 s at load 15), 8 at a
 * time, over and over, and the publishing starved behind the bench's own reads (node README, replicas).
 *
 * `--service vct-log` runs the same for the vct-log instead (`./vct-log/replicas.ts`: add-vc, the sequencer
 * lease, `--entries N`, `--lease` default the log's 10s), with its own last JSON line.
 */
import { randomUUID } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseDuration } from '@anchor/common/config';
import { createStoreProvider, StoreLease } from '@anchor/common/storage';
import { checkResolution, createAll, published, publishedTwice, TestDid } from '@anchor/node/testing';
import { AMQP_URL, amqpUnavailable, deleteQueues, topicQueueNames } from '@anchor/testing/amqp-broker';
import { stopAllProcesses } from '@anchor/testing/process';
import { haproxyBinary, startNodeReplicas, type Replica, type ReplicaSet } from '@anchor/testing/replicas';
import { loadAverage } from './lib/machine.js';
import { cpuSampler } from './lib/replica-cpu.js';
import { vctLogReplicasBench } from './vct-log/replicas.js';

function option(name: string): string | undefined {
  const at = process.argv.indexOf(`--${name}`);
  return at >= 0 ? process.argv[at + 1] : undefined;
}
const CREATES = Number(option('creates') ?? 600);
const LEASE = option('lease') ?? '15s';
const LEASE_MS = parseDuration(LEASE);
/** Kill runs after the 3-replica run, each from three replicas again. */
const KILLS = Number(option('kills') ?? 2);
/** A directory: every replica's output is written there (the writer's and the observer's steps at debug), to split a kill round's time. */
const LOGS = option('logs');
const CONNECTIONS = 16;
const PUBLISH_DEADLINE_MS = 180_000;
const TOPICS = [
  'node.anchor',
  'node.accepted',
  'node.activity.outbox',
  'node.activity.inbox',
  'node.activity.delivery',
];

interface Run {
  acknowledged: TestDid[];
  createsPerS: number;
  cpuMsPerCreate: number;
  publishedMs: number | undefined;
  /** Date.now() when every acknowledged create was seen published. */
  allPublishedAt: number | undefined;
  lost: number;
  publishedTwice: number;
  resolveMismatches: number;
}

if (option('service') === 'vct-log') {
  const { reason } = await haproxyBinary();
  if (reason) console.log(`replicas bench (vct-log) skipped: ${reason}`);
  else
    await vctLogReplicasBench({
      entries: Number(option('entries') ?? 2000),
      lease: option('lease') ?? '10s',
      kills: KILLS,
      logs: LOGS,
    });
  process.exit(0);
}

const unavailable = (await amqpUnavailable()) ?? (await haproxyBinary()).reason;
if (unavailable) {
  console.log(`replicas bench skipped: ${unavailable}`);
  process.exit(0);
}

async function leaseHolder(set: ReplicaSet): Promise<Replica | undefined> {
  return (await leaseState(set))?.replica;
}

/** The replica holding the batch-writer lease now, and when its epoch was claimed (from the claim link). */
async function leaseState(set: ReplicaSet): Promise<{ replica: Replica | undefined; claimedAt: number } | undefined> {
  const storage = await createStoreProvider({ type: 'mongodb', url: set.databaseUrl, sweepIntervalMs: 0 });
  try {
    const lease = await StoreLease.open(storage, { name: 'batch-writer', holder: 'reader', durationMs: 0 });
    const tip = await lease.tip();
    if (!tip || tip.expiresAt < Date.now()) return undefined;
    const claim = await lease.claimOf(tip.epoch);
    const replica = set.replicas.find((each) => tip.holder.includes(`|127.0.0.1:${each.port}|`));
    // Every link's expiry is its writer's clock at the write plus the lease: the claim's, less the lease, is when it was taken.
    return { replica, claimedAt: claim ? claim.expiresAt - LEASE_MS : Date.now() };
  } finally {
    await storage.close();
  }
}

async function measure(set: ReplicaSet, label: string, onDone?: (done: number) => Promise<void>): Promise<Run> {
  const dids = Array.from({ length: CREATES }, () => new TestDid(set.url));
  const cpu = cpuSampler(set);
  const started = performance.now();
  const acknowledged = await createAll(set.url, dids, CONNECTIONS, onDone);
  const seconds = (performance.now() - started) / 1000;
  // A killed replica's last 200 ms are not counted: then the figure is a floor.
  const cpuMs = cpu.stop();
  const acked = performance.now();
  const { found, unpublished, doneAt } = await published(
    set.databaseUrl,
    acknowledged,
    Date.now() + PUBLISH_DEADLINE_MS,
  );
  const allPublishedAt = unpublished === 0 ? doneAt.date : undefined;
  const publishedMs = unpublished === 0 ? doneAt.performance - acked : undefined;
  const { resolved, mismatches } =
    unpublished === 0 ? await checkResolution(set.url, acknowledged, found) : { resolved: 0, mismatches: [] };
  if (mismatches.length > 0) console.log(`${label}: resolution disagrees with the store: ${mismatches.join('; ')}`);
  const run: Run = {
    acknowledged,
    createsPerS: acknowledged.length / seconds,
    cpuMsPerCreate: cpuMs / Math.max(1, acknowledged.length),
    publishedMs,
    allPublishedAt,
    lost: unpublished,
    publishedTwice: publishedTwice(found),
    resolveMismatches: mismatches.length,
  };
  console.log(
    `${label}: ${acknowledged.length}/${CREATES} acknowledged, ${run.createsPerS.toFixed(1)} creates/s, ` +
      `${run.cpuMsPerCreate.toFixed(2)} ms CPU per create, all published ${run.publishedMs?.toFixed(0) ?? `never (${unpublished} not)`} ms after the last ack, ` +
      `published twice ${run.publishedTwice}, ${resolved} resolved alike (load average ${loadAverage().toFixed(2)})`,
  );
  return run;
}

let saved = 0;
/** Writes each running or exited replica's captured output under `--logs` (before a restart replaces it). */
function saveLogs(set: ReplicaSet, tag: string, only?: Replica): void {
  if (!LOGS) return;
  mkdirSync(LOGS, { recursive: true });
  for (const replica of only ? [only] : set.replicas) {
    let output: string;
    try {
      output = replica.process.output();
    } catch {
      continue;
    }
    writeFileSync(join(LOGS, `${String(++saved).padStart(2, '0')}-${tag}-r${replica.index}.log`), output);
  }
}

async function withSet<T>(count: number, body: (set: ReplicaSet) => Promise<T>): Promise<T> {
  const namespace = `bench-replicas-${randomUUID().slice(0, 8)}`;
  const set = await startNodeReplicas({
    count,
    amqpUrl: AMQP_URL,
    namespace,
    extraArgs: [
      '--batch-writer-lease',
      LEASE,
      ...(LOGS ? ['--log-level', 'anchor-writer=debug:observer=debug:warning', '--log-format', 'json'] : []),
    ],
    readyTimeoutMs: 120_000,
  });
  try {
    return await body(set);
  } finally {
    saveLogs(set, `${count}`);
    await set.stop();
    await deleteQueues(topicQueueNames(TOPICS.map((topic) => `${namespace}.${topic}`)));
  }
}

interface Kill {
  run: Run;
  takeoverMs: number | undefined;
  allPublishedAfterKillMs: number | undefined;
}

/** A run during which the lease holder is killed (SIGKILL) a third of the way in; the takeover is watched from the store. */
async function killRun(set: ReplicaSet, label: string): Promise<Kill> {
  if (!(await leaseHolder(set))) throw new Error('no batch-writer lease holder before the kill run');
  // The holder is read at the kill, not before the run: the lease may have changed hands in between.
  let holder: Replica | undefined;
  let killedAt = 0;
  let takeoverMs: number | undefined;
  const watch = (async () => {
    while (killedAt === 0) await new Promise((resolve) => setTimeout(resolve, 20));
    while (holder && takeoverMs === undefined && Date.now() - killedAt < PUBLISH_DEADLINE_MS) {
      const next = await leaseState(set).catch(() => undefined);
      // Timed from the claim itself, not from when this poll saw it.
      if (next?.replica && next.replica !== holder) takeoverMs = next.claimedAt - killedAt;
      else await new Promise((resolve) => setTimeout(resolve, 100));
    }
  })();
  const run = await measure(set, label, async (done) => {
    if (done === Math.floor(CREATES / 3)) {
      holder = await leaseHolder(set);
      if (!holder) throw new Error('no batch-writer lease holder at the kill');
      killedAt = Date.now();
      console.log(`${label}: killing r${holder.index} at ${new Date(killedAt).toISOString()}`);
      await holder.kill();
    }
  });
  await watch;
  const allPublishedAfterKillMs = run.allPublishedAt === undefined ? undefined : run.allPublishedAt - killedAt;
  return { run, takeoverMs, allPublishedAfterKillMs };
}

console.log(
  `replicas bench: ${CREATES} creates per run, ${CONNECTIONS} connections, lease ${LEASE}; load average ${loadAverage().toFixed(2)}`,
);
try {
  const one = await withSet(1, (set) => measure(set, '1 replica '));
  const { three, kills } = await withSet(3, async (set) => {
    const three = await measure(set, '3 replicas');
    const kills: Kill[] = [];
    for (let round = 1; round <= KILLS; round++) {
      kills.push(await killRun(set, `3 replicas, lease holder killed (${round} of ${KILLS})`));
      // The killed replica back, so the next round starts from three again.
      // A start-up can fail on a store call past its deadline while FerretDB is loaded: try again.
      for (const replica of set.replicas.filter((each) => !each.running)) {
        saveLogs(set, `kill${round}`, replica);
        for (let attempt = 1; !replica.running; attempt++)
          await replica.start().catch((error: unknown) => {
            if (attempt >= 3) throw error;
            console.log(`restarting r${replica.index} failed (${String(error).split('\n')[0]}); again`);
          });
      }
      await set.proxy.waitForUp(3);
    }
    return { three, kills };
  });
  console.log('\n| | 1 replica | 3 replicas |');
  console.log('|---|---|---|');
  console.log(`| creates/s | ${one.createsPerS.toFixed(1)} | ${three.createsPerS.toFixed(1)} |`);
  console.log(
    `| CPU ms per create (all replicas) | ${one.cpuMsPerCreate.toFixed(2)} | ${three.cpuMsPerCreate.toFixed(2)} |`,
  );
  console.log(
    `| all published after the last ack (ms) | ${one.publishedMs?.toFixed(0) ?? 'never'} | ${three.publishedMs?.toFixed(0) ?? 'never'} |`,
  );
  for (const [at, kill] of kills.entries())
    console.log(
      `kill -9 ${at + 1} of the lease holder a third of the way in: a new holder after ${kill.takeoverMs ?? 'none'} ms, ` +
        `all ${kill.run.acknowledged.length} acknowledged published ${kill.allPublishedAfterKillMs ?? 'never'} ms after the kill, lost ${kill.run.lost}`,
    );
  const worst = (values: Array<number | undefined>): number | null =>
    values.some((value) => value === undefined) ? null : Math.max(...(values as number[]));
  const result = {
    replicas: 3,
    creates: CREATES,
    lease: LEASE,
    kills: kills.length,
    acknowledged: kills.reduce((sum, kill) => sum + kill.run.acknowledged.length, three.acknowledged.length),
    lost: kills.reduce((sum, kill) => sum + kill.run.lost, one.lost + three.lost),
    published_twice: kills.reduce(
      (sum, kill) => sum + kill.run.publishedTwice,
      one.publishedTwice + three.publishedTwice,
    ),
    resolve_mismatches: kills.reduce(
      (sum, kill) => sum + kill.run.resolveMismatches,
      one.resolveMismatches + three.resolveMismatches,
    ),
    takeover_ms: worst(kills.map((kill) => kill.takeoverMs)),
    all_published_after_kill_ms: worst(kills.map((kill) => kill.allPublishedAfterKillMs)),
    takeover_ms_each: kills.map((kill) => kill.takeoverMs ?? null),
    all_published_after_kill_ms_each: kills.map((kill) => kill.allPublishedAfterKillMs ?? null),
    acknowledged_each_kill: kills.map((kill) => kill.run.acknowledged.length),
    creates_per_s_1: Number(one.createsPerS.toFixed(1)),
    creates_per_s_3: Number(three.createsPerS.toFixed(1)),
    cpu_ms_per_create_1: Number(one.cpuMsPerCreate.toFixed(3)),
    cpu_ms_per_create_3: Number(three.cpuMsPerCreate.toFixed(3)),
    published_ms_1: one.publishedMs === undefined ? null : Math.round(one.publishedMs),
    published_ms_3: three.publishedMs === undefined ? null : Math.round(three.publishedMs),
    load_average: Number(loadAverage().toFixed(2)),
  };
  console.log(JSON.stringify(result));
} finally {
  await stopAllProcesses();
}
