import { readFileSync } from 'node:fs';

/**
 * A Linux stat file (`/proc/<pid>/stat`, `/proc/<pid>/task/<tid>/stat`): the command name and the fields after it
 * (utime is `fields[11]`, stime `[12]`, cutime `[13]`, cstime `[14]`, in clock ticks of 10 ms). The name may hold
 * spaces and parentheses, so it ends at the last `)`. Undefined when the process or thread is gone (or not Linux).
 */
export function readProcStat(path: string): { name: string; fields: string[] } | undefined {
  let stat: string;
  try {
    stat = readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
  const end = stat.lastIndexOf(')');
  return { name: stat.slice(stat.indexOf('(') + 1, end), fields: stat.slice(end + 2).split(' ') };
}
