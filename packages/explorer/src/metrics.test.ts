import { describe, expect, it } from 'vitest';
import { between, parseExposition, reading, total } from './metrics.js';

// Lines of a local federation node's /metrics after one create (prom-client's text format 0.0.4).
const EXPOSITION = `# HELP node_operations_accepted_total Sidetree operations accepted
# TYPE node_operations_accepted_total counter
node_operations_accepted_total{type="create"} 3
node_operations_accepted_total{type="update"} 1
node_batch_cut_seconds_sum 1.5
node_batch_cut_seconds_count 2
node_pending_operations 4
node_operation_queue_depth 2
# TYPE node_activitypub_deliveries_total counter
node_activitypub_deliveries_total{outcome="delivered"} 6
node_activitypub_deliveries_total{outcome="failed",reason="a \\"quoted\\" one"} 2
node_activitypub_deliveries_total{outcome="dead-letter"} 1
not a sample line
`;

describe('parseExposition and total', () => {
  it('reads names, labels (quotes escaped) and values, skipping comments and junk', () => {
    const samples = parseExposition(EXPOSITION);
    expect(samples).toHaveLength(9);
    expect(samples.find((s) => s.labels['outcome'] === 'failed')?.labels['reason']).toBe('a \\"quoted\\" one');
    expect(total(samples, 'node_operations_accepted_total')).toBe(4);
    expect(total(samples, 'node_activitypub_deliveries_total', (l) => l['outcome'] !== 'delivered')).toBe(3);
    expect(total(samples, 'no_such_metric')).toBeUndefined();
  });
});

describe('reading and between', () => {
  it('takes the counters and gauges the node page plots', () => {
    expect(reading(1_000, parseExposition(EXPOSITION))).toEqual({
      at: 1_000,
      accepted: 4,
      queueDepth: 2,
      pending: 4,
      batchSecondsSum: 1.5,
      batchCount: 2,
      deliveryFailures: 3,
    });
  });
  it('gives operations per second and the mean latency of the batches cut in between', () => {
    const before = reading(1_000, parseExposition(EXPOSITION));
    const after = { ...before, at: 3_000, accepted: 10, batchSecondsSum: 3.5, batchCount: 4 };
    expect(between(before, after)).toEqual({ operationsPerSecond: 3, batchLatencySeconds: 1 });
  });
  it('has no latency without a new batch, and no negative rate after a restart', () => {
    const before = reading(1_000, parseExposition(EXPOSITION));
    expect(between(before, { ...before, at: 2_000, accepted: 0 })).toEqual({
      operationsPerSecond: 0,
      batchLatencySeconds: undefined,
    });
  });
});
