/**
 * Rounds of background work run one at a time: asked while one is in flight, one more round follows it
 * (however often it was asked meanwhile); after `close`, no new round starts.
 */
export class CoalescedRounds {
  private running: Promise<void> | undefined;
  private again = false;
  private closed = false;

  constructor(private readonly round: () => Promise<void>) {}

  /** One round now, or after the one in flight; resolves when that round is done. */
  run(): Promise<void> {
    if (this.closed) return Promise.resolve();
    if (this.running) {
      this.again = true;
      return this.running;
    }
    this.running = (async () => {
      do {
        this.again = false;
        await this.round();
      } while (this.again && !this.closed);
    })().finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  /** Lets the round in flight finish; starts none after it. */
  async close(): Promise<void> {
    this.closed = true;
    await this.running;
  }
}
