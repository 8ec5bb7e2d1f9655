import { AppError } from '@anchor/common/errors';
import type { ProviderBatchOp } from '@anchor/common/storage';

/** One provider batch, all or nothing where the store allows. */
type BatchWrite = (ops: readonly ProviderBatchOp[]) => Promise<void>;

export interface CoalescedWritesOptions {
  /** Writes merged into one at most: a bound on one provider batch's size, not a tuning knob. Default 32. */
  maxMerged?: number;
  /** Never merge two writes that touch one record (store and key), so no batch holds two operations on a key. */
  distinctKeys?: boolean;
  /**
   * What a failed merged write does: `together` (default) fails every write in it with its error; `alone` halves
   * it until the one write that spoils it (a conflict, a bad value) fails by itself, so each write still stands or
   * fails alone: k bad writes among n cost about 2k·log2(n) batches. A store that is `unavailable` fails them all
   * at once either way: no write is to blame.
   */
  failure?: 'together' | 'alone';
}

interface Queued {
  ops: readonly ProviderBatchOp[];
  resolve: () => void;
  reject: (error: unknown) => void;
}

/**
 * One write at a time through `target`, the writes asked for meanwhile merged into the next one, in the order
 * they were asked. The batch writer's cuts and status changes each go through the lease's fenced write, which
 * the lease serialises and which costs a chain link of its own (on FerretDB a read, an insert and a delete
 * besides the records): merged, the writes share one link, and a store's records of several writes go in one bulk
 * write. The activity store's reference writes each read the collection counts they change, so they go one at a
 * time: merged, a busy outbox commits dozens of posts at once instead of one after another (node README, Fedify).
 *
 * With `failure: 'together'`, a merged write stands or falls as one, as a single write that failed half-way would
 * (each caller of the batch writer already treats a failed write as possibly applied: the cut reads itself back,
 * a status change is run again).
 */
export class CoalescedWrites {
  private readonly queued: Queued[] = [];
  private draining = false;
  private readonly maxMerged: number;

  constructor(
    private readonly target: BatchWrite,
    private readonly options: CoalescedWritesOptions = {},
  ) {
    this.maxMerged = options.maxMerged ?? 32;
  }

  readonly write: BatchWrite = (ops) =>
    new Promise<void>((resolve, reject) => {
      this.queued.push({ ops, resolve, reject });
      void this.drain();
    });

  private async drain(): Promise<void> {
    if (this.draining) return;
    this.draining = true;
    try {
      while (this.queued.length > 0) await this.commit(this.queued.splice(0, this.mergeable()));
    } finally {
      this.draining = false;
    }
  }

  /** How many of the queued writes, from the front, go in the next merged write. */
  private mergeable(): number {
    const limit = Math.min(this.queued.length, this.maxMerged);
    if (!this.options.distinctKeys) return limit;
    const touched = new Set<string>();
    let size = 0;
    for (; size < limit; size++) {
      const keys = (this.queued[size] as Queued).ops.map((op) => `${op.store}\u0000${op.key}`);
      if (size > 0 && keys.some((key) => touched.has(key))) break;
      for (const key of keys) touched.add(key);
    }
    return Math.max(size, 1);
  }

  private async commit(merged: readonly Queued[]): Promise<void> {
    try {
      await this.target(merged.flatMap((write) => write.ops));
      for (const write of merged) write.resolve();
    } catch (error) {
      const unavailable = error instanceof AppError && error.code === 'unavailable';
      if (merged.length === 1 || this.options.failure !== 'alone' || unavailable) {
        for (const write of merged) write.reject(error);
        return;
      }
      const half = Math.ceil(merged.length / 2);
      await this.commit(merged.slice(0, half));
      await this.commit(merged.slice(half));
    }
  }
}
