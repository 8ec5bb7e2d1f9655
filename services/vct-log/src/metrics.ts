import { REQUEST_BUCKETS, type Counter, type Histogram, type Metrics } from '@anchor/common/metrics';

/** The operations trustbloc/vct counts, each with a counter (successes) and a latency histogram, labelled by alias. */
export const OPERATIONS = [
  'add_vc',
  'get_sth',
  'get_sth_consistency',
  'get_proof_by_hash',
  'get_entries',
  'get_entry_and_proof',
  'get_issuers',
  'webfinger',
] as const;
export type Operation = (typeof OPERATIONS)[number];

/**
 * The log's metrics (prefix `vct_`): per operation `vct_<op>` (successful requests) and
 * `vct_<op>_latency_seconds`, as trustbloc/vct's `<op>` / `<op>_latency` pairs; plus the credential check
 * time, tree size, pending and integrated entries, and how long entries wait for integration.
 */
export class VctMetrics {
  private readonly counters: Record<Operation, Counter>;
  private readonly latencies: Record<Operation, Histogram>;
  readonly parseCredentialSeconds: Histogram;
  readonly duplicates: Counter;
  readonly treeSize;
  readonly integratedEntries: Counter;
  readonly integrationBatchSeconds: Histogram;
  readonly integrationDelaySeconds: Histogram;
  readonly integrationFailures: Counter;

  constructor(metrics: Metrics) {
    const counters = {} as Record<Operation, Counter>;
    const latencies = {} as Record<Operation, Histogram>;
    for (const op of OPERATIONS) {
      counters[op] = metrics.counter({
        name: op,
        help: `Successful ${op.replace(/_/g, '-')} requests`,
        labelNames: ['alias'],
      });
      latencies[op] = metrics.histogram({
        name: `${op}_latency_seconds`,
        help: `Seconds to answer ${op.replace(/_/g, '-')}`,
        labelNames: ['alias'],
        buckets: REQUEST_BUCKETS,
      });
    }
    this.counters = counters;
    this.latencies = latencies;
    this.parseCredentialSeconds = metrics.histogram({
      name: 'add_vc_parse_credential_latency_seconds',
      help: 'Seconds to check a credential (schema, JSON-LD canonicalisation, proofs) in add-vc',
      labelNames: ['alias'],
      buckets: REQUEST_BUCKETS,
    });
    this.duplicates = metrics.counter({
      name: 'add_vc_duplicates',
      help: 'add-vc requests answered with an entry already in the log',
      labelNames: ['alias'],
    });
    this.treeSize = metrics.gauge({
      name: 'tree_size',
      help: 'Entries in the signed tree head',
      labelNames: ['alias'],
    });
    this.integratedEntries = metrics.counter({
      name: 'integrated_entries',
      help: 'Entries integrated into the tree',
      labelNames: ['alias'],
    });
    this.integrationBatchSeconds = metrics.histogram({
      name: 'integration_batch_seconds',
      help: 'Seconds to integrate one batch',
      labelNames: ['alias'],
      buckets: REQUEST_BUCKETS,
    });
    this.integrationDelaySeconds = metrics.histogram({
      name: 'integration_delay_seconds',
      help: 'Seconds from accepting an entry to its integration into the tree',
      labelNames: ['alias'],
      buckets: REQUEST_BUCKETS,
    });
    this.integrationFailures = metrics.counter({
      name: 'integration_failures',
      help: 'Integration rounds that failed (entries stay pending)',
      labelNames: ['alias'],
    });
  }

  /** Starts timing an operation; call the result with `true` on success (counters count successes only). */
  time(op: Operation, alias: string): (succeeded: boolean) => void {
    const started = process.hrtime.bigint();
    return (succeeded) => this.record(op, alias, started, succeeded);
  }

  /** Records one operation that started at `started` (`process.hrtime.bigint()`). */
  record(op: Operation, alias: string, started: bigint, succeeded: boolean): void {
    this.latencies[op].observe({ alias }, Number(process.hrtime.bigint() - started) / 1e9);
    if (succeeded) this.counters[op].inc({ alias });
  }
}
