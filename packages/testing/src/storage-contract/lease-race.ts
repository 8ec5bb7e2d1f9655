/**
 * Holders racing for one StoreLease, each through its own provider (its own store client where the adapter
 * has one), judged by their fenced writes alone: every fenced write reads a shared counter and writes it
 * back plus one, with a log record under the new count naming the writer's epoch and holder. If two holders
 * were ever let write at once, an increment would be lost (the log has fewer records than writes reported
 * done) or an epoch's records would interleave with another's. Holders pause now and then between reading
 * and writing (a GC pause, a cut link) so that others take over meanwhile and the paused write must be refused.
 */
import { isFenced, StoreLease, type Store, type StoreProvider } from '@anchor/common/storage';
import { uniqueName } from '../contract-kit/index.js';

export interface LeaseRaceOptions {
  /** One provider per holder (the same one several times for an embedded store). */
  providers: readonly StoreProvider[];
  /** Lease rounds per holder. */
  rounds: number;
  durationMs: number;
  /** Deterministic pseudo-random choices (pauses, releases). */
  seed?: number;
}

interface LogRecord {
  n: number;
  epoch: number;
  holder: string;
}

export interface LeaseRaceResult {
  rounds: number;
  /** Fenced writes the store took. */
  written: number;
  /** Fenced writes the store refused (the holder had been deposed). */
  refused: number;
  /** Distinct epochs that wrote. */
  epochs: number;
  /** The log in count order. */
  log: LogRecord[];
  /** Counter value at the end. */
  count: number;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function raceLease(options: LeaseRaceOptions): Promise<LeaseRaceResult> {
  const name = uniqueName('race');
  const dataStore = uniqueName('race-data');
  let seed = options.seed ?? 42;
  // xorshift32: the same sequence of choices on every run.
  const random = (): number => {
    seed ^= seed << 13;
    seed ^= seed >>> 17;
    seed ^= seed << 5;
    return (seed >>> 0) / 2 ** 32;
  };
  let written = 0;
  let refused = 0;
  // Opened one after the other: FerretDB drops a connection that creates an index another is creating.
  const holders: Array<{ lease: StoreLease; data: Store<{ n: number } | LogRecord> }> = [];
  for (const [i, provider] of options.providers.entries())
    holders.push({
      lease: await StoreLease.open(provider, { name, holder: `holder-${i}`, durationMs: options.durationMs }),
      data: await provider.open<{ n: number } | LogRecord>(dataStore),
    });
  await Promise.all(
    holders.map(async ({ lease, data }) => {
      for (let round = 0; round < options.rounds; round++) {
        if (!(await lease.acquire())) {
          await sleep(random() * 3);
          continue;
        }
        const epoch = lease.epoch!;
        const counter = ((await data.get('counter')) as { n: number } | undefined)?.n ?? 0;
        if (random() < 0.1) await sleep(options.durationMs * 1.5);
        const n = counter + 1;
        try {
          await lease.write([
            { store: dataStore, op: 'put', key: 'counter', value: { n } },
            {
              store: dataStore,
              op: 'put',
              key: `log-${String(n).padStart(8, '0')}`,
              value: { n, epoch, holder: lease.holder },
            },
          ]);
          written++;
        } catch (error) {
          if (!isFenced(error)) throw error;
          refused++;
        }
        if (random() < 0.05) await lease.release();
        else await sleep(random() * 2);
      }
      await lease.release();
    }),
  );
  const data = holders[0]!.data;
  const log: LogRecord[] = [];
  for (let after: string | undefined; ;) {
    const page = await data.query({ keyPrefix: 'log-', limit: 1_000, ...(after ? { after } : {}) });
    log.push(...page.items.map((e) => e.value as LogRecord));
    if (!page.next) break;
    after = page.next;
  }
  const count = ((await data.get('counter')) as { n: number } | undefined)?.n ?? 0;
  return {
    rounds: options.rounds * holders.length,
    written,
    refused,
    epochs: new Set(log.map((r) => r.epoch)).size,
    log,
    count,
  };
}

/** What must hold of a race's log: one gap-free sequence, epochs never going back, one holder per epoch. */
export function raceViolations(result: LeaseRaceResult): string[] {
  const problems: string[] = [];
  if (result.count !== result.written) problems.push(`counter ${result.count} after ${result.written} writes`);
  if (result.log.length !== result.written)
    problems.push(`${result.log.length} log records after ${result.written} writes`);
  const holderOf = new Map<number, string>();
  result.log.forEach((record, i) => {
    if (record.n !== i + 1) problems.push(`log record ${i + 1} holds count ${record.n}`);
    const previous = result.log[i - 1];
    if (previous && record.epoch < previous.epoch)
      problems.push(`epoch ${record.epoch} wrote count ${record.n} after epoch ${previous.epoch}`);
    const holder = holderOf.get(record.epoch);
    if (holder !== undefined && holder !== record.holder)
      problems.push(`epoch ${record.epoch} written by ${holder} and ${record.holder}`);
    holderOf.set(record.epoch, record.holder);
  });
  return problems;
}
