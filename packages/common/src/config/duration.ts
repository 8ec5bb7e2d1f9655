/**
 * Durations in Go syntax (`500ms`, `10s`, `1m`, `1h30m`, `1.5s`), the format the Go services' flags use,
 * plus a bare integer meaning milliseconds (Orb's `BATCH_WRITER_TIMEOUT` is integer ms).
 * Values are milliseconds; negative durations are rejected because no option wants one.
 */
const UNIT_MS: Record<string, number> = {
  ns: 1e-6,
  us: 1e-3,
  µs: 1e-3,
  μs: 1e-3,
  ms: 1,
  s: 1_000,
  m: 60_000,
  h: 3_600_000,
};
const SEGMENT = /(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h)/y;

export const DURATION_SYNTAX = 'use Go syntax such as 500ms, 10s, 1m or 1h30m, or integer milliseconds';

/** Parses a duration to milliseconds; throws with a reason (never echoing the input) when it is not one. */
export function parseDuration(text: string): number {
  const trimmed = text.trim();
  if (/^\d+$/.test(trimmed)) return checkRange(Number(trimmed));
  if (trimmed === '') throw new Error(`empty duration; ${DURATION_SYNTAX}`);
  let total = 0;
  let position = 0;
  while (position < trimmed.length) {
    SEGMENT.lastIndex = position;
    const match = SEGMENT.exec(trimmed);
    if (!match) throw new Error(`not a duration; ${DURATION_SYNTAX}`);
    total += Number(match[1]) * (UNIT_MS[match[2] as string] as number);
    position = SEGMENT.lastIndex;
  }
  return checkRange(total);
}

function checkRange(ms: number): number {
  if (!Number.isFinite(ms) || ms > Number.MAX_SAFE_INTEGER) throw new Error('duration is too large');
  return ms;
}

/** Formats milliseconds compactly in Go syntax (`1h30m`, `1.5s`, `250ms`, `0s`); parseDuration reads it back. */
export function formatDuration(ms: number): string {
  if (ms === 0) return '0s';
  if (ms < 1_000) return `${trimNumber(ms)}ms`;
  const hours = Math.floor(ms / 3_600_000);
  const minutes = Math.floor((ms % 3_600_000) / 60_000);
  const seconds = (ms % 60_000) / 1_000;
  return [hours ? `${hours}h` : '', minutes ? `${minutes}m` : '', seconds ? `${trimNumber(seconds)}s` : ''].join('');
}

function trimNumber(value: number): string {
  return String(Number(value.toFixed(6)));
}
