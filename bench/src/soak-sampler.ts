import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** What one process holds at one moment: the figures a soak watches for growth. */
export interface ResourceSample {
  /**
   * Anonymous resident memory (heap, native allocations, thread stacks): what a leak grows. File-backed pages
   * (LMDB maps its data file; the node binary) are resident too but are the data itself, shown apart.
   */
  rssBytes: number;
  /** File-backed resident memory: mostly the LMDB map, which grows with the data. */
  fileRssBytes: number;
  heapUsedBytes: number;
  fds: number;
  dataBytes: number;
}

/** One resident-memory line of /proc/<pid>/status (Linux: `RssAnon`, `RssFile`), in bytes. */
function residentOf(pid: number, field: 'RssAnon' | 'RssFile'): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((l) => l.startsWith(`${field}:`));
  return Number(line?.split(/\s+/)[1] ?? Number.NaN) * 1024;
}

/** Bytes of every file under `dir` (apparent sizes, as `du -sb`). */
export function directoryBytes(dir: string): number {
  let total = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) total += directoryBytes(path);
    else if (entry.isFile()) total += statSync(path).size;
  }
  return total;
}

/** The heap the process itself reports on its `/metrics` (prom-client's default process metrics). */
async function heapUsedOf(url: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith('nodejs_heap_size_used_bytes '));
  return Number(line?.split(' ')[1] ?? Number.NaN);
}

export async function sampleProcess(pid: number, url: string, dataDir: string): Promise<ResourceSample> {
  return {
    rssBytes: residentOf(pid, 'RssAnon'),
    fileRssBytes: residentOf(pid, 'RssFile'),
    heapUsedBytes: await heapUsedOf(url),
    fds: readdirSync(`/proc/${pid}/fd`).length,
    dataBytes: directoryBytes(dataDir),
  };
}

/**
 * The bounds a sample is held against once the warm-up is over: memory may move around the warm-up
 * level (garbage collection, caches filling to their caps) but not climb with time; descriptors stay
 * near the warm-up count (keep-alive pools, the listener); the data directory grows with the data only,
 * so its size per acknowledged operation stays near the warm-up ratio.
 */
export interface Bounds {
  rssBytes: number;
  heapUsedBytes: number;
  fds: number;
  dataBytesPerOperation: number;
}

const MIB = 1024 * 1024;

export function boundsAfterWarmUp(warm: ResourceSample, operations: number): Bounds {
  return {
    rssBytes: warm.rssBytes * 1.3 + 32 * MIB,
    heapUsedBytes: warm.heapUsedBytes * 1.3 + 16 * MIB,
    fds: warm.fds + 24,
    dataBytesPerOperation: (warm.dataBytes / Math.max(1, operations)) * 1.5,
  };
}

/** Samples over which memory is judged: one sample may catch the heap just before a collection. */
export const MEMORY_WINDOW = 3;

/**
 * The memory a node keeps coming back to over its last `MEMORY_WINDOW` samples (the lowest of each figure):
 * a leak raises it, garbage waiting for the next collection does not.
 */
export function memoryFloor(samples: readonly ResourceSample[]): Pick<ResourceSample, 'rssBytes' | 'heapUsedBytes'> {
  const recent = samples.slice(-MEMORY_WINDOW);
  return {
    rssBytes: Math.min(...recent.map((s) => s.rssBytes)),
    heapUsedBytes: Math.min(...recent.map((s) => s.heapUsedBytes)),
  };
}
