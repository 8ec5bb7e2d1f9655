/** The slice of autocannon 8's API the benchmarks use (the package ships no types). */
declare module 'autocannon' {
  import type { IncomingHttpHeaders } from 'node:http';

  interface RequestSpec {
    method?: string;
    path?: string;
    headers?: Record<string, string>;
    body?: string | Buffer;
  }

  interface Request extends RequestSpec {
    /** Called before each request on a connection; returns the request to send. */
    setupRequest?: (request: RequestSpec, context: Record<string, unknown>) => RequestSpec;
    /** Called with each response on a connection. */
    onResponse?: (status: number, body: string, context: Record<string, unknown>, headers: IncomingHttpHeaders) => void;
  }

  interface Options {
    url: string;
    method?: string;
    headers?: Record<string, string>;
    connections?: number;
    /** Seconds. */
    duration?: number;
    /** Requests to send instead of a duration. */
    amount?: number;
    pipelining?: number;
    /**
     * Requests per second over all connections. Beware: autocannon enforces it as a per-second quota per
     * connection (each sends as fast as it can until its share is used up, then idles until the next
     * second), so latencies under this option are latencies at saturation, in bursts.
     */
    overallRate?: number;
    timeout?: number;
    requests?: Request[];
  }

  interface Histogram {
    average: number;
    mean: number;
    p50: number;
    p99: number;
    max: number;
    total: number;
  }

  interface Result {
    requests: Histogram & { sent: number };
    latency: Histogram;
    duration: number;
    errors: number;
    timeouts: number;
    non2xx: number;
    '2xx': number;
  }

  /** The running instance: a promise of the result that also emits per-response events. */
  interface Instance extends Promise<Result> {
    /** `responseTime` in milliseconds, with sub-millisecond precision (the result's histogram keeps whole ms). */
    on(
      event: 'response',
      listener: (client: unknown, statusCode: number, resBytes: number, responseTime: number) => void,
    ): Instance;
  }

  function autocannon(options: Options): Instance;
  export default autocannon;
}
