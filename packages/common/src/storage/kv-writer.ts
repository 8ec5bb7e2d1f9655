/**
 * The one way writes reach an ordered key-value backend. A write is planned on the event loop against the
 * committed state plus the records of writes already queued, and its puts and removes are then handed
 * over as one queued write (`KvBackend.writeQueued`): on LMDB the write thread applies them with no
 * callback into JavaScript, so the B-tree work leaves the event loop.
 *
 * Why planning outside the transaction is exact: one process owns a backend, every write of its stores
 * goes through this writer, and the backend applies queued writes in the order they were queued. So the
 * state a new write will meet is the committed state with every queued write applied in turn, which is
 * what `recordOf` answers. Two things could break that, and both are handled:
 *   - a transaction callback (`transaction`, used to rebuild derived entries) is queued and has not run:
 *     its effect is unknown until it runs, so while one is queued writes are planned inside transactions
 *     too, where reads see everything queued before them. (LMDB runs queued callbacks after the queued
 *     single writes, and callbacks in the order they were queued: since no single write is queued while a
 *     callback waits, that is the order they were queued in.)
 *   - a queued write fails: the writes queued after it were planned on its records. LMDB fails writes for
 *     reasons that persist (I/O errors panic the environment; map growth is automatic; key and value sizes
 *     are checked before a write is queued), so the later ones fail too, but the writer does not rely on it:
 *     it refuses every write from then on and `ping` reports the failure, so health checks take the process
 *     out and a restart starts again from what is on disk.
 * A write answers only once what it read is durable: one that writes something is queued after the writes
 * it read, and one that writes nothing (an insert refused because a queued write took its key, a delete of
 * a key a queued write removed) waits for them, since its caller may read the record next.
 */
import { unavailable } from '../errors/index.js';
import type { KvBackend, KvMutation } from './ordered-kv.js';

/**
 * What a write plan collected: the puts and removes to apply, and each touched record's new JSON (null: deleted),
 * by store (the `KvStore` itself, used only as a key here).
 */
export interface PlannedWrite {
  mutations: KvMutation[];
  records: Map<object, Map<string, string | null>>;
}

/** A record as a queued write leaves it (json null: deleted), and that write's outcome. */
export interface QueuedRecord {
  json: string | null;
  written: Promise<void>;
}

/** The queued record of a key, or undefined when no queued write touches it. */
export type QueuedRecords = (store: object, key: string) => QueuedRecord | undefined;

export class KvWriter {
  private readonly queued = new Map<object, Map<string, QueuedRecord & { generation: number }>>();
  private generation = 0;
  private transactionsQueued = 0;
  private failure: unknown;

  constructor(private readonly backend: KvBackend) {}

  /** The record a write queued now would find, if a queued write decides it. */
  readonly recordOf: QueuedRecords = (store, key) => this.queued.get(store)?.get(key);

  /** Whether a new write must be planned inside a transaction (a transaction callback is still queued). */
  get planInTransaction(): boolean {
    return this.transactionsQueued > 0;
  }

  /** Queues a planned write; resolves once it is durable. */
  async apply(plan: PlannedWrite): Promise<void> {
    this.assertUsable();
    if (plan.mutations.length === 0) return;
    this.backend.checkRoom();
    const generation = ++this.generation;
    const written = this.backend.writeQueued(plan.mutations);
    for (const [store, records] of plan.records) {
      let byKey = this.queued.get(store);
      if (!byKey) this.queued.set(store, (byKey = new Map()));
      for (const [key, json] of records) byKey.set(key, { json, written, generation });
    }
    try {
      await written;
    } catch (error) {
      this.failure ??= error;
      throw unavailable(
        `storage write failed, no further writes are taken until a restart: ${error instanceof Error ? error.message : String(error)}`,
      );
    } finally {
      // Once the write has settled, reads of the committed state show it: the entries can go, unless a
      // later queued write has taken them over.
      for (const [store, records] of plan.records) {
        const byKey = this.queued.get(store);
        if (!byKey) continue;
        for (const key of records.keys()) if (byKey.get(key)?.generation === generation) byKey.delete(key);
        if (byKey.size === 0) this.queued.delete(store);
      }
    }
  }

  /**
   * Waits until the queued writes a plan read from are durable. A plan that writes nothing (an insert that
   * found its key taken, a delete of a missing key) must not answer before them: its caller may read next.
   */
  async settled(observed: ReadonlySet<Promise<void>>): Promise<void> {
    if (observed.size === 0) return;
    try {
      await Promise.all(observed);
    } catch {
      this.assertUsable();
      throw unavailable('storage write failed');
    }
  }

  /** Runs `fn` inside one backend transaction (see `KvBackend.write`); later writes are planned in transactions until it has run. */
  async transaction<R>(fn: () => R): Promise<R> {
    this.assertUsable();
    this.backend.checkRoom();
    this.transactionsQueued++;
    try {
      return await this.backend.write(fn);
    } finally {
      this.transactionsQueued--;
    }
  }

  /** Why writes are refused until a restart (a queued write failed), or undefined. */
  restartReason(): string | undefined {
    if (this.failure === undefined) return undefined;
    return `storage is unusable since a write failed (${this.failure instanceof Error ? this.failure.message : String(this.failure)})`;
  }

  /** Throws once a queued write has failed (feeds health checks). */
  assertUsable(): void {
    if (this.failure !== undefined) {
      const reason = this.failure instanceof Error ? this.failure.message : String(this.failure);
      throw unavailable(`storage is unusable since a write failed (${reason}); restart the process`);
    }
  }
}
