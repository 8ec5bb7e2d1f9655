import { availableParallelism } from 'node:os';
import { opt } from '../config/index.js';

/** How many worker threads a service's flag asks for: a number (0: the work runs on the calling thread) or `auto`. */
export type WorkerThreads = number | 'auto';

/** A `--<work>-workers` flag: `auto` (the default) or 0 to 99 threads. */
export function workerThreadsOption(flag: string, help: string) {
  return opt.custom({
    flag,
    type: 'int|auto',
    default: 'auto',
    parse: (raw: string): WorkerThreads => {
      if (raw.trim().toLowerCase() === 'auto') return 'auto';
      if (!/^\d{1,2}$/.test(raw.trim())) throw new Error('must be auto or a number of worker threads from 0 to 99');
      return Number(raw.trim());
    },
    help,
  });
}

/**
 * `auto` is one thread per core: the HTTP thread mostly waits (for workers, for fsyncs), so on two cores two
 * workers beside it keep both cores busy.
 */
export function workerThreads(setting: WorkerThreads): number {
  return setting === 'auto' ? availableParallelism() : setting;
}
