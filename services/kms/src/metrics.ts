import { AppError } from '@anchor/common/errors';
import type { Metrics } from '@anchor/common/metrics';

const LATENCY_BUCKETS = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1];

/** How an operation ended: `success`, `rejected` (4xx: bad input, unknown key, no credentials) or `failed` (5xx). */
export type Outcome = 'success' | 'rejected' | 'failed';

/**
 * The kms's metrics (prefix `kms_`): `kms_operations_total{operation,outcome}` and
 * `kms_operation_duration_seconds{operation}`. Labels name the operation only: never a keystore, key or byte
 * of a request.
 */
export class KmsMetrics {
  private readonly operations;
  private readonly durations;

  constructor(metrics: Metrics) {
    this.operations = metrics.counter({
      name: 'operations_total',
      help: 'kms operations by type and outcome (success, rejected: 4xx, failed: 5xx)',
      labelNames: ['operation', 'outcome'],
    });
    this.durations = metrics.histogram({
      name: 'operation_duration_seconds',
      help: 'Seconds to answer a kms operation, whatever its outcome',
      labelNames: ['operation'],
      buckets: LATENCY_BUCKETS,
    });
  }

  /** Runs `work` as one `operation`, counting its outcome and timing it. */
  async measure<T>(operation: string, work: () => Promise<T>): Promise<T> {
    const started = process.hrtime.bigint();
    let outcome: Outcome = 'failed';
    try {
      const result = await work();
      outcome = 'success';
      return result;
    } catch (error) {
      outcome = error instanceof AppError && error.status < 500 ? 'rejected' : 'failed';
      throw error;
    } finally {
      this.durations.observe({ operation }, Number(process.hrtime.bigint() - started) / 1e9);
      this.operations.inc({ operation, outcome });
    }
  }
}
