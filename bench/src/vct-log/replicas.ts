/**
 * The vct-log part of the replicas bench (`npm run bench -- replicas --service vct-log [--entries N]
 * [--lease 10s] [--kills 2]`): one log (alias `main`) as one and as three processes on one FerretDB behind
 * haproxy (`@anchor/testing/replicas`). For each size: add-vc/s through the balancer, CPU per entry (every
 * replica's user + system time over the run, from /proc), and how long after the last acknowledgement every
 * acknowledged entry is covered by a signed tree head. With three, further runs (`--kills`) each kill the
 * holder of the sequencer lease (SIGKILL) a third of the way in: how long until a survivor holds the lease
 * (read from the lease chain in the shared database), and until every acknowledged entry is covered by a head;
 * the killed replica is started again before the next run.
 *
 * A monitor polls get-sth through the balancer all along, as a log monitor would. At the end the whole tree
 * is read back (get-entries) and checked: every acknowledged entry is in it exactly once (`lost`,
 * `integrated_twice`), every head the monitor saw has the root of the tree's first `tree_size` leaves
 * (`inconsistent_heads`), and no head the monitor saw is smaller than one it saw before (`sth_backwards`).
 * The last line is one JSON object. `--logs DIR` writes every replica's output there (the sequencer's batches
 * at debug), after each kill run and at the end of each set. `npm test` never runs this.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { join } from 'node:path';
import { MerkleTree, leafHash } from '@anchor/common/merkle';
import { parseDuration } from '@anchor/common/config';
import { createStoreProvider, LEASE_STORE, StoreLease, type LeaseLink } from '@anchor/common/storage';
import type { SignedTreeHead } from '@anchor/common/vct';
import { stopAllProcesses } from '@anchor/testing/process';
import { startVctLogReplicas, type Replica, type ReplicaSet } from '@anchor/testing/replicas';
import { loadAverage } from '../lib/machine.js';
import { cpuSampler } from '../lib/replica-cpu.js';
import { benchCredential, clientLeafHash } from './credentials.js';

export interface VctReplicasOptions {
  entries: number;
  /** `--sequencer-lease` of every replica. */
  lease: string;
  kills: number;
  /** `--logs DIR`: every replica's output (the sequencer's batches at debug, JSON) is written there. */
  logs?: string | undefined;
}

const CONNECTIONS = 16;
/** How long after the last acknowledgement (or the kill) every acknowledged entry must be in a head. */
const INTEGRATE_DEADLINE_MS = 120_000;
const MONITOR_INTERVAL_MS = 25;
/**
 * Entries per get-entries of the read-back. On FerretDB one of 1,000 is some 2,000 lookups (entries, then
 * leaves): at load 25-35 it passed the replicas' 30 s database deadline, each such answer replaced the
 * replica's database client and failed the sequencer's batch in flight with it, and the read-back, asked
 * again every 100 ms, kept integration from finishing (a kill run saw none of its 995 entries read back).
 */
const READ_PAGE = 100;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Ack {
  n: number;
  timestamp: number;
}

interface SeenHead {
  at: number;
  size: number;
  root: string;
}

interface Run {
  label: string;
  acknowledged: Ack[];
  refused: Map<string, number>;
  perSecond: number;
  cpuMsPerEntry: number;
  /** Date.now() of the last acknowledgement. */
  lastAckAt: number;
  /** Date.now() when the monitor first saw a head covering every acknowledged entry, if it did. */
  allIntegratedAt: number | undefined;
  lost: number;
  integratedTwice: number;
  inconsistentHeads: number;
  backwards: number;
  /** The largest step back the monitor saw (tree sizes). */
  worstBackwards: number;
  headsSeen: number;
  /** Claims of the sequencer lease during the run (hand-overs, and the first claim). */
  leaseClaims: number;
}

/** A log monitor: get-sth through the balancer every MONITOR_INTERVAL_MS, every answer kept. */
class SthMonitor {
  readonly heads: SeenHead[] = [];
  private running = true;
  private readonly agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  private readonly done: Promise<void>;

  constructor(private readonly url: string) {
    this.done = this.loop();
  }

  async stop(): Promise<void> {
    this.running = false;
    await this.done;
    this.agent.destroy();
  }

