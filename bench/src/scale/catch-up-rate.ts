import { readdirSync } from 'node:fs';
import { readProcStat } from '../lib/proc-stat.js';

/** What a kept scale run records beside its data, so a later catch-up bench can start its source as it ran. */
export interface KeptScaleRun {
  sourcePort: number;
  sourceArgs: string[];
  /** Operations the source accepted: a follower has caught up once it applied them all. */
  operations: number;
}

export const KEPT_RUN_FILE = 'kept-run.json';

/** The rate over each tenth of `total` operations, from (seconds, applied) samples. */
export function rateByTenths(progress: ReadonlyArray<{ s: number; applied: number }>, total: number): number[] {
  const rates: number[] = [];
  let from = { s: 0, applied: 0 };
  for (let tenth = 1; tenth <= 10; tenth++) {
    const to = progress.find((sample) => sample.applied >= (total * tenth) / 10);
    if (!to) break;
    if (to.s > from.s) rates.push((to.applied - from.applied) / (to.s - from.s));
    from = to;
  }
  return rates;
}

/** CPU ticks (1/100 s) per thread of a process, by `name#tid` (Linux `/proc`); empty where it cannot be read. */
export function threadTicks(pid: number): Map<string, number> {
  const ticks = new Map<string, number>();
  let tids: string[];
  try {
    tids = readdirSync(`/proc/${pid}/task`);
  } catch {
    return ticks;
  }
  for (const tid of tids) {
    // A thread that ended between the listing and the read is left out.
    const stat = readProcStat(`/proc/${pid}/task/${tid}/stat`);
    if (stat) ticks.set(`${stat.name}#${tid}`, Number(stat.fields[11]) + Number(stat.fields[12]));
  }
  return ticks;
}

/** Cores each thread used between two `threadTicks` readings `seconds` apart, busiest first, above 0.05. */
export function busyThreads(before: Map<string, number>, after: Map<string, number>, seconds: number): string {
  return [...after]
    .map(([thread, ticks]) => [thread, (ticks - (before.get(thread) ?? 0)) / 100 / seconds] as const)
    .filter(([, cores]) => cores > 0.05)
    .sort((a, b) => b[1] - a[1])
    .map(([thread, cores]) => `${thread} ${cores.toFixed(2)}`)
    .join(', ');
}
