import type { Metrics } from '@anchor/common/metrics';
import type { DeadLetterReason } from '@anchor/common/mq';
import type { Counter, Gauge } from 'prom-client';

/** The dead-letter metrics (`node_` prefix added by the registry), labelled by the topic the messages failed on. */
export interface DeadLetterMetrics {
  /** Dead letters kept now. */
  kept: Gauge<'topic'>;
  /** Messages dead-lettered, by reason (max-attempts, non-retryable, invalid-message). */
  deadLettered: Counter<'topic' | 'reason'>;
  replayed: Counter<'topic'>;
  discarded: Counter<'topic'>;
  /** The oldest dead letters dropped to keep the store within `--dead-letters-max`. */
  evicted: Counter<'topic'>;
}

const REASONS: readonly DeadLetterReason[] = ['max-attempts', 'non-retryable', 'invalid-message'];

/** Every series of these topics at zero, so a fresh node's scrape shows the families and `rate()` sees the first event. */
export function seedDeadLetterSeries(metrics: DeadLetterMetrics, topics: readonly string[]): void {
  for (const topic of topics) {
    for (const reason of REASONS) metrics.deadLettered.inc({ topic, reason }, 0);
    metrics.replayed.inc({ topic }, 0);
    metrics.discarded.inc({ topic }, 0);
    metrics.evicted.inc({ topic }, 0);
  }
}

export function createDeadLetterMetrics(metrics: Metrics): DeadLetterMetrics {
  return {
    kept: metrics.gauge({
      name: 'dead_letters',
      help: 'Dead letters kept for inspection and replay',
      labelNames: ['topic'],
    }),
    deadLettered: metrics.counter({
      name: 'dead_letters_total',
      help: 'Queue messages that exhausted their retries (or were refused for good), by topic and reason',
      labelNames: ['topic', 'reason'],
    }),
    replayed: metrics.counter({
      name: 'dead_letters_replayed_total',
      help: 'Dead letters published again by an operator',
      labelNames: ['topic'],
    }),
    discarded: metrics.counter({
      name: 'dead_letters_discarded_total',
      help: 'Dead letters discarded by an operator',
      labelNames: ['topic'],
    }),
    evicted: metrics.counter({
      name: 'dead_letters_evicted_total',
      help: 'Oldest dead letters dropped beyond --dead-letters-max',
      labelNames: ['topic'],
    }),
  };
}
