import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics, type Metric } from 'prom-client';

/** Seconds buckets from 5 ms to 10 s: the ones the spec shows for `node_activitypub_inbox_handler_seconds`. */
export const DEFAULT_BUCKETS: readonly number[] = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** Seconds buckets from 0.5 ms to 5 s: the answer time of one API request that may sign, verify or write. */
export const REQUEST_BUCKETS: readonly number[] = [
  0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5,
];

export interface MetricsOptions {
  /** Prepended to every metric made through this object, e.g. `node_`. Process metrics stay unprefixed. */
  prefix?: string;
  /** Labels added to every series (e.g. `{ instance: 'node-1' }`). */
  defaultLabels?: Record<string, string>;
  /** Default process metrics (CPU, memory, event loop, GC). Default true. */
  processMetrics?: boolean;
}

export interface MetricOptions<L extends string> {
  /** Name without the prefix: `activitypub_inbox_handler_seconds`. */
  name: string;
  help: string;
  labelNames?: readonly L[];
}

export interface HistogramOptions<L extends string> extends MetricOptions<L> {
  buckets?: readonly number[];
}

export interface Metrics {
  readonly registry: Registry;
  readonly prefix: string;
  /**
   * Get-or-create: asking twice for the same name returns the same metric, so components built more
   * than once (tests, restarts) share it. Asking for an existing name with another type throws.
   */
  counter<L extends string = string>(options: MetricOptions<L>): Counter<L>;
  gauge<L extends string = string>(options: MetricOptions<L>): Gauge<L>;
  histogram<L extends string = string>(options: HistogramOptions<L>): Histogram<L>;
  /** The text exposition format for a scraper (`GET /metrics`). */
  exposition(): Promise<{ contentType: string; body: string }>;
}

export function createMetrics(options: MetricsOptions = {}): Metrics {
  const registry = new Registry();
  const prefix = options.prefix ?? '';
  if (options.defaultLabels) registry.setDefaultLabels(options.defaultLabels);
  if (options.processMetrics ?? true) collectDefaultMetrics({ register: registry });

  function getOrCreate<M extends Metric>(type: new (config: never) => M, name: string, create: () => M): M {
    const existing = registry.getSingleMetric(prefix + name);
    if (existing === undefined) return create();
    if (!(existing instanceof type)) throw new Error(`metric ${prefix + name} already exists with another type`);
    return existing;
  }

  return {
    registry,
    prefix,
    counter: <L extends string>({ name, help, labelNames = [] }: MetricOptions<L>) =>
      getOrCreate(
        Counter,
        name,
        () => new Counter<L>({ name: prefix + name, help, labelNames, registers: [registry] }),
      ) as Counter<L>,
    gauge: <L extends string>({ name, help, labelNames = [] }: MetricOptions<L>) =>
      getOrCreate(
        Gauge,
        name,
        () => new Gauge<L>({ name: prefix + name, help, labelNames, registers: [registry] }),
      ) as Gauge<L>,
    histogram: <L extends string>({ name, help, labelNames = [], buckets = DEFAULT_BUCKETS }: HistogramOptions<L>) =>
      getOrCreate(
        Histogram,
        name,
        () => new Histogram<L>({ name: prefix + name, help, labelNames, buckets: [...buckets], registers: [registry] }),
      ) as Histogram<L>,
    exposition: async () => ({ contentType: registry.contentType, body: await registry.metrics() }),
  };
}

/**
 * Times `work` into a seconds histogram, whether it resolves or throws:
 * `await observeDuration(inboxSeconds, { type: activity.type }, () => handle(activity))`.
 */
export async function observeDuration<L extends string, T>(
  histogram: Histogram<L>,
  labels: Partial<Record<L, string | number>>,
  work: () => Promise<T>,
): Promise<T> {
  const end = histogram.startTimer(labels);
  try {
    return await work();
  } finally {
    end();
  }
}
