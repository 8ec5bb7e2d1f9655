/**
 * One node identity as one and as three replicas (`npm run bench -- replicas [--creates N] [--lease 15s]`):
 * processes on one FerretDB and one RabbitMQ namespace behind haproxy (`@anchor/testing/replicas`), the
 * issue's operator setup. For each size: creates/s through the balancer and CPU per create (every replica's
 * user + system time over the run, from /proc), then how long until every acknowledged create is published.
 * With three, a second run kills the batch-writer lease holder (SIGKILL) a third of the way in: how long until
 * a survivor holds the lease, and until every acknowledged create is published. Each DID's create must be
 * published exactly once (no DID in two anchors, no anchor under two transaction numbers).
 * The last line is one JSON object (see `result` below); its `lost` counts acknowledged creates not published
 * by the deadline (PUBLISH_DEADLINE_MS after the last ack). `npm test` never runs this.
 */
import { randomUUID } from 'node:crypto';
import { createStoreProvider, StoreLease } from '@anchor/common/storage';
import { metadataOf, postOperation, resolveDid, TestDid } from '@anchor/node/testing';
import { AMQP_URL, amqpUnavailable, deleteQueues } from '@anchor/testing/amqp-broker';
import { stopAllProcesses } from '@anchor/testing/process';
import { haproxyBinary, startNodeReplicas, type Replica, type ReplicaSet } from '@anchor/testing/replicas';
import { processCpuMs } from './federation/node-processes.js';
import { loadAverage } from './lib/machine.js';

function option(name: string): string | undefined {
  const at = process.argv.indexOf(`--${name}`);
  return at >= 0 ? process.argv[at + 1] : undefined;
}
const CREATES = Number(option('creates') ?? 600);
const LEASE = option('lease') ?? '15s';
const CONNECTIONS = 16;
const PUBLISH_DEADLINE_MS = 180_000;
const TOPICS = ['node.anchor', 'node.activity.outbox', 'node.activity.inbox', 'node.activity.delivery'];

interface Published {
  canonicalReference: string;
  transactionNumber: number;
}

interface Run {
  acknowledged: TestDid[];
  createsPerS: number;
  cpuMsPerCreate: number;
  publishedMs: number | undefined;
  /** Date.now() when every acknowledged create was seen published. */
  allPublishedAt: number | undefined;
  lost: number;
  publishedTwice: number;
}

const unavailable = (await amqpUnavailable()) ?? (await haproxyBinary()).reason;
if (unavailable) {
  console.log(`replicas bench skipped: ${unavailable}`);
  process.exit(0);
}

/** Posts every create through the balancer, CONNECTIONS at a time; `onDone` sees the count answered so far. */
async function createAll(set: ReplicaSet, dids: readonly TestDid[], onDone?: (done: number) => Promise<void>) {
  const acknowledged: TestDid[] = [];
  let next = 0;
  let done = 0;
  const worker = async (): Promise<void> => {
    while (next < dids.length) {
      const did = dids[next++]!;
      const answer = await postOperation(set.url, did.created.request).catch(() => undefined);
      if (answer?.status === 200) acknowledged.push(did);
      await onDone?.(++done);
    }
  };
  await Promise.all(Array.from({ length: CONNECTIONS }, worker));
  return acknowledged;
}

/** Resolves until every DID is published or the deadline passes; each DID's published operations. */
async function published(url: string, dids: readonly TestDid[], deadline: number) {
  const found = new Map<string, Published[]>();
  let waiting = [...dids];
  while (waiting.length > 0 && Date.now() < deadline) {
    const still: TestDid[] = [];
    for (let i = 0; i < waiting.length; i += 8)
      await Promise.all(
        waiting.slice(i, i + 8).map(async (did) => {
          const answer = await resolveDid(url, did.did).catch(() => undefined);
          const method = answer?.status === 200 ? metadataOf(answer).method : undefined;
          if (method?.published === true) found.set(did.suffix, method.publishedOperations as Published[]);
          else still.push(did);
        }),
      );
    waiting = still;
    if (waiting.length > 0) await new Promise((resolve) => setTimeout(resolve, 250));
  }
  return { found, unpublished: waiting.length };
}

/** DIDs whose create is in more than one anchor, plus anchors under more than one transaction number. */
function publishedTwice(found: Map<string, Published[]>): number {
  let twice = [...found.values()].filter((operations) => operations.length > 1).length;
  const numbersOf = new Map<string, Set<number>>();
  for (const operations of found.values())
    for (const { canonicalReference, transactionNumber } of operations)
      numbersOf.set(canonicalReference, (numbersOf.get(canonicalReference) ?? new Set()).add(transactionNumber));
  twice += [...numbersOf.values()].filter((numbers) => numbers.size > 1).length;
  return twice;
}

/** Samples every replica's CPU time every 200 ms, so a replica killed mid-run still counts what it used. */
function cpuSampler(set: ReplicaSet): { stop(): number } {
  const first = new Map<number, number>();
  const last = new Map<number, number>();
  const sample = (): void => {
    for (const replica of set.running) {
      const ms = processCpuMs(replica.process.pid);
      if (ms === undefined) continue;
      if (!first.has(replica.process.pid)) first.set(replica.process.pid, ms);
      last.set(replica.process.pid, ms);
    }
  };
  sample();
  const timer = setInterval(sample, 200);
  return {
    stop() {
      sample();
      clearInterval(timer);
      let total = 0;
      for (const [pid, ms] of last) total += ms - (first.get(pid) ?? ms);
      return total;
    },
  };
}

