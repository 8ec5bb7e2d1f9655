/**
 * Every replica of a service opens the same stores on one database, and the expiry sweep is one `deleteMany`
 * per store: run by all of them it is the same work N times over. So the replicas elect one sweeper with a
 * lease document (one per collection prefix) that its holder renews on every sweep and the others take over
 * once it has lapsed, e.g. when the holder died. (MongoDB's TTL indexes would do the deleting server-side,
 * but they read BSON dates, and the stores' expiry fields are epoch milliseconds.)
 */
import type { Collection } from 'mongodb';
import { isDuplicateKey } from './mongodb-errors.js';

/** Not a valid store name (those start with a letter or digit), so no store's collection can be this. */
export const LEASE_COLLECTION = '_storage_leases';

interface LeaseDoc {
  _id: string;
  owner: string;
  until: number;
}

export class SweeperLease {
  private held = false;

  constructor(
    /** The lease collection of the provider's current client. */
    private readonly collection: () => Collection<LeaseDoc>,
    private readonly id: string,
    private readonly owner: string,
    private readonly ttlMs: number,
  ) {}

  /** Whether this provider held the lease at its last attempt. */
  get isHolder(): boolean {
    return this.held;
  }

  /** Takes or renews the lease; true when this provider is the sweeper until `now + ttl`. */
  async acquire(now = Date.now()): Promise<boolean> {
    try {
      // Matches when the lease is ours or has lapsed; when it is someone else's and live, the upsert's insert
      // hits the unique _id and fails.
      await this.collection().updateOne(
        { _id: this.id, $or: [{ owner: this.owner }, { until: { $lte: now } }] },
        { $set: { owner: this.owner, until: now + this.ttlMs } },
        { upsert: true },
      );
      this.held = true;
    } catch (error) {
      if (!isDuplicateKey(error)) throw error;
      this.held = false;
    }
    return this.held;
  }

  /** Gives the lease up so another replica takes over at its next period instead of after the lease lapses. */
  async release(): Promise<void> {
    if (!this.held) return;
    this.held = false;
    await this.collection().deleteOne({ _id: this.id, owner: this.owner });
  }
}
