import http from 'node:http';

/**
 * Accept → published, end to end as a client sees it: for sampled creates, from the 200 of the POST to
 * the first resolution showing `method.published = true`, polled every `intervalMs` (so each sample is
 * late by at most that much). Polls go over a few keep-alive connections with node:http and look for the
 * flag in the text: the probe shares the machine with the node and the load generator, and `fetch` plus
 * JSON parsing per poll cost enough CPU to change what is measured.
 */
export class PublishProbe {
  private readonly agent = new http.Agent({ keepAlive: true, maxSockets: 4 });
  private readonly waiting = new Map<string, number>();
  readonly latenciesMs: number[] = [];
  /** Resolutions requested so far: the load the probe itself puts on the node. */
  polls = 0;
  private timer: NodeJS.Timeout | undefined;
  private polling = false;

  constructor(
    private readonly origin: string,
    private readonly intervalMs = 50,
  ) {}

  start(): void {
    this.timer = setInterval(() => void this.poll(), this.intervalMs);
  }

  watch(did: string, acceptedAt: number): void {
    this.waiting.set(did, acceptedAt);
  }

  get pending(): number {
    return this.waiting.size;
  }

  /** Waits for the samples still pending (up to `timeoutMs`), then stops polling. */
  async drain(timeoutMs = 30_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (this.waiting.size > 0 && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, this.intervalMs));
    if (this.timer) clearInterval(this.timer);
    this.agent.destroy();
  }

  private published(did: string): Promise<boolean> {
    this.polls++;
    return new Promise((resolve) => {
      const request = http.get(`${this.origin}/sidetree/v1/identifiers/${did}`, { agent: this.agent }, (response) => {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (text += chunk));
        response.on('end', () => resolve(response.statusCode === 200 && text.includes('"published":true')));
      });
      request.on('error', () => resolve(false));
    });
  }

  private async poll(): Promise<void> {
    if (this.polling) return;
    this.polling = true;
    try {
      await Promise.all(
        [...this.waiting].map(async ([did, acceptedAt]) => {
          if ((await this.published(did)) && this.waiting.delete(did)) this.latenciesMs.push(Date.now() - acceptedAt);
        }),
      );
    } catch {
      // a failed poll is retried on the next tick
    } finally {
      this.polling = false;
    }
  }
}

/**
 * The q-quantile of a Prometheus histogram (linear within the bucket), from the /metrics text; with a
 * `baseline` text, of the observations made since it was taken.
 */
export function histogramQuantile(
  metricsText: string,
  name: string,
  q: number,
  baseline?: string,
  series?: string,
): number {
  const since = bucketsOf(metricsText, name, series);
  const before =
    baseline === undefined
      ? new Map<number, number>()
      : new Map(bucketsOf(baseline, name, series).map((bucket) => [bucket.le, bucket.count]));
  const buckets = since.map((bucket) => ({ le: bucket.le, count: bucket.count - (before.get(bucket.le) ?? 0) }));
  const total = buckets.at(-1)?.count ?? 0;
  if (total === 0) return Number.NaN;
  const rank = q * total;
  let previous = { le: 0, count: 0 };
  for (const bucket of buckets) {
    if (bucket.count >= rank) {
      if (!Number.isFinite(bucket.le)) return previous.le;
      const inBucket = bucket.count - previous.count;
      return previous.le + (bucket.le - previous.le) * (inBucket === 0 ? 1 : (rank - previous.count) / inBucket);
    }
    previous = bucket;
  }
  return previous.le;
}

/** The buckets of a histogram; with `series` (a label pair such as `type="create"`), of the series that has it. */
function bucketsOf(metricsText: string, name: string, series?: string): Array<{ le: number; count: number }> {
  const buckets: Array<{ le: number; count: number }> = [];
  const pattern = new RegExp(`^${name}_bucket\\{([^}]*)\\} (\\d+(?:\\.\\d+)?)$`, 'gm');
  for (const match of metricsText.matchAll(pattern)) {
    const labels = match[1] as string;
    if (series !== undefined && !labels.split(',').includes(series)) continue;
    const le = /(?:^|,)le="([^"]+)"/.exec(labels)?.[1];
    if (le === undefined) continue;
    buckets.push({ le: le === '+Inf' ? Number.POSITIVE_INFINITY : Number(le), count: Number(match[2]) });
  }
  return buckets.sort((a, b) => a.le - b.le);
}
