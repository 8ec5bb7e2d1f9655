/**
 * The highest rate a server holds under a latency bound, found the same way for our service and its peer: a
 * run as fast as it answers (its capacity at `connections`), then open-loop paced runs at falling fractions of
 * that capacity until one keeps p99 within the bound, serves what was offered (95%) and fails nothing. Each run
 * is a load process of its own (request-load-process.ts). CPU per operation is read over the capacity run, where
 * the most operations share whatever the server spends regardless of load (timers, batching, background work).
 */
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import type { RequestLoad, RequestLoadResult } from './request-load-process.js';

const LOAD_JS = fileURLToPath(new URL('./request-load-process.js', import.meta.url));
const FRACTIONS = [0.9, 0.75, 0.6, 0.45, 0.3, 0.2, 0.1, 0.05];
/** A paced run lasts long enough for this many answers (up to 20 s): a p99 of 75 samples is their second worst. */
const MIN_SAMPLES = 300;

export function runRequestLoad(load: RequestLoad): Promise<RequestLoadResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [LOAD_JS, JSON.stringify(load)], { stdio: ['ignore', 'pipe', 'inherit'] });
    let result: RequestLoadResult | undefined;
    createInterface({ input: child.stdout }).on('line', (line) => {
      if (line.startsWith('result ')) result = JSON.parse(line.slice('result '.length)) as RequestLoadResult;
    });
    child.once('error', reject);
    child.once('exit', (code) =>
      result && code === 0 ? resolve(result) : reject(new Error(`the load process exited with ${code}`)),
    );
  });
}

export interface HeldRate {
  /** Served per second in the held run (0 when no run held the bound). */
  rate: number;
  offered: number;
  p50: number;
  p99: number;
  /** Failed requests in the held (or last) run: any is a run not held. */
  failures: number;
  capacity: number;
  capacityP99: number;
  /** CPU ms per served request over the capacity run, every counted process (undefined where /proc is missing). */
  cpuMsPerOp: number | undefined;
  held: boolean;
  /** Lines of the requests file taken by every run (writes: the next run would start there). */
  used: number;
  /** Writes: the lines the server answered 2xx over every run (the ones it created), in file order. */
  okLines: number[];
}

export async function heldRate(options: {
  origin: string;
  requestsFile: string;
  connections: number;
  p99LimitMs: number;
  /** Random picks (reads) rather than each line once in order (writes). */
  random: boolean;
  /** CPU ms so far of everything that serves the requests (e.g. the service and its database). */
  cpuMs: () => number | undefined;
  /** Awaited after each run before its CPU is read (our node anchors what it accepted after the answer). */
  settle?: () => Promise<void>;
  capacityS?: number;
  heldS?: number;
}): Promise<HeldRate> {
  const { origin, requestsFile, connections, random } = options;
  let offset = 0;
  const okLines: number[] = [];
  const run = async (durationS: number, ratePerSecond?: number) => {
    const result = await runRequestLoad({
      origin,
      requestsFile,
      durationS,
      connections,
      random,
      offset,
      ...(ratePerSecond !== undefined ? { ratePerSecond } : {}),
    });
    offset += result.used;
    okLines.push(...result.okLines);
    return result;
  };
  await run(2);
  await options.settle?.();
  const cpuBefore = options.cpuMs();
  const capacity = await run(options.capacityS ?? 6);
  await options.settle?.();
  const cpuAfter = options.cpuMs();
  const cpuMsPerOp =
    cpuBefore === undefined || cpuAfter === undefined ? undefined : (cpuAfter - cpuBefore) / capacity.ok;
  let last: HeldRate | undefined;
  for (const fraction of FRACTIONS) {
    const offered = Math.max(1, Math.round(capacity.rate * fraction));
    const result = await run(Math.max(options.heldS ?? 5, Math.min(20, MIN_SAMPLES / offered)), offered);
    await options.settle?.();
    const held = result.p99 <= options.p99LimitMs && result.failures === 0 && result.rate >= offered * 0.95;
    last = {
      rate: held ? result.rate : 0,
      offered,
      p50: result.p50,
      p99: result.p99,
      failures: result.failures,
      capacity: capacity.rate,
      capacityP99: capacity.p99,
      cpuMsPerOp,
      held,
      used: offset,
      okLines,
    };
    if (held) return last;
  }
  return last as HeldRate;
}
