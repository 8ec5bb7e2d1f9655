import http from 'node:http';

export interface Observation {
  /** When the head was first seen (ms, Date.now()). */
  at: number;
  treeSize: number;
}

/**
 * Polls get-sth every `intervalMs` and records when each new tree size was first seen: a client's view
 * of when entries became covered by a signed tree head.
 */
export class SthWatch {
  readonly observations: Observation[] = [];
  private running = true;
  private readonly agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  private readonly done: Promise<void>;

  constructor(
    private readonly url: string,
    private readonly intervalMs = 10,
  ) {
    this.done = this.loop();
  }

  async stop(): Promise<void> {
    this.running = false;
    await this.done;
    this.agent.destroy();
  }

  /** When a leaf at `index` was first covered by a head this watch saw, or undefined. */
  coveredAt(index: number): number | undefined {
    return this.observations.find((o) => o.treeSize > index)?.at;
  }

  private async loop(): Promise<void> {
    let last = -1;
    while (this.running) {
      const size = await this.treeSize().catch(() => undefined);
      if (size !== undefined && size > last) {
        this.observations.push({ at: Date.now(), treeSize: size });
        last = size;
      }
      await new Promise((resolve) => setTimeout(resolve, this.intervalMs));
    }
  }

  private treeSize(): Promise<number> {
    return new Promise((resolve, reject) => {
      http
        .get(this.url, { agent: this.agent }, (response) => {
          let body = '';
          response.setEncoding('utf8');
          response.on('data', (chunk: string) => (body += chunk));
          response.on('end', () => resolve((JSON.parse(body) as { tree_size: number }).tree_size));
        })
        .on('error', reject);
    });
  }
}
