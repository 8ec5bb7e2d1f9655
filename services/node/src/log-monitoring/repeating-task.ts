import { errorMessage } from '@anchor/common/errors';
import type { Logger } from '@anchor/common/log';

/**
 * Runs `round` every `intervalMs` (measured from the end of one round to the start of the next, so rounds
 * never overlap) while started; a failed round is logged and the next one runs as usual. `stop` waits for
 * a round under way.
 */
export class RepeatingTask {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopped = true;

  constructor(
    private readonly name: string,
    private readonly intervalMs: number,
    private readonly round: () => Promise<void>,
    private readonly log: Logger,
  ) {}

  start(): void {
    this.stopped = false;
    this.schedule(this.intervalMs);
  }

  private runNow(): Promise<void> {
    this.running ??= this.round()
      .catch((error: unknown) =>
        this.log.warn(`${this.name} failed; retrying at the next interval`, { err: errorMessage(error) }),
      )
      .finally(() => {
        this.running = undefined;
      });
    return this.running;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.running;
  }

  private schedule(delayMs: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      void this.runNow().finally(() => this.schedule(this.intervalMs));
    }, delayMs);
    this.timer.unref();
  }
}
