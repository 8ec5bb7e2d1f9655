/**
 * The output of `npm run bench -- peers`: each pair prints our figure, the peer's and their ratio (> 1: we are
 * ahead), says so plainly where we are behind, and the run ends with one JSON line of every pair, or of why a
 * peer could not be had.
 */
import { type Target } from '../lib/report.js';

export interface Pair {
  name: string;
  unit: string;
  ours: number;
  peer: number;
  /** ours / peer for a rate; peer / ours for a cost (lower is better): > 1 always means we are ahead. */
  ratio: number;
}

export interface SkippedPair {
  name: string;
  skipped: string;
}

const pairs: Array<Pair | SkippedPair> = [];

const figure = (value: number): string =>
  Math.abs(value) >= 100 ? Math.round(value).toLocaleString('en-US') : value.toPrecision(3);

/**
 * Records and prints a pair. `lowerIsBetter` for costs (CPU per operation), where the ratio is the peer's over
 * ours. With `target`, the ratio is held against it (e.g. at least 3x) and printed as met or missed.
 */
export function pair(
  name: string,
  unit: string,
  ours: number,
  peer: number,
  options: { lowerIsBetter?: boolean; target?: Target; note?: string } = {},
): Pair {
  const ratio = options.lowerIsBetter ? peer / ours : ours / peer;
  const row: Pair = { name, unit, ours, peer, ratio };
  pairs.push(row);
  const target = options.target;
  const verdict =
    target === undefined
      ? '      '
      : (target.comparison === '>=' ? ratio >= target.value : ratio <= target.value)
        ? '[ OK ]'
        : '[MISS]';
  const targetText = target ? `   target ratio ${target.comparison} ${target.value}` : '';
  console.log(
    `${verdict} ${name.padEnd(64)} ours ${figure(ours).padStart(9)}  peer ${figure(peer).padStart(9)} ${unit.padEnd(9)} ratio ${ratio.toFixed(2)}${targetText}`,
  );
  if (!Number.isFinite(ratio)) console.log(`         ${name}: no ratio (a figure is zero or missing)`);
  else if (ratio < 1)
    console.log(`         BEHIND the peer: ${name} at ${ratio.toFixed(2)}x${options.note ? ` (${options.note})` : ''}`);
  return row;
}

/** Records a pair whose peer could not be had (or whose run failed), with the reason, and prints it. */
export function skipped(name: string, reason: string): void {
  pairs.push({ name, skipped: reason });
  console.log(`[SKIP] ${name}: ${reason}`);
}

/** The last line of the bench: `{"pairs":[...]}`. */
export function printPairs(): void {
  console.log(JSON.stringify({ pairs }));
}
