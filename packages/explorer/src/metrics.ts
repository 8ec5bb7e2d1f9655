/**
 * Reading a node's Prometheus text exposition (`/metrics`) for the node page: each sample's value summed over
 * its labels, or over the labels that match. Pure, so unit-tested on a node's own output.
 */

export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

const LINE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{([^}]*)\})?\s+(\S+)/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;

export function parseExposition(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const match = LINE.exec(line);
    if (match === null) continue;
    const labels: Record<string, string> = {};
    for (const label of (match[2] ?? '').matchAll(LABEL)) labels[label[1]!] = label[2]!;
    const value = Number(match[3]);
    if (Number.isFinite(value)) samples.push({ name: match[1]!, labels, value });
  }
  return samples;
}

/** The sum of a metric's samples, over those whose labels pass `where`; undefined when the node has none. */
export function total(
  samples: Sample[],
  name: string,
  where: (labels: Record<string, string>) => boolean = () => true,
): number | undefined {
  const chosen = samples.filter((sample) => sample.name === name && where(sample.labels));
  return chosen.length === 0 ? undefined : chosen.reduce((sum, sample) => sum + sample.value, 0);
}

/** What the node page plots, read at one moment. Counters stay counters: rates come from two readings. */
export interface Reading {
  at: number;
  accepted: number;
  queueDepth: number;
  pending: number;
  batchSecondsSum: number;
  batchCount: number;
  deliveryFailures: number;
}

export function reading(at: number, samples: Sample[]): Reading {
  return {
    at,
    accepted: total(samples, 'node_operations_accepted_total') ?? 0,
    queueDepth: total(samples, 'node_operation_queue_depth') ?? 0,
    pending: total(samples, 'node_pending_operations') ?? 0,
    batchSecondsSum: total(samples, 'node_batch_cut_seconds_sum') ?? 0,
    batchCount: total(samples, 'node_batch_cut_seconds_count') ?? 0,
    deliveryFailures:
      total(samples, 'node_activitypub_deliveries_total', (labels) => labels['outcome'] !== 'delivered') ?? 0,
  };
}

/** Between two readings: operations per second, and the mean batch latency of the batches cut in between. */
export function between(
  before: Reading,
  after: Reading,
): { operationsPerSecond: number; batchLatencySeconds: number | undefined } {
  const seconds = (after.at - before.at) / 1000;
  const batches = after.batchCount - before.batchCount;
  return {
    // A restarted node's counters start again from zero: no negative rate.
    operationsPerSecond: seconds > 0 ? Math.max(after.accepted - before.accepted, 0) / seconds : 0,
    batchLatencySeconds: batches > 0 ? (after.batchSecondsSum - before.batchSecondsSum) / batches : undefined,
  };
}
