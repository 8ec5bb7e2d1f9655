/**
 * Soak: a three-node federation (every node follows the other two; LMDB, in-process queue, each node a
 * process) under steady mixed load for `--minutes` (default 30): on every node creates (10/s), resolutions
 * of DIDs created anywhere (20/s) and Like activities to its followers (2/s, two signed deliveries each).
 * Every minute each node's anonymous resident memory (a leak grows it; the file-backed part, mostly LMDB's
 * map of its data file, grows with the data and is shown apart), V8 heap in use, open descriptors and
 * data-directory size are printed beside the bound held after the warm-up (the first sixth of the run, at least a minute): memory and descriptors
 * may not climb with time (memory judged by the lowest of the last three samples, so garbage awaiting a
 * collection is not taken for a leak), and the data directory may grow only with the data (its bytes per
 * acknowledged create stay near the warm-up ratio). At the end a sample of the acknowledged DIDs must resolve published
 * on their own node and on a follower. Not part of CI:
 *
 *   npm run bench -- soak --minutes 3
 *   BENCH_HEAP_SNAPSHOT_DIR=/tmp/heap npm run bench -- soak --minutes 15 --heap-snapshots 3,12
 */
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { multibaseMultihash } from '@anchor/common/encoding';
import { makeTempDir, stopAllProcesses } from '@anchor/testing/process';
import { HEAP_SNAPSHOT_SIGNAL, startNodeProcess, type BenchNode } from './federation/node-processes.js';
import { loadAverage } from './lib/machine.js';
import { atLeast, atMost, report, summary } from './lib/report.js';
import { prepareCreates, type PreparedCreate } from './node/create-requests.js';
import {
  boundsAfterWarmUp,
  MEMORY_WINDOW,
  memoryFloor,
  sampleProcess,
  type Bounds,
  type ResourceSample,
} from './soak-sampler.js';

const SECTION = 'soak';
const MIB = 1024 * 1024;
const CREATES_PER_S = 10;
const RESOLVES_PER_S = 20;
const LIKES_PER_S = 2;
/**
 * The nodes' resolution cache, in DIDs: small enough to be full before the warm-up ends (the load resolves
 * about 10 new DIDs a second per node), so memory that climbs after it is a leak, not the cache filling to
 * its cap (the default count cap, 20,000 DIDs, takes about half an hour to fill at this load).
 */
const RESOLUTION_CACHE_DIDS = 1_500;

/**
 * `--heap-snapshots 3,12`: at those minutes node a writes a V8 heap snapshot into `BENCH_HEAP_SNAPSHOT_DIR` (one
 * node only: a snapshot stops its process for seconds; compare two in Chrome DevTools' Memory tab).
 */
function heapSnapshotMinutes(): Set<number> {
  const at = process.argv.indexOf('--heap-snapshots');
  if (at < 0) return new Set();
  if (!process.env.BENCH_HEAP_SNAPSHOT_DIR) throw new Error('--heap-snapshots needs BENCH_HEAP_SNAPSHOT_DIR');
  const minutes = (process.argv[at + 1] ?? '').split(',').map(Number);
  if (minutes.some((minute) => !Number.isInteger(minute) || minute < 1))
    throw new Error('--heap-snapshots needs minutes, e.g. 3,12');
  return new Set(minutes);
}

function minutesOption(): number {
  const at = process.argv.indexOf('--minutes');
  if (at < 0) return 30;
  const minutes = Number(process.argv[at + 1]);
  if (!Number.isFinite(minutes) || minutes < 2) throw new Error('--minutes needs a number of at least 2');
  return minutes;
}

/** Calls `fn` `perSecond` times a second, at most `inFlight` at once; calls that would exceed it are counted as behind. */
function paced(
  perSecond: number,
  inFlight: number,
  fn: () => Promise<void>,
): { stop(): Promise<void>; behind(): number } {
  let running = 0;
  let behind = 0;
  let credit = 0;
  const pending = new Set<Promise<void>>();
  const timer = setInterval(() => {
    credit += perSecond / 10;
    for (; credit >= 1; credit--) {
      if (running >= inFlight) {
        behind++;
        continue;
      }
      running++;
      const call = fn().finally(() => {
        running--;
        pending.delete(call);
      });
      pending.add(call);
    }
  }, 100);
  return {
    stop: async () => {
      clearInterval(timer);
      await Promise.allSettled([...pending]);
    },
    behind: () => behind,
  };
}

