import { waitFor } from '@anchor/testing/process';
import { metadataOf, postOperation, resolveDid, TestDid } from '../src/testing/test-node.js';
import type { NodeProcess } from './node-process.js';

/**
 * What the node's fault tests share: creates posted in a loop while the fault is made (counting answers
 * by status, keeping the acknowledged DIDs), the check that every acknowledged DID is published, and
 * reads of the node's health and metrics.
 */
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export class CreateLoad {
  readonly acknowledged: TestDid[] = [];
  /** Distinct refusal messages (digits as N), for the printed figures. */
  readonly messages = new Set<string>();
  lastAckAt = 0;
  /** The slowest answer so far, in ms. */
  worstMs = 0;
  private readonly statuses = new Map<number, number>();
  private running = true;
  private readonly workers: Promise<void>[];

  /** `url` is read before each request, so the load follows a node restarted on another process. */
  constructor(
    private readonly url: () => string,
    options: { concurrency?: number; pauseMs?: number } = {},
  ) {
    this.workers = Array.from({ length: options.concurrency ?? 4 }, () => this.work(options.pauseMs ?? 20));
  }

  private async work(pauseMs: number): Promise<void> {
    while (this.running) {
      const did = new TestDid(this.url());
      const started = Date.now();
      try {
        const answer = await postOperation(this.url(), did.created.request);
        this.worstMs = Math.max(this.worstMs, Date.now() - started);
        this.statuses.set(answer.status, this.count(answer.status) + 1);
        if (answer.status === 200) {
          this.acknowledged.push(did);
          this.lastAckAt = Date.now();
        } else {
          const message = String((answer.body as { message?: string }).message);
          this.messages.add(`${answer.status} ${message.replace(/\d+/g, 'N').slice(0, 120)}`);
        }
      } catch {
        this.statuses.set(0, this.count(0) + 1);
      }
      await sleep(pauseMs);
    }
  }

  /** Answers with this status so far (0: no answer). */
  count(status: number): number {
    return this.statuses.get(status) ?? 0;
  }

  /** Answers with a 5xx status so far. */
  serverErrors(): number {
    return [...this.statuses].filter(([status]) => status >= 500 && status !== 503).reduce((sum, [, n]) => sum + n, 0);
  }

  summary(): string {
    return [...this.statuses].map(([status, n]) => `${status || 'no answer'} ${n}`).join(', ');
  }

  /** Waits for a create acknowledged after `at`; how long after it. */
  async ackAfter(at: number, timeoutMs = 30_000): Promise<number> {
    await waitFor(async () => this.lastAckAt > at, { timeoutMs, intervalMs: 50, description: 'a create acknowledged' });
    return this.lastAckAt - at;
  }

  async stop(): Promise<void> {
    this.running = false;
    await Promise.all(this.workers);
  }
}

/** The acknowledged DIDs not resolving as published on `url` within `timeoutMs` (empty: nothing lost). */
export async function unpublished(url: string, dids: readonly TestDid[], timeoutMs: number): Promise<string[]> {
  const pending = new Set(dids);
  try {
    await waitFor(
      async () => {
        await Promise.all(
          [...pending].slice(0, 50).map(async (did) => {
            const answer = await resolveDid(url, did.did);
            if (
              answer.status === 200 &&
              (metadataOf(answer)?.method as { published?: boolean } | undefined)?.published === true
            )
              pending.delete(did);
          }),
        );
        return pending.size === 0;
      },
      { timeoutMs, intervalMs: 200, description: `${pending.size} acknowledged DIDs to be published` },
    );
  } catch {
    // what is still pending is the answer
  }
  return [...pending].map((did) => did.did);
}

export async function health(node: NodeProcess): Promise<{ status: number; body: Record<string, string> }> {
  const response = await fetch(`${node.url}/healthcheck`, { headers: { accept: 'application/json' } });
  return { status: response.status, body: (await response.json()) as Record<string, string> };
}

/**
 * A sample of the node's `/metrics`: one series by its full name and labels
 * (`node_activitypub_deliveries_total{outcome="retry"}`), or the sum of a family's series (`node_x_total{`).
 */
export async function metric(node: NodeProcess, series: string): Promise<number> {
  const text = await (await fetch(`${node.url}/metrics`)).text();
  return text
    .split('\n')
    .filter((line) => line.startsWith(series) && (series.endsWith('{') || line[series.length] === ' '))
    .reduce((sum, line) => sum + Number(line.slice(line.lastIndexOf(' ') + 1)), 0);
}

/** Reads the node's health every 200 ms until stopped, keeping the slowest answer (ms). */
export class HealthProbe {
  worstMs = 0;
  private running = true;
  private readonly loop: Promise<void>;

  constructor(private readonly node: NodeProcess) {
    this.loop = this.probe();
  }

  private async probe(): Promise<void> {
    while (this.running) {
      const started = Date.now();
      await fetch(`${this.node.url}/healthcheck`).then((r) => r.arrayBuffer());
      this.worstMs = Math.max(this.worstMs, Date.now() - started);
      await sleep(200);
    }
  }

  async stop(): Promise<void> {
    this.running = false;
    await this.loop;
  }
}
