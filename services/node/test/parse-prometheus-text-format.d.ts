/** Types for parse-prometheus-text-format 1.1.1 (the package ships none): its output follows prom2json. */
declare module 'parse-prometheus-text-format' {
  export interface PrometheusSample {
    labels?: Record<string, string>;
    /** Counters, gauges, untyped. */
    value?: string;
    /** Histograms: cumulative counts by upper bound (`le`), `+Inf` included. */
    buckets?: Record<string, string>;
    /** Summaries: values by quantile. */
    quantiles?: Record<string, string>;
    count?: string;
    sum?: string;
  }

  export interface PrometheusMetricFamily {
    name: string;
    help: string;
    type: 'COUNTER' | 'GAUGE' | 'HISTOGRAM' | 'SUMMARY' | 'UNTYPED';
    metrics: PrometheusSample[];
  }

  /** Parses the text exposition format; throws `InvalidLineError` on a line it cannot read. */
  export default function parsePrometheusTextFormat(text: string): PrometheusMetricFamily[];
}
