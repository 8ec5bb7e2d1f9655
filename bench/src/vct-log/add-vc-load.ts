import autocannon from 'autocannon';
import { benchCredential } from './credentials.js';

export interface AddVcSample {
  n: number;
  /** When the response arrived (ms, Date.now()). */
  answeredAt: number;
  /** The acknowledged leaf timestamp. */
  timestamp: number;
}

export interface AddVcLoadResult {
  perSecond: number;
  completed: number;
  failures: number;
  latencyP99Ms: number;
  samples: AddVcSample[];
}

/**
 * Drives add-vc with autocannon (its own HTTP client: lean on CPU, which the service shares on this
 * machine) over keep-alive connections, every request a distinct credential, for a duration or a count.
 * One response in `sampleEvery` is recorded for the integration-latency measurement.
 */
export async function addVcLoad(options: {
  origin: string;
  run: string;
  firstN: number;
  connections: number;
  durationS?: number;
  amount?: number;
  sampleEvery?: number;
}): Promise<AddVcLoadResult & { nextN: number }> {
  let next = options.firstN;
  const samples: AddVcSample[] = [];
  const sampleEvery = options.sampleEvery ?? 0;
  const result = await autocannon({
    url: `${options.origin}/main/v1/add-vc`,
    method: 'POST',
    connections: options.connections,
    headers: { 'content-type': 'application/json' },
    ...(options.durationS !== undefined ? { duration: options.durationS } : {}),
    ...(options.amount !== undefined ? { amount: options.amount } : {}),
    requests: [
      {
        setupRequest: (request, context) => {
          const n = next++;
          context.n = n;
          return { ...request, body: JSON.stringify(benchCredential(options.run, n)) };
        },
        onResponse: (status, body, context) => {
          const n = context.n as number;
          if (status === 200 && sampleEvery > 0 && n % sampleEvery === 0) {
            samples.push({
              n,
              answeredAt: Date.now(),
              timestamp: (JSON.parse(body) as { timestamp: number }).timestamp,
            });
          }
        },
      },
    ],
  });
  return {
    perSecond: result['2xx'] / result.duration,
    completed: result['2xx'],
    failures: result.non2xx + result.errors + result.timeouts,
    latencyP99Ms: result.latency.p99,
    samples,
    nextN: next,
  };
}
