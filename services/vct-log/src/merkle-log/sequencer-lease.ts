import type { Store, StoreProvider } from '@anchor/common/storage';
import { SEQUENCER_LEASE_STORE, type LeaseRecord } from './log-records.js';

const LEASE_KEY = 'sequencer';

/**
 * Which replica integrates, when several share one MongoDB: a record inserted if absent, with an expiry,
 * renewed by its holder on every round. It only saves wasted work: correctness never depends on it,
 * because an integration batch inserts its entries if absent and fails as a whole when another
 * sequencer got there first.
 */
export class SequencerLease {
  private constructor(
    private readonly store: Store<LeaseRecord>,
    readonly holder: string,
    private readonly ttlMs: number,
  ) {}

  static async open(provider: StoreProvider, holder: string, ttlMs: number): Promise<SequencerLease> {
    const store = await provider.open<LeaseRecord>(SEQUENCER_LEASE_STORE, { expiryField: 'expires' });
    return new SequencerLease(store, holder, ttlMs);
  }

  /**
   * Takes the lease if it is free or expired, renews it if held by us; false when another replica holds
   * it. (Expiry is judged by the store against the clock, so replicas' clocks must roughly agree.)
   */
  async acquire(): Promise<boolean> {
    const record: LeaseRecord = { holder: this.holder, expires: Date.now() + this.ttlMs };
    if (await this.store.insert(LEASE_KEY, record)) return true;
    const current = await this.store.get(LEASE_KEY);
    if (current === undefined) return this.store.insert(LEASE_KEY, record);
    if (current.holder !== this.holder) return false;
    await this.store.put(LEASE_KEY, record);
    return true;
  }

  /** Gives the lease up (on shutdown) so another replica can take over at once. */
  async release(): Promise<void> {
    const current = await this.store.get(LEASE_KEY);
    if (current?.holder === this.holder) await this.store.delete(LEASE_KEY);
  }
}