  /** The first head seen at or after `since` with at least `size` leaves. */
  firstCovering(size: number, since = 0): SeenHead | undefined {
    return this.heads.find((head) => head.at >= since && head.size >= size);
  }

  /** Heads smaller than one seen before them, and the largest such step back. */
  backwards(): { count: number; worst: number } {
    let max = -1;
    let count = 0;
    let worst = 0;
    for (const head of this.heads) {
      if (head.size < max) {
        count++;
        worst = Math.max(worst, max - head.size);
      }
      max = Math.max(max, head.size);
    }
    return { count, worst };
  }

  private async loop(): Promise<void> {
    while (this.running) {
      const head = await getJson<SignedTreeHead>(`${this.url}/main/v1/get-sth`, this.agent).catch(() => undefined);
      if (head) this.heads.push({ at: Date.now(), size: head.tree_size, root: head.sha256_root_hash });
      await sleep(MONITOR_INTERVAL_MS);
    }
  }
}

function getJson<T>(url: string, agent: http.Agent): Promise<T> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { agent }, (response) => {
        let body = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (body += chunk));
        response.on('end', () => {
          if (response.statusCode === 200) resolve(JSON.parse(body) as T);
          else reject(new Error(`GET ${url}: ${response.statusCode} ${body.trim()}`));
        });
      })
      .on('error', reject);
  });
}

function postJson(url: string, body: string, agent: http.Agent): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const request = http.request(
      url,
      {
        method: 'POST',
        agent,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
      },
      (response) => {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (text += chunk));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, body: text }));
      },
    );
    request.on('error', reject);
    request.end(body);
  });
}

/** The tip of the sequencer lease chain, if it is held now, and the replica holding it (its holder id is in its log). */
async function sequencerHolder(
  set: ReplicaSet,
  leaseMs: number,
): Promise<{ holder: string; replica: Replica | undefined; claimedAt: number | undefined } | undefined> {
  const storage = await createStoreProvider({ type: 'mongodb', url: set.databaseUrl, sweepIntervalMs: 0 });
  try {
    const lease = await StoreLease.open(storage, { name: 'sequencer', holder: 'bench-reader', durationMs: 0 });
    const tip = await lease.tip();
    if (!tip || tip.expiresAt < Date.now()) return undefined;
    const replica = set.running.find((each) => each.process.output().includes(tip.holder));
    // A link's expiry is its writer's clock at the write plus the lease: the claim's, less the lease, is when it was taken.
    const claim = await lease.claimOf(tip.epoch);
    return { holder: tip.holder, replica, claimedAt: claim ? claim.expiresAt - leaseMs : undefined };
  } finally {
    await storage.close();
  }
}

/** The versions of the sequencer lease chain's claims (a chain keeps every claim; each starts an epoch). */
async function leaseClaims(set: ReplicaSet): Promise<number[]> {
  const storage = await createStoreProvider({ type: 'mongodb', url: set.databaseUrl, sweepIntervalMs: 0 });
  try {
    const links = await storage.open<LeaseLink>(LEASE_STORE, { indexes: [['lease', 'version']], exclusive: true });
    const page = await links.query({
      where: { lease: 'sequencer' },
      orderBy: { field: 'version', direction: 'asc' },
      limit: 10_000,
    });
    return page.items.filter((item) => item.value.kind === 'claim').map((item) => item.value.version);
  } finally {
    await storage.close();
  }
}

/**
 * Reads the tree on through the balancer into `hashes` (its leaf hashes in order) until it holds at least
 * `minSize` leaves or the deadline passes. A replica a round behind answers a range past its head with 400;
 * the read is then asked again.
 */
async function readTree(
  url: string,
  hashes: Buffer[],
  minSize: number,
  agent: http.Agent,
  deadline: number,
): Promise<void> {
  for (;;) {
    const head = await getJson<SignedTreeHead>(`${url}/main/v1/get-sth`, agent).catch(() => undefined);
    const size = head?.tree_size ?? 0;
    while (hashes.length < size) {
      const end = Math.min(size - 1, hashes.length + READ_PAGE - 1);
      const page = await getJson<{ entries: Array<{ leaf_input: string }> }>(
        `${url}/main/v1/get-entries?start=${hashes.length}&end=${end}`,
        agent,
      ).catch(() => undefined);
      if (!page) {
        if (Date.now() > deadline) return;
        await sleep(100);
        continue;
      }
      for (const entry of page.entries) hashes.push(leafHash(Buffer.from(entry.leaf_input, 'base64')));
    }
    if (hashes.length >= minSize || Date.now() > deadline) return;
    await sleep(200);
  }
}

