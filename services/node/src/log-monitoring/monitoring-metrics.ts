import type { Metrics } from '@anchor/common/metrics';
import type { Counter, Gauge } from 'prom-client';

/** The metrics of log and proof monitoring (`node_` prefix added by the registry). */
export interface MonitoringMetrics {
  /** Log checks by outcome: verified, unchanged, stale, error, failed, skipped (a failed log). */
  logChecks: Counter<'outcome'>;
  /** Misbehaviour found, by kind: bad-signature, fork, inconsistent, rolled-back, root-mismatch. */
  logFailures: Counter<'kind'>;
  /** 1 for an active monitored log marked failed, else 0. */
  logFailed: Gauge<'log'>;
  /** Logged credentials proven included. */
  proofsConfirmed: Counter<string>;
  /** Logged credentials found missing past the deadline. */
  proofsMissing: Counter<string>;
  /** Missing credentials logged again. */
  proofsResubmitted: Counter<string>;
  /** Watched credentials by status (unconfirmed, missing, resubmitted), counted each round. */
  proofsPending: Gauge<'status'>;
}

export const LOG_CHECK_OUTCOMES = ['verified', 'unchanged', 'stale', 'error', 'failed', 'skipped'] as const;
export const LOG_FAILURE_KINDS = ['bad-signature', 'fork', 'inconsistent', 'rolled-back', 'root-mismatch'] as const;
export const PENDING_PROOF_STATUSES = ['unconfirmed', 'missing', 'resubmitted'] as const;

export function createMonitoringMetrics(metrics: Metrics): MonitoringMetrics {
  const monitoring: MonitoringMetrics = {
    logChecks: metrics.counter({
      name: 'vct_log_monitor_checks_total',
      help: 'Transparency log checks by outcome',
      labelNames: ['outcome'],
    }),
    logFailures: metrics.counter({
      name: 'vct_log_monitor_failures_total',
      help: 'Transparency log misbehaviour found, by kind',
      labelNames: ['kind'],
    }),
    logFailed: metrics.gauge({
      name: 'vct_log_monitor_failed',
      help: '1 for an active monitored transparency log marked failed',
      labelNames: ['log'],
    }),
    proofsConfirmed: metrics.counter({
      name: 'vct_proof_monitor_confirmed_total',
      help: 'Logged anchor credentials proven included in their log',
    }),
    proofsMissing: metrics.counter({
      name: 'vct_proof_monitor_missing_total',
      help: 'Logged anchor credentials not included in their log by the deadline',
    }),
    proofsResubmitted: metrics.counter({
      name: 'vct_proof_monitor_resubmitted_total',
      help: 'Missing anchor credentials logged again',
    }),
    proofsPending: metrics.gauge({
      name: 'vct_proof_monitor_pending',
      help: 'Watched anchor credentials not yet proven included, by status',
      labelNames: ['status'],
    }),
  };
  // Series at zero from the start, so rates see the first event.
  for (const outcome of LOG_CHECK_OUTCOMES) monitoring.logChecks.labels({ outcome }).inc(0);
  for (const kind of LOG_FAILURE_KINDS) monitoring.logFailures.labels({ kind }).inc(0);
  for (const status of PENDING_PROOF_STATUSES) monitoring.proofsPending.labels({ status }).set(0);
  monitoring.proofsConfirmed.inc(0);
  monitoring.proofsMissing.inc(0);
  monitoring.proofsResubmitted.inc(0);
  return monitoring;
}
