import type { ProviderBatchOp } from '@anchor/common/storage';
import type { BatchWrite } from './anchor-batches.js';

/** Writes merged into one at most: a bound on one provider batch's size, not a tuning knob. */
const MAX_MERGED = 32;

interface Queued {
  ops: readonly ProviderBatchOp[];
  resolve: () => void;
  reject: (error: unknown) => void;
}

/**
 * One write at a time through `target`, the writes asked for meanwhile merged into the next one, in the order
 * they were asked. The batch writer's cuts and status changes each go through the lease's fenced write, which
 * the lease serialises and which costs a chain link of its own (on FerretDB a read, an insert and a delete
 * besides the records): with a few anchors in flight at once, each status change waited behind the others'
 * links. Merged, the writes share one link, and a store's records of several writes go in one bulk write.
 *
 * A merged write stands or falls as one: when it fails, every write in it fails with its error, as a single
 * write that failed half-way would (each caller already treats a failed write as possibly applied: the cut reads
 * itself back, a status change is run again).
 */
export class CoalescedWrites {
  private readonly queued: Queued[] = [];
  private draining = false;

  constructor(private readonly target: BatchWrite) {}

  readonly write: BatchWrite = (ops) =>
    new Promise<void>((resolve, reject) => {
      this.queued.push({ ops, resolve, reject });
      void this.drain();
    });

  private async drain(): Promise<void> {
    if (this.draining) return;
    this.draining = true;
    try {
      while (this.queued.length > 0) {
        const merged = this.queued.splice(0, MAX_MERGED);
        try {
          await this.target(merged.flatMap((write) => write.ops));
          for (const write of merged) write.resolve();
        } catch (error) {
          for (const write of merged) write.reject(error);
        }
      }
    } finally {
      this.draining = false;
    }
  }
}
