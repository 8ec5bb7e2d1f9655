/**
 * Uniform benchmark output: every figure is printed beside the target it is held against, and the run
 * ends with how many targets were met. Benchmarks never fail the build; they report.
 */
export type Comparison = '>=' | '<=';

export interface Target {
  value: number;
  comparison: Comparison;
}

interface Row {
  section: string;
  name: string;
  value: number;
  unit: string;
  target?: Target;
}

const rows: Row[] = [];

export const atLeast = (value: number): Target => ({ value, comparison: '>=' });
export const atMost = (value: number): Target => ({ value, comparison: '<=' });

export function met(row: { value: number; target?: Target }): boolean | undefined {
  if (!row.target) return undefined;
  return row.target.comparison === '>=' ? row.value >= row.target.value : row.value <= row.target.value;
}

function format(value: number): string {
  if (Number.isInteger(value) || Math.abs(value) >= 100) return Math.round(value).toLocaleString('en-US');
  return value.toPrecision(3);
}

/** Records and prints one figure, e.g. `report('store', 'lmdb batched puts', 81234, 'ops/s', atLeast(50_000))`. */
export function report(section: string, name: string, value: number, unit: string, target?: Target): void {
  const row: Row = target === undefined ? { section, name, value, unit } : { section, name, value, unit, target };
  rows.push(row);
  const ok = met(row);
  const verdict = ok === undefined ? '      ' : ok ? '[ OK ]' : '[MISS]';
  const targetText = target ? `   target ${target.comparison} ${format(target.value)} ${unit}` : '';
  console.log(`${verdict} ${section.padEnd(10)} ${name.padEnd(52)} ${format(value).padStart(12)} ${unit}${targetText}`);
}

/** Prints `N of M targets met` and returns the rows (for the aggregate runner). */
export function summary(): { met: number; total: number } {
  const judged = rows.filter((r) => r.target);
  const ok = judged.filter((r) => met(r)).length;
  console.log(`\n${ok} of ${judged.length} targets met`);
  return { met: ok, total: judged.length };
}

/** Percentile of a sample (nearest-rank), in the sample's unit. */
export function percentile(samples: readonly number[], p: number): number {
  if (samples.length === 0) return Number.NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank] as number;
}

/** Runs `fn` repeatedly for about `ms` milliseconds after a warm-up and returns operations per second. */
export async function rate(
  fn: () => unknown | Promise<unknown>,
  options: { ms?: number; warmupMs?: number; batch?: number } = {},
): Promise<number> {
  const { ms = 2000, warmupMs = 300, batch = 16 } = options;
  const runFor = async (duration: number): Promise<number> => {
    let count = 0;
    const start = performance.now();
    while (performance.now() - start < duration) {
      for (let i = 0; i < batch; i++) await fn();
      count += batch;
    }
    return count / ((performance.now() - start) / 1000);
  };
  await runFor(warmupMs);
  return runFor(ms);
}
