import type { Store, StoreProvider } from './types.js';

export interface StoreLeaseOptions {
  /** The store that keeps lease records, one per lease. */
  store: string;
  /** The lease's key in that store (the role it grants: `batch-writer`, `sequencer`). */
  name: string;
  /** Who takes it: the same holder id after a restart takes its lease straight back. */
  holder: string;
  durationMs: number;
  /** The record field that holds the expiry (ms since the epoch); `expiresAt` unless the store predates it. */
  expiryField?: string;
}

type LeaseRecord = Record<string, string | number> & { holder: string };

/**
 * A lease in a shared store that makes one instance of a deployment the holder of a role: taken with
 * insert-if-absent (an expired record counts as absent), kept by renewing before it expires, given up on
 * stop. Renewal and release are compare-and-sets on the holder, never a read followed by a write: an
 * instance that stalled past the expiry while another took the lease cannot write its name back over the
 * new holder's. Expiry is judged against each instance's clock, so their clocks must roughly agree.
 */
export class StoreLease {
  private constructor(
    private readonly records: Store<LeaseRecord>,
    private readonly options: Required<StoreLeaseOptions>,
  ) {}

  static async open(provider: StoreProvider, options: StoreLeaseOptions): Promise<StoreLease> {
    const expiryField = options.expiryField ?? 'expiresAt';
    const records = await provider.open<LeaseRecord>(options.store, { expiryField });
    return new StoreLease(records, { ...options, expiryField });
  }

  get holder(): string {
    return this.options.holder;
  }

  get durationMs(): number {
    return this.options.durationMs;
  }

  /** Takes the lease if it is free or already ours (renewing it); false when another holder has it. */
  async acquire(now = Date.now()): Promise<boolean> {
    const record = this.record(now + this.options.durationMs);
    if (await this.records.insert(this.options.name, record)) return true;
    return this.records.replaceIf(this.options.name, { holder: this.options.holder }, record);
  }

  /** Extends the lease if we hold it, or takes it if it is free; false when it is someone else's now. */
  async renew(now = Date.now()): Promise<boolean> {
    const record = this.record(now + this.options.durationMs);
    if (await this.records.replaceIf(this.options.name, { holder: this.options.holder }, record)) return true;
    return this.records.insert(this.options.name, record);
  }

  /** Frees the lease at once if we hold it: expired in place, since a delete could remove a successor's lease. */
  async release(): Promise<void> {
    await this.records.replaceIf(this.options.name, { holder: this.options.holder }, this.record(0));
  }

  private record(expiry: number): LeaseRecord {
    return { holder: this.options.holder, [this.options.expiryField]: expiry } as LeaseRecord;
  }
}
