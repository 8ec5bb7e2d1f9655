/**
 * Peers that are not Node programs (PostgreSQL, the Tessera front) run as plain child processes: started,
 * waited for, stopped at the end (SIGTERM, then SIGKILL), and their CPU read from /proc with their children's
 * (PostgreSQL forks a process per connection).
 */
import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { readProcStat } from '../lib/proc-stat.js';

const running = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

export interface BinaryProcess {
  pid: number;
  output(): string;
  stop(signal?: NodeJS.Signals): Promise<void>;
}

export function startBinary(file: string, args: readonly string[], options: SpawnOptions = {}): BinaryProcess {
  const child = spawn(file, args, { stdio: ['ignore', 'pipe', 'pipe'], ...options });
  if (child.pid === undefined) throw new Error(`${file} did not start`);
  running.add(child);
  let output = '';
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString('utf8')).slice(-64 * 1024);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const exited = new Promise<void>((resolve) => child.once('close', () => resolve()));
  void exited.then(() => running.delete(child));
  return {
    pid: child.pid,
    output: () => output,
    stop: async (signal = 'SIGTERM') => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill(signal);
      const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** Fields of /proc/<pid>/stat after the command name (utime is [11], stime [12], cutime [13], cstime [14]). */
function statFields(pid: number): string[] | undefined {
  return readProcStat(`/proc/${pid}/stat`)?.fields;
}

const TICK_MS = 10;

/**
 * CPU ms used so far by a process, every thread, with its children: the live ones' own and the ended ones'
 * (reaped into cutime / cstime). Linux only; undefined elsewhere.
 */
export function treeCpuMs(pid: number): number | undefined {
  const own = statFields(pid);
  if (!own) return undefined;
  let ticks = Number(own[11]) + Number(own[12]) + Number(own[13]) + Number(own[14]);
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const fields = statFields(Number(entry));
    if (fields && Number(fields[1]) === pid) ticks += Number(fields[11]) + Number(fields[12]);
  }
  return ticks * TICK_MS;
}
