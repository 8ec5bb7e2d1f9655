/**
 * A prom-client registry per service (never the global one, so several services or test apps in one
 * process do not collide), default process metrics, and prefixed metric constructors.
 */
export {
  createMetrics,
  observeDuration,
  DEFAULT_BUCKETS,
  REQUEST_BUCKETS,
  type Metrics,
  type MetricsOptions,
  type MetricOptions,
  type HistogramOptions,
} from './metrics.js';
export type { Counter, Gauge, Histogram } from 'prom-client';