async function measure(
  set: ReplicaSet,
  label: string,
  options: VctReplicasOptions,
  onAnswer?: (answered: number) => Promise<void>,
): Promise<Run> {
  const run = Math.random().toString(36).slice(2, 8);
  const agent = new http.Agent({ keepAlive: true, maxSockets: CONNECTIONS });
  const monitor = new SthMonitor(set.url);
  const acknowledged: Ack[] = [];
  const refused = new Map<string, number>();
  let next = 0;
  let answered = 0;
  let lastAckAt = 0;
  const baseSize = (await getJson<SignedTreeHead>(`${set.url}/main/v1/get-sth`, agent)).tree_size;
  const claimsBefore = new Set(await leaseClaims(set));
  const cpu = cpuSampler(set);
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONNECTIONS }, async () => {
      while (next < options.entries) {
        const n = next++;
        const body = JSON.stringify(benchCredential(run, n));
        const reply = await postJson(`${set.url}/main/v1/add-vc`, body, agent).catch((error: Error) => ({
          status: 0,
          body: error.message,
        }));
        if (reply.status === 200) {
          acknowledged.push({ n, timestamp: (JSON.parse(reply.body) as { timestamp: number }).timestamp });
          lastAckAt = Date.now();
        } else {
          const key = `${reply.status || 'no answer'} ${reply.body.replace(/\d+/g, 'N').slice(0, 120).trim()}`;
          refused.set(key, (refused.get(key) ?? 0) + 1);
        }
        await onAnswer?.(++answered);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  const cpuMs = cpu.stop();

  // Every acknowledged entry's leaf hash, as a client computes it from its credential and the acknowledged timestamp.
  const wanted = new Map<string, Ack>();
  for (const ack of acknowledged)
    wanted.set((await clientLeafHash(benchCredential(run, ack.n), ack.timestamp)).toString('base64'), ack);
  const deadline = Date.now() + INTEGRATE_DEADLINE_MS;
  const tree: Buffer[] = [];
  const positions = new Map<string, number[]>();
  for (let minSize = baseSize + acknowledged.length; ; minSize = tree.length + 1) {
    const from = tree.length;
    await readTree(set.url, tree, minSize, agent, deadline);
    for (let index = from; index < tree.length; index++) {
      const key = tree[index]!.toString('base64');
      if (wanted.has(key)) positions.set(key, [...(positions.get(key) ?? []), index]);
    }
    if (positions.size === wanted.size || Date.now() > deadline) break;
  }
  const missing = wanted.size - positions.size;
  // Let the monitor see the head that covers the last of them.
  const lastIndex = Math.max(-1, ...[...positions.values()].map((at) => at[0]!));
  const covered = await (async () => {
    while (Date.now() < deadline) {
      const head = monitor.firstCovering(lastIndex + 1);
      if (head) return head;
      await sleep(50);
    }
    return undefined;
  })();
  await monitor.stop();
  agent.destroy();
  const claims = (await leaseClaims(set)).filter((version) => !claimsBefore.has(version)).length;

  const merkle = MerkleTree.fromLeafHashes(tree);
  const inconsistentHeads = monitor.heads.filter(
    (head) => head.size > merkle.size || merkle.root(head.size).toString('base64') !== head.root,
  ).length;
  const { count: backwards, worst: worstBackwards } = monitor.backwards();
  const result: Run = {
    label,
    acknowledged,
    refused,
    perSecond: acknowledged.length / seconds,
    cpuMsPerEntry: cpuMs / Math.max(1, acknowledged.length),
    lastAckAt,
    allIntegratedAt: missing === 0 ? covered?.at : undefined,
    lost: missing,
    integratedTwice: [...positions.values()].filter((at) => at.length > 1).length,
    inconsistentHeads,
    backwards,
    worstBackwards,
    headsSeen: monitor.heads.length,
    leaseClaims: claims,
  };
  const integratedMs = result.allIntegratedAt === undefined ? undefined : result.allIntegratedAt - lastAckAt;
  console.log(
    `${label}: ${acknowledged.length}/${options.entries} acknowledged` +
      `${refused.size > 0 ? ` (refused: ${[...refused].map(([what, k]) => `${k}x ${what}`).join('; ')})` : ''}, ` +
      `${result.perSecond.toFixed(1)} add-vc/s, ${result.cpuMsPerEntry.toFixed(2)} ms CPU per entry, ` +
      `all in a head ${integratedMs === undefined ? `never (${missing} missing)` : `${Math.max(0, integratedMs)} ms after the last ack`}, ` +
      `integrated twice ${result.integratedTwice}, ${result.headsSeen} heads seen: ${inconsistentHeads} inconsistent, ` +
      `${backwards} smaller than an earlier one (worst by ${worstBackwards}), ${claims} lease claims (load average ${loadAverage().toFixed(2)})`,
  );
  return result;
}

interface Kill {
  run: Run;
  takeoverMs: number | undefined;
  allIntegratedAfterKillMs: number | undefined;
}

/** A run during which the sequencer-lease holder is killed (SIGKILL) a third of the way in; the takeover is read from the lease chain. */
async function killRun(set: ReplicaSet, label: string, options: VctReplicasOptions): Promise<Kill> {
  if (!(await sequencerHolder(set, parseDuration(options.lease)))?.replica)
    throw new Error('no replica holds the sequencer lease before the kill run');
  // The holder is read at the kill, not before the run: the lease may have changed hands in between (a run of
  // 2026-12-07 killed a replica that had lost it 0.9 s before, and timed a takeover of 73 ms).
  let before: { holder: string; replica: Replica | undefined } | undefined;
  let killedAt = 0;
  let takeoverMs: number | undefined;
  const watch = (async () => {
    while (killedAt === 0) await sleep(20);
    while (before && takeoverMs === undefined && Date.now() - killedAt < INTEGRATE_DEADLINE_MS) {
      const now = await sequencerHolder(set, parseDuration(options.lease)).catch(() => undefined);
      // Timed from the claim itself where the chain has it, not from when this poll saw it.
      if (now && now.holder !== before.holder) takeoverMs = (now.claimedAt ?? Date.now()) - killedAt;
      else await sleep(50);
    }
  })();
  const run = await measure(set, label, options, async (answered) => {
    if (answered === Math.floor(options.entries / 3)) {
      before = await sequencerHolder(set, parseDuration(options.lease));
      if (!before?.replica) throw new Error('no replica holds the sequencer lease at the kill');
      killedAt = Date.now();
      await before.replica.kill();
    }
  });
  await watch;
  const allIntegratedAfterKillMs = run.allIntegratedAt === undefined ? undefined : run.allIntegratedAt - killedAt;
  return { run, takeoverMs, allIntegratedAfterKillMs };
}

let saved = 0;
/** Writes each replica's captured output under `--logs` (before a restart replaces it). */
function saveLogs(set: ReplicaSet, options: VctReplicasOptions, tag: string): void {
  if (!options.logs) return;
  mkdirSync(options.logs, { recursive: true });
  for (const replica of set.replicas) {
    let output: string;
    try {
      output = replica.process.output();
    } catch {
      continue;
    }
    writeFileSync(join(options.logs, `${String(++saved).padStart(2, '0')}-${tag}-r${replica.index}.log`), output);
  }
}

async function withSet<T>(
  count: number,
  options: VctReplicasOptions,
  body: (set: ReplicaSet) => Promise<T>,
): Promise<T> {
  const set = await startVctLogReplicas({
    count,
    // The sequencer's info lines name each holder's id: how the bench finds the replica to kill.
    extraArgs: [
      '--sequencer-lease',
      options.lease,
      ...(options.logs
        ? ['--log-level', 'vct-sequencer=debug:vct-log=info:warning', '--log-format', 'json']
        : ['--log-level', 'vct-sequencer=info:warning']),
    ],
    readyTimeoutMs: 120_000,
  });
  try {
    return await body(set);
  } finally {
    saveLogs(set, options, `${count}`);
    await set.stop();
  }
}

export async function vctLogReplicasBench(options: VctReplicasOptions): Promise<void> {
  console.log(
    `vct-log replicas bench: ${options.entries} add-vc per run, ${CONNECTIONS} connections, sequencer lease ${options.lease}; ` +
      `load average ${loadAverage().toFixed(2)}`,
  );
  try {
    const one = await withSet(1, options, (set) => measure(set, '1 replica ', options));
    const { three, kills } = await withSet(3, options, async (set) => {
      const three = await measure(set, '3 replicas', options);
      const kills: Kill[] = [];
      for (let round = 1; round <= options.kills; round++) {
        kills.push(await killRun(set, `3 replicas, lease holder killed (${round} of ${options.kills})`, options));
        saveLogs(set, options, `kill${round}`);
        for (const replica of set.replicas.filter((each) => !each.running))
          for (let attempt = 1; !replica.running; attempt++)
            await replica.start().catch((error: unknown) => {
              if (attempt >= 3) throw error;
              console.log(`restarting r${replica.index} failed (${String(error).split('\n')[0]}); again`);
            });
        await set.proxy.waitForUp(3);
      }
      return { three, kills };
    });
    const ms = (value: number | undefined) => (value === undefined ? 'never' : String(Math.max(0, Math.round(value))));
    console.log('\n| vct-log | 1 replica | 3 replicas |');
    console.log('|---|---|---|');
    console.log(`| add-vc/s | ${one.perSecond.toFixed(1)} | ${three.perSecond.toFixed(1)} |`);
    console.log(
      `| CPU ms per entry (all replicas) | ${one.cpuMsPerEntry.toFixed(2)} | ${three.cpuMsPerEntry.toFixed(2)} |`,
    );
    const integratedAfter = (run: Run) =>
      run.allIntegratedAt === undefined ? undefined : run.allIntegratedAt - run.lastAckAt;
    console.log(
      `| all in a signed head after the last ack (ms) | ${ms(integratedAfter(one))} | ${ms(integratedAfter(three))} |`,
    );
    for (const [at, kill] of kills.entries())
      console.log(
        `kill -9 ${at + 1} of the sequencer-lease holder a third of the way in: a new holder after ${kill.takeoverMs ?? 'none'} ms, ` +
          `all ${kill.run.acknowledged.length} acknowledged in a head ${ms(kill.allIntegratedAfterKillMs)} ms after the kill, ` +
          `lost ${kill.run.lost}, integrated twice ${kill.run.integratedTwice}, heads back ${kill.run.backwards}`,
      );
    const runs = [one, three, ...kills.map((kill) => kill.run)];
    const sum = (pick: (run: Run) => number) => runs.reduce((total, run) => total + pick(run), 0);
    const worst = (values: Array<number | undefined>): number | null =>
      values.some((value) => value === undefined) ? null : Math.max(...(values as number[]));
    const result = {
      service: 'vct-log',
      replicas: 3,
      entries: options.entries,
      lease: options.lease,
      kills: kills.length,
      acknowledged: sum((run) => run.acknowledged.length),
      lost: sum((run) => run.lost),
      integrated_twice: sum((run) => run.integratedTwice),
      inconsistent_heads: sum((run) => run.inconsistentHeads),
      sth_backwards: sum((run) => run.backwards),
      sth_backwards_worst: Math.max(...runs.map((run) => run.worstBackwards)),
      takeover_ms: worst(kills.map((kill) => kill.takeoverMs)),
      all_integrated_after_kill_ms: worst(kills.map((kill) => kill.allIntegratedAfterKillMs)),
      takeover_ms_each: kills.map((kill) => kill.takeoverMs ?? null),
      all_integrated_after_kill_ms_each: kills.map((kill) => kill.allIntegratedAfterKillMs ?? null),
      acknowledged_each_kill: kills.map((kill) => kill.run.acknowledged.length),
      add_vc_per_s_1: Number(one.perSecond.toFixed(1)),
      add_vc_per_s_3: Number(three.perSecond.toFixed(1)),
      cpu_ms_per_entry_1: Number(one.cpuMsPerEntry.toFixed(3)),
      cpu_ms_per_entry_3: Number(three.cpuMsPerEntry.toFixed(3)),
      integrated_ms_1: one.allIntegratedAt === undefined ? null : Math.max(0, one.allIntegratedAt - one.lastAckAt),
      integrated_ms_3:
        three.allIntegratedAt === undefined ? null : Math.max(0, three.allIntegratedAt - three.lastAckAt),
      lease_claims_each: runs.map((run) => run.leaseClaims),
      load_average: Number(loadAverage().toFixed(2)),
    };
    console.log(JSON.stringify(result));
  } finally {
    await stopAllProcesses();
  }
}
