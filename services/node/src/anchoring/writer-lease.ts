import type { Store, StoreProvider } from '@anchor/common/storage';

export const LEASE_STORE = 'lease';

interface LeaseRecord {
  holder: string;
  expiresAt: number;
}

/**
 * A lease in the shared store that makes one instance of a deployment the holder of a role (the batch
 * writer): taken with insert-if-absent (an expired record counts as absent), kept by renewing well before
 * it expires, given up on stop. An instance that dies loses it when it expires; one that restarts under
 * the same holder id takes it straight back.
 */
export class Lease {
  private constructor(
    private readonly store: Store<LeaseRecord>,
    readonly name: string,
    readonly holder: string,
    readonly durationMs: number,
  ) {}

  static async open(provider: StoreProvider, name: string, holder: string, durationMs: number): Promise<Lease> {
    return new Lease(
      await provider.open<LeaseRecord>(LEASE_STORE, { expiryField: 'expiresAt' }),
      name,
      holder,
      durationMs,
    );
  }

  /** Takes the lease if it is free or already ours (renewing it); false when another holder has it. */
  async acquire(now = Date.now()): Promise<boolean> {
    const record = { holder: this.holder, expiresAt: now + this.durationMs };
    if (await this.store.insert(this.name, record)) return true;
    return this.renew(now);
  }

  /** Extends the lease if we hold it; false when it is someone else's now. */
  async renew(now = Date.now()): Promise<boolean> {
    const current = await this.store.get(this.name);
    if (current === undefined)
      return this.store.insert(this.name, { holder: this.holder, expiresAt: now + this.durationMs });
    if (current.holder !== this.holder) return false;
    await this.store.put(this.name, { holder: this.holder, expiresAt: now + this.durationMs });
    return true;
  }

  async release(): Promise<void> {
    const current = await this.store.get(this.name);
    if (current?.holder === this.holder) await this.store.delete(this.name);
  }
}