const minutes = minutesOption();
const snapshotMinutes = heapSnapshotMinutes();
const warmUpMinutes = Math.max(1, Math.round(minutes / 6));
const dir = await makeTempDir('soak-bench-');

try {
  const names = ['a', 'b', 'c'];
  const nodes: BenchNode[] = [];
  for (const name of names)
    nodes.push(await startNodeProcess(name, dir.path, ['--resolution-cache-size', String(RESOLUTION_CACHE_DIDS)]));
  const ids = await Promise.all(nodes.map((node) => node.admin.serviceId()));
  for (const [i, node] of nodes.entries())
    for (const [j, id] of ids.entries()) if (i !== j) await node.admin.follow(id);
  for (const [i, node] of nodes.entries())
    for (const [j, id] of ids.entries()) if (i !== j) await node.admin.waitUntilIn('following', id, 60_000);
  console.log(
    `soak: three nodes following each other; ${minutes} minutes, warm-up ${warmUpMinutes}; per node ${CREATES_PER_S} creates/s, ${RESOLVES_PER_S} resolutions/s, ${LIKES_PER_S} Likes/s; resolution cache ${RESOLUTION_CACHE_DIDS} DIDs`,
  );

  const acknowledged: Array<{ did: string; node: number }> = [];
  const failures = new Map<string, number>();
  const fail = (what: string) => failures.set(what, (failures.get(what) ?? 0) + 1);
  const prepared: PreparedCreate[][] = nodes.map(() => []);
  const created = nodes.map(() => 0);

  const loads = nodes.flatMap((node, n) => [
    paced(CREATES_PER_S, 8, async () => {
      if (prepared[n]!.length === 0) prepared[n] = prepareCreates(50, node.url);
      const create = prepared[n]!.pop()!;
      try {
        const response = await fetch(`${node.url}/sidetree/v1/operations`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: create.body,
        });
        await response.arrayBuffer();
        if (response.status === 200) {
          acknowledged.push({ did: create.did, node: n });
          created[n]!++;
        } else fail(`create ${response.status}`);
      } catch {
        fail('create: no answer');
      }
    }),
    paced(RESOLVES_PER_S, 8, async () => {
      const target = acknowledged[Math.floor(Math.random() * acknowledged.length)];
      if (!target) return;
      try {
        const response = await fetch(`${node.url}/sidetree/v1/identifiers/${target.did}`);
        await response.arrayBuffer();
        // A DID another node created is unknown here until its anchor arrives: 404 is an answer, 5xx is not.
        if (response.status >= 500) fail(`resolve ${response.status}`);
      } catch {
        fail('resolve: no answer');
      }
    }),
    paced(LIKES_PER_S, 4, async () => {
      try {
        await node.admin.postToOutbox({
          '@context': ['https://www.w3.org/ns/activitystreams', 'https://w3id.org/activityanchors/v1'],
          type: 'Like',
          to: `${node.admin.serviceEndpoint}/followers`,
          object: {
            '@context': 'https://w3id.org/activityanchors/v1',
            type: 'AnchorEvent',
            url: `hl:${multibaseMultihash(randomBytes(32))}`,
          },
        });
      } catch {
        fail('like');
      }
    }),
  ]);

  const started = Date.now();
  let bounds: Bounds[] | undefined;
  const history: ResourceSample[][] = nodes.map(() => []);
  const exceeded: string[] = [];
  console.log(
    'minute  node  anon RSS MiB (bound)  file RSS MiB  heap MiB (bound)   fds (bound)   data MiB   data KiB/create (bound)   creates   load',
  );
  for (let minute = 1; minute <= minutes; minute++) {
    await new Promise((resolve) => setTimeout(resolve, started + minute * 60_000 - Date.now()));
    for (const [n, node] of nodes.entries()) {
      const sample = await sampleProcess(node.process.pid, node.url, join(dir.path, names[n]!));
      history[n]!.push(sample);
      const floor = memoryFloor(history[n]!);
      const perCreate = sample.dataBytes / Math.max(1, created[n]!);
      if (minute === warmUpMinutes) {
        bounds ??= [];
        bounds[n] = boundsAfterWarmUp(sample, created[n]!);
      }
      const bound = minute > warmUpMinutes ? bounds?.[n] : undefined;
      const show = (value: number | undefined, unit = MIB) =>
        value === undefined ? '      -' : (value / unit).toFixed(1).padStart(7);
      if (bound) {
        if (floor.rssBytes > bound.rssBytes) exceeded.push(`minute ${minute} node ${names[n]} anonymous RSS`);
        if (floor.heapUsedBytes > bound.heapUsedBytes) exceeded.push(`minute ${minute} node ${names[n]} heap`);
        if (sample.fds > bound.fds) exceeded.push(`minute ${minute} node ${names[n]} fds`);
        if (perCreate > bound.dataBytesPerOperation) exceeded.push(`minute ${minute} node ${names[n]} data per create`);
      }
      console.log(
        `${String(minute).padStart(6)}  ${names[n]!.padEnd(4)}  ${show(sample.rssBytes)} (${show(bound?.rssBytes)})     ${show(sample.fileRssBytes)}  ${show(sample.heapUsedBytes)} (${show(bound?.heapUsedBytes)})  ` +
          `${String(sample.fds).padStart(4)} (${bound ? String(bound.fds).padStart(4) : '   -'})  ${show(sample.dataBytes)}   ${show(perCreate, 1024)} (${show(bound?.dataBytesPerOperation, 1024)})        ${String(created[n]).padStart(7)}  ${loadAverage().toFixed(1)}`,
      );
    }
    if (snapshotMinutes.has(minute)) process.kill(nodes[0]!.process.pid, HEAP_SNAPSHOT_SIGNAL);
  }
  await Promise.all(loads.map((load) => load.stop()));

  // Every acknowledged DID of a sample resolves published on its own node and on the next node (a follower).
  const sample = acknowledged.filter((_, i) => i % Math.max(1, Math.floor(acknowledged.length / 200)) === 0);
  const deadline = Date.now() + 120_000;
  let published = 0;
  for (const { did, node } of sample) {
    for (const at of [nodes[node]!, nodes[(node + 1) % nodes.length]!]) {
      for (;;) {
        const response = await fetch(`${at.url}/sidetree/v1/identifiers/${did}`);
        const body =
          response.status === 200
            ? ((await response.json()) as { didDocumentMetadata?: { method?: { published?: boolean } } })
            : undefined;
        if (body?.didDocumentMetadata?.method?.published === true) {
          published++;
          break;
        }
        if (Date.now() > deadline) break;
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    }
  }

  for (const [n, name] of names.entries()) {
    const bound = bounds?.[n];
    const now = { ...history[n]!.at(-1)!, ...memoryFloor(history[n]!) };
    report(
      SECTION,
      `node ${name}: anonymous RSS at the end (lowest of the last ${MEMORY_WINDOW} minutes)`,
      now.rssBytes / MIB,
      'MiB',
      bound && atMost(bound.rssBytes / MIB),
    );
    report(
      SECTION,
      `node ${name}: V8 heap in use at the end (lowest of the last ${MEMORY_WINDOW} minutes)`,
      now.heapUsedBytes / MIB,
      'MiB',
      bound && atMost(bound.heapUsedBytes / MIB),
    );
    report(SECTION, `node ${name}: open descriptors at the end`, now.fds, 'fds', bound && atMost(bound.fds));
    report(
      SECTION,
      `node ${name}: data directory per acknowledged create`,
      now.dataBytes / Math.max(1, created[n]!) / 1024,
      'KiB',
      bound && atMost(bound.dataBytesPerOperation / 1024),
    );
  }
  report(SECTION, 'creates acknowledged (all nodes)', acknowledged.length, 'creates');
  report(SECTION, 'samples over a bound after the warm-up', exceeded.length, 'samples', atMost(0));
  if (exceeded.length > 0) console.log(`over a bound: ${exceeded.join(', ')}`);
  report(
    SECTION,
    'failed requests (5xx, no answer, refused Likes)',
    [...failures.values()].reduce((a, b) => a + b, 0),
    'requests',
    atMost(0),
  );
  if (failures.size > 0) console.log(`failures: ${[...failures].map(([what, n]) => `${what}: ${n}`).join(', ')}`);
  report(
    SECTION,
    'requests the load could not start (behind)',
    loads.reduce((sum, load) => sum + load.behind(), 0),
    'requests',
  );
  report(
    SECTION,
    `sampled DIDs published on their node and a follower (of ${sample.length * 2})`,
    published,
    'resolutions',
    atLeast(sample.length * 2),
  );
} finally {
  await stopAllProcesses();
  await dir.remove();
}
summary();
