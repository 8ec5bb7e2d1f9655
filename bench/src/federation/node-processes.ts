import { join } from 'node:path';
import { NodeAdminClient } from '@anchor/common/clients';
import { serviceBin } from '@anchor/dev-env';
import { freePort, startProcess, type ServiceProcess } from '@anchor/testing/process';
import { readProcStat } from '../lib/proc-stat.js';

const MAIN_JS = serviceBin('@anchor/node');
const CPU_PROFILE_JS = new URL('./cpu-profile.js', import.meta.url).href;
/** With `BENCH_HEAP_SNAPSHOT_DIR` set, this signal makes a node write a heap snapshot there (`--heapsnapshot-signal`). */
export const HEAP_SNAPSHOT_SIGNAL = 'SIGUSR2';

export interface BenchNode {
  name: string;
  url: string;
  process: ServiceProcess;
  admin: NodeAdminClient;
}

/**
 * A node as deployed bare (LMDB in `<dataRoot>/<name>`, in-process queue) on a free loopback port (or `port`,
 * so that a node restarted on its data keeps its address and so its anchor origin).
 * With `BENCH_CPU_PROFILE_DIR` set, each node writes a CPU profile there as it exits (`cpu-profile.ts`):
 * `BENCH_CPU_PROFILE_DIR=/tmp/prof npm run bench -- federation`; `BENCH_CPU_PROFILE_NODES=follower,mirror`
 * profiles only the nodes of those names (a scale run's source would hold an hour of samples). With
 * `BENCH_HEAP_SNAPSHOT_DIR` set, each node writes a heap snapshot there on `HEAP_SNAPSHOT_SIGNAL` (the soak
 * sends it at `--heap-snapshots` minutes).
 */
export async function startNodeProcess(
  name: string,
  dataRoot: string,
  extraArgs: readonly string[] = [],
  options: { port?: number; readyTimeoutMs?: number } = {},
): Promise<BenchNode> {
  const port = options.port ?? (await freePort());
  const profiled = globalThis.process.env.BENCH_CPU_PROFILE_NODES?.split(',').map((node) => node.trim());
  const profileDir =
    profiled === undefined || profiled.includes(name) ? globalThis.process.env.BENCH_CPU_PROFILE_DIR : undefined;
  const heapSnapshotDir = globalThis.process.env.BENCH_HEAP_SNAPSHOT_DIR;
  const nodeOptions = [
    ...(profileDir ? [`--import=${CPU_PROFILE_JS}`] : []),
    ...(heapSnapshotDir
      ? [`--heapsnapshot-signal=${HEAP_SNAPSHOT_SIGNAL}`, `--diagnostic-dir=${heapSnapshotDir}`]
      : []),
  ];
  const url = `http://127.0.0.1:${port}`;
  const process = await startProcess(MAIN_JS, {
    name,
    args: [
      '--host-url',
      `127.0.0.1:${port}`,
      '--external-endpoint',
      url,
      '--data-dir',
      join(dataRoot, name),
      '--log-level',
      'warning',
      ...extraArgs,
    ],
    readyUrl: `${url}/healthcheck`,
    readyStatus: (status) => status === 200,
    readyTimeoutMs: options.readyTimeoutMs ?? 60_000,
    ...(nodeOptions.length > 0
      ? {
          env: {
            NODE_OPTIONS: nodeOptions.join(' '),
            BENCH_CPU_PROFILE_DIR: profileDir,
            BENCH_PROCESS_NAME: name,
          },
        }
      : {}),
  });
  return { name, url, process, admin: new NodeAdminClient({ url }) };
}

/** The value of one sample of the node's `/metrics`, e.g. `node_activitypub_deliveries_total{outcome="delivered"}`; 0 when absent. */
export async function metricValue(url: string, sample: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text();
  for (const line of text.split('\n')) {
    if (line.startsWith(`${sample} `)) return Number(line.slice(sample.length + 1));
  }
  return 0;
}

/**
 * CPU time a process has used so far, in ms (user + system, from /proc: Linux only, undefined elsewhere).
 * On a shared machine the wall-clock rate depends on who else runs; CPU per unit of work does much less.
 */
export function processCpuMs(pid: number): number | undefined {
  const stat = readProcStat(`/proc/${pid}/stat`);
  return stat === undefined ? undefined : (Number(stat.fields[11]) + Number(stat.fields[12])) * 10;
}
