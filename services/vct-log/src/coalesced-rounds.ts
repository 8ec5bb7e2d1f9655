/**
 * Rounds of work run one at a time: asked while one is in flight, one more round follows it (however often
 * it was asked meanwhile), and every call resolves when the first round that started after it is done. So a
 * round always sees what was there when it was asked for, and a caller never waits for more than the round
 * in flight and the next, however steady the stream of calls. After `close`, no new round starts.
 */
export class CoalescedRounds {
  private running: Promise<void> | undefined;
  /** The callers waiting for the round after the one in flight. */
  private waiting: { promise: Promise<void>; resolve: () => void; reject: (error: unknown) => void } | undefined;
  private closed = false;

  constructor(private readonly round: () => Promise<void>) {}

  /** One round now, or after the one in flight; resolves (or rejects) with the first round started after the call. */
  run(): Promise<void> {
    if (this.closed) return Promise.resolve();
    if (!this.running) return this.start();
    if (!this.waiting) {
      let resolve!: () => void;
      let reject!: (error: unknown) => void;
      const promise = new Promise<void>((yes, no) => {
        resolve = yes;
        reject = no;
      });
      this.waiting = { promise, resolve, reject };
    }
    return this.waiting.promise;
  }

  /** Lets the round in flight finish; starts none after it (callers waiting for one are resolved). */
  async close(): Promise<void> {
    this.closed = true;
    await this.running?.catch(() => undefined);
  }

  private start(): Promise<void> {
    const round = Promise.resolve().then(() => this.round());
    const running = round.finally(() => {
      // Synchronously, so no call slips in between this round's end and the next one's start.
      this.running = undefined;
      const waiting = this.waiting;
      this.waiting = undefined;
      if (!waiting) return;
      if (this.closed) waiting.resolve();
      else this.start().then(waiting.resolve, waiting.reject);
    });
    this.running = running;
    return running;
  }
}