async function leaseHolder(set: ReplicaSet): Promise<Replica | undefined> {
  const storage = await createStoreProvider({ type: 'mongodb', url: set.databaseUrl, sweepIntervalMs: 0 });
  try {
    const tip = await (await StoreLease.open(storage, { name: 'batch-writer', holder: 'reader', durationMs: 0 })).tip();
    if (!tip || tip.expiresAt < Date.now()) return undefined;
    return set.replicas.find((replica) => tip.holder.includes(`|127.0.0.1:${replica.port}|`));
  } finally {
    await storage.close();
  }
}

async function measure(set: ReplicaSet, label: string, onDone?: (done: number) => Promise<void>): Promise<Run> {
  const dids = Array.from({ length: CREATES }, () => new TestDid(set.url));
  const cpu = cpuSampler(set);
  const started = performance.now();
  const acknowledged = await createAll(set, dids, onDone);
  const seconds = (performance.now() - started) / 1000;
  // A killed replica's last 200 ms are not counted: then the figure is a floor.
  const cpuMs = cpu.stop();
  const acked = performance.now();
  const { found, unpublished } = await published(set.url, acknowledged, Date.now() + PUBLISH_DEADLINE_MS);
  const run: Run = {
    acknowledged,
    createsPerS: acknowledged.length / seconds,
    cpuMsPerCreate: cpuMs / Math.max(1, acknowledged.length),
    publishedMs: unpublished === 0 ? performance.now() - acked : undefined,
    allPublishedAt: unpublished === 0 ? Date.now() : undefined,
    lost: unpublished,
    publishedTwice: publishedTwice(found),
  };
  console.log(
    `${label}: ${acknowledged.length}/${CREATES} acknowledged, ${run.createsPerS.toFixed(1)} creates/s, ` +
      `${run.cpuMsPerCreate.toFixed(2)} ms CPU per create, all published ${run.publishedMs?.toFixed(0) ?? `never (${unpublished} not)`} ms after the last ack, ` +
      `published twice ${run.publishedTwice} (load average ${loadAverage().toFixed(2)})`,
  );
  return run;
}

async function withSet<T>(count: number, body: (set: ReplicaSet) => Promise<T>): Promise<T> {
  const namespace = `bench-replicas-${randomUUID().slice(0, 8)}`;
  const set = await startNodeReplicas({
    count,
    amqpUrl: AMQP_URL,
    namespace,
    extraArgs: ['--batch-writer-lease', LEASE],
    readyTimeoutMs: 120_000,
  });
  try {
    return await body(set);
  } finally {
    await set.stop();
    await deleteQueues(TOPICS.flatMap((topic) => [`${namespace}.${topic}`, `${namespace}.${topic}.dead`]));
  }
}

console.log(
  `replicas bench: ${CREATES} creates per run, ${CONNECTIONS} connections, lease ${LEASE}; load average ${loadAverage().toFixed(2)}`,
);
try {
  const one = await withSet(1, (set) => measure(set, '1 replica '));
  const { three, kill } = await withSet(3, async (set) => {
    const three = await measure(set, '3 replicas');
    const holder = await leaseHolder(set);
    if (!holder) throw new Error('no batch-writer lease holder after the first run');
    let killedAt = 0;
    let takeoverMs: number | undefined;
    const watch = (async () => {
      while (killedAt === 0) await new Promise((resolve) => setTimeout(resolve, 20));
      while (takeoverMs === undefined && Date.now() - killedAt < PUBLISH_DEADLINE_MS) {
        const next = await leaseHolder(set).catch(() => undefined);
        if (next && next !== holder) takeoverMs = Date.now() - killedAt;
        else await new Promise((resolve) => setTimeout(resolve, 100));
      }
    })();
    const run = await measure(set, '3 replicas, lease holder killed', async (done) => {
      if (done === Math.floor(CREATES / 3)) {
        killedAt = Date.now();
        await holder.kill();
      }
    });
    await watch;
    const allPublishedAfterKillMs = run.allPublishedAt === undefined ? undefined : run.allPublishedAt - killedAt;
    return { three, kill: { run, takeoverMs, allPublishedAfterKillMs } };
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
  console.log(
    `kill -9 of the lease holder a third of the way in: a new holder after ${kill.takeoverMs ?? 'none'} ms, ` +
      `all ${kill.run.acknowledged.length} acknowledged published ${kill.allPublishedAfterKillMs ?? 'never'} ms after the kill, lost ${kill.run.lost}`,
  );
  const result = {
    replicas: 3,
    creates: CREATES,
    lease: LEASE,
    acknowledged: kill.run.acknowledged.length,
    lost: kill.run.lost + three.lost,
    published_twice: kill.run.publishedTwice + three.publishedTwice + one.publishedTwice,
    takeover_ms: kill.takeoverMs ?? null,
    all_published_after_kill_ms: kill.allPublishedAfterKillMs ?? null,
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
