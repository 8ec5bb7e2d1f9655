import { AppError } from '@anchor/common/errors';
import type { Store } from '@anchor/common/storage';

interface Pending<T> {
  key: string;
  value: T;
  resolve(inserted: boolean): void;
  reject(error: unknown): void;
}

/**
 * Insert-if-absent writes grouped into one atomic batch per commit: while a batch is being committed (an fsync on
 * LMDB, where every write is its own transaction), the inserts that arrive meanwhile wait and go together in the
 * next one. Each caller's promise resolves once its record is durable, as `store.insert` would; a key that exists
 * aborts its batch, which is then written one insert at a time so only that caller hears `false`.
 */
export class GroupedInserts<T extends object> {
  private pending: Pending<T>[] = [];
  private flushing = false;

  constructor(private readonly store: Store<T>) {}

  insert(key: string, value: T): Promise<boolean> {
    return new Promise((resolve, reject) => {
      this.pending.push({ key, value, resolve, reject });
      if (!this.flushing) void this.flush();
    });
  }

  private async flush(): Promise<void> {
    this.flushing = true;
    // Callers in the same turn (a burst of requests parsed together) join the first group.
    await Promise.resolve();
    while (this.pending.length > 0) {
      const group = this.pending;
      this.pending = [];
      await this.write(group);
    }
    this.flushing = false;
  }

  private async write(group: Pending<T>[]): Promise<void> {
    try {
      await this.store.batch(group.map(({ key, value }) => ({ op: 'insert' as const, key, value })));
      for (const entry of group) entry.resolve(true);
    } catch (error) {
      if (!(error instanceof AppError && error.code === 'conflict')) {
        for (const entry of group) entry.reject(error);
        return;
      }
      for (const entry of group) await this.store.insert(entry.key, entry.value).then(entry.resolve, entry.reject);
    }
  }
}
