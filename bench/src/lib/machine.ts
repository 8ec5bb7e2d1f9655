/**
 * What the machine has to give right now, printed beside the figures it explains: these benches run on 2
 * shared cores, where the same build has measured a create p99 of 179 ms and of 1.6 s an hour apart, and on
 * disks whose flush time differs from one machine to the next (every accepted create waits for one).
 */
import { spawnSync } from 'node:child_process';
import { generateKeyPairSync, sign, verify } from 'node:crypto';
import { closeSync, fdatasyncSync, openSync, readFileSync, rmSync, statSync, writeSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { percentile } from './report.js';

/** Ed25519 verifications one core completes in a second (the loop runs for `ms`). */
export function ed25519VerifiesPerSecond(ms = 1_000): number {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  const message = Buffer.alloc(256, 7);
  const signature = sign(null, message, privateKey);
  const started = performance.now();
  let count = 0;
  while (performance.now() - started < ms) {
    if (!verify(null, message, publicKey, signature)) throw new Error('the Ed25519 reference signature did not verify');
    count++;
  }
  return (count * 1_000) / (performance.now() - started);
}

/**
 * CPU microseconds per operation of a fixed JavaScript workload shaped like the node's (js-reference-process.ts:
 * parse, hash, serialise, over a large live heap), in a process of its own; about 2 s. The Ed25519 loop fits in
 * a core's cache and has been seen steady while the node's CPU per create moved by a fifth; this figure moves
 * with the memory system the node depends on, so a CPU figure can be read against the machine's state.
 */
export function jsReferenceMicros(): number {
  const script = fileURLToPath(new URL('./js-reference-process.js', import.meta.url));
  const run = spawnSync(process.execPath, [script], { encoding: 'utf8', timeout: 60_000 });
  const micros = Number(run.stdout.trim());
  if (run.status !== 0 || !Number.isFinite(micros))
    throw new Error(`the JS reference workload failed (${run.status}): ${run.stderr.trim()}`);
  return micros;
}

/** The one-minute load average. */
export const loadAverage = (): number => loadavg()[0] ?? 0;

/**
 * Latency of a durable append where the stores live: a 4 KB write then `fdatasync`, `count` times into a
 * scratch file in `dir` (removed after). An LMDB commit flushes twice, so this bounds how soon a durable
 * write can be answered on this disk.
 */
export function syncedAppendMs(dir: string, count = 200): { p50: number; p99: number } {
  const path = join(dir, 'machine-sync-probe');
  const fd = openSync(path, 'w');
  const block = Buffer.alloc(4_096, 1);
  const latencies: number[] = [];
  try {
    for (let i = 0; i < count; i++) {
      const started = performance.now();
      writeSync(fd, block);
      fdatasyncSync(fd);
      latencies.push(performance.now() - started);
    }
  } finally {
    closeSync(fd);
    rmSync(path, { force: true });
  }
  return { p50: percentile(latencies, 50), p99: percentile(latencies, 99) };
}

/**
 * Bytes written so far to the block device holding `dir` (its line of /proc/diskstats; sectors are 512 bytes),
 * or undefined where the directory is not on a listed device (tmpfs, overlay, not Linux). The whole device
 * counts, so a difference is this process's writes only on an otherwise quiet machine: the figure shows
 * how many pages a write path costs the disk, which the CPU of fsyncing them follows.
 */
export function deviceBytesWritten(dir: string): number | undefined {
  const dev = statSync(dir).dev;
  const major = Math.floor(dev / 256) & 0xfff;
  const minor = (dev & 0xff) | (Math.floor(dev / 4096) & ~0xff);
  let stats: string;
  try {
    stats = readFileSync('/proc/diskstats', 'utf8');
  } catch {
    return undefined;
  }
  for (const line of stats.split('\n')) {
    const fields = line.trim().split(/\s+/);
    if (Number(fields[0]) === major && Number(fields[1]) === minor) return Number(fields[9]) * 512;
  }
  return undefined;
}
