import { AppError } from '@anchor/common/errors';

/** Seconds a client refused for a full queue is told to wait: about the time a few batches take. */
export const QUEUE_FULL_RETRY_AFTER_SECONDS = 5;

/** Intake refused because the anchoring queue is full: 503 with Retry-After. */
export class QueueFull extends AppError {
  constructor(depth: number, max: number) {
    super(
      'unavailable',
      `the node has ${depth} operations accepted and not yet anchored, at most ${max} (--max-queued-operations): retry later`,
      { headers: { 'Retry-After': String(QUEUE_FULL_RETRY_AFTER_SECONDS) } },
    );
  }
}

export interface IntakeBackPressureOptions {
  /** Most operations accepted and not yet anchored (`--max-queued-operations`). */
  maxQueued: number;
  /** How often the stored queue is counted again (default 1 s). */
  refreshMs?: number;
  /** Told the depth at every count (a gauge). */
  onDepth?: (depth: number) => void;
}

/**
 * Back-pressure at intake: above `maxQueued` operations in the store's queue (accepted, not yet anchored, on
 * every instance of the deployment) new operations are refused with a 503 and Retry-After, so a batch that keeps
 * failing (log down, witness silent, store refusing) stops the queue, and the writer's memory of it, from growing.
 *
 * The depth is the stored queue's count, read at most every `refreshMs` (in the background while there is
 * room, waited for while full so intake reopens as soon as batches drain), plus what this instance accepted
 * since. Other instances' accepts between two counts are seen at the next count: the bound is exact on one
 * instance and overshoots by at most one refresh period's accepts elsewhere.
 */
export class IntakeBackPressure {
  private depth = 0;
  private acceptedSince = 0;
  private countedAt = Number.NEGATIVE_INFINITY;
  private counting: Promise<void> | undefined;
  private readonly refreshMs: number;

  constructor(
    private readonly countQueued: () => Promise<number>,
    private readonly options: IntakeBackPressureOptions,
  ) {
    this.refreshMs = options.refreshMs ?? 1_000;
  }

  /** Throws `QueueFull` when the queue is at its bound. */
  async admit(now = Date.now()): Promise<void> {
    if (now - this.countedAt >= this.refreshMs) {
      this.counting ??= this.count().finally(() => (this.counting = undefined));
      // The first count, and any while full, is waited for; otherwise the last one stands until it lands.
      if (this.countedAt === Number.NEGATIVE_INFINITY || this.full) await this.counting;
    }
    if (this.full) throw new QueueFull(this.depth + this.acceptedSince, this.options.maxQueued);
  }

  /** An operation was written to the queue here. */
  accepted(): void {
    this.acceptedSince++;
  }

  private get full(): boolean {
    return this.depth + this.acceptedSince >= this.options.maxQueued;
  }

  private async count(): Promise<void> {
    const before = this.acceptedSince;
    try {
      this.depth = await this.countQueued();
      // The count includes (at least) what was accepted before it started.
      this.acceptedSince -= before;
      this.options.onDepth?.(this.depth);
    } catch {
      // The store cannot be counted (it is down): intake's own write answers 503 then; keep the last figure.
    } finally {
      this.countedAt = Date.now();
    }
  }
}
