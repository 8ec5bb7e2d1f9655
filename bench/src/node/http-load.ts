import autocannon from 'autocannon';

export interface LoadResult {
  /** 2xx responses per second over the run. */
  rate: number;
  ok: number;
  failures: number;
  /** Latency of every 2xx response (ms, sub-millisecond precision). */
  latenciesMs: number[];
}

/**
 * Drives the node with autocannon (its own lean HTTP client, in this process; the node runs in another):
 * `next()` gives each request's method, path and body, so every request can be distinct. Used to find
 * how fast the node answers; a held rate uses paced-load.ts (see there why not autocannon's `overallRate`).
 */
export async function httpLoad(options: {
  origin: string;
  next: () => { method: 'GET' | 'POST'; path: string; body?: Buffer };
  durationS: number;
  connections: number;
  onOk?: (request: { path: string; body?: Buffer }, answeredAt: number) => void;
}): Promise<LoadResult> {
  const latenciesMs: number[] = [];
  const instance = autocannon({
    url: options.origin,
    connections: options.connections,
    duration: options.durationS,
    headers: { 'content-type': 'application/json' },
    requests: [
      {
        setupRequest: (request, context) => {
          const next = options.next();
          context.sent = next;
          return { ...request, method: next.method, path: next.path, ...(next.body ? { body: next.body } : {}) };
        },
        onResponse: (status, _body, context) => {
          if (status >= 200 && status < 300)
            options.onOk?.(context.sent as { path: string; body?: Buffer }, Date.now());
        },
      },
    ],
  });
  instance.on('response', (_client, statusCode, _bytes, responseTime) => {
    if (statusCode >= 200 && statusCode < 300) latenciesMs.push(responseTime);
  });
  const result = await instance;
  return {
    rate: result['2xx'] / result.duration,
    ok: result['2xx'],
    failures: result.non2xx + result.errors + result.timeouts,
    latenciesMs,
  };
}
