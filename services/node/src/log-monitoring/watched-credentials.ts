import { createHash } from 'node:crypto';
import type { Store, StoreProvider } from '@anchor/common/storage';

export const PROOF_MONITOR_STORE = 'proof-monitor';

/**
 * unconfirmed: logged, its inclusion not proven yet; confirmed: proven; missing: not included by the
 * deadline (reported, logged again at each round until the log takes it); resubmitted: logged again after
 * it went missing, its new entry not proven yet.
 */
export type WatchStatus = 'unconfirmed' | 'confirmed' | 'missing' | 'resubmitted';

export interface WatchedCredential {
  logUrl: string;
  credentialId: string;
  /**
   * The credential as logged (without proofs): the leaf is rebuilt from it, and it is logged again from it.
   * Dropped once confirmed.
   */
  credential?: Record<string, unknown>;
  /** The log's promise: the entry's timestamp (ms). */
  timestamp: number;
  /** base64 leaf hash of the entry, computed at the first check. */
  leafHash?: string;
  status: WatchStatus;
  /** When the current entry was logged: the deadline runs from here. */
  loggedAt: number;
  /** When the next check is due; absent once confirmed. */
  nextCheckAt?: number;
  resubmissions: number;
  missingSince?: number;
  confirmedAt?: number;
  leafIndex?: number;
  treeSize?: number;
  lastError?: string;
  /** Confirmed records are kept one expiry period, then dropped. */
  expiresAt?: number;
}

/** The anchor credentials this node has logged, until each is proven included (orb.md §6 `proof-monitor`). */
export class WatchedCredentials {
  private constructor(private readonly store: Store<WatchedCredential>) {}

  static async open(provider: StoreProvider): Promise<WatchedCredentials> {
    return new WatchedCredentials(
      await provider.open<WatchedCredential>(PROOF_MONITOR_STORE, {
        indexes: ['status', 'nextCheckAt'],
        expiryField: 'expiresAt',
      }),
    );
  }

  static keyOf(logUrl: string, credentialId: string): string {
    return createHash('sha256').update(logUrl).update('\n').update(credentialId).digest('base64url');
  }

  get(logUrl: string, credentialId: string): Promise<WatchedCredential | undefined> {
    return this.store.get(WatchedCredentials.keyOf(logUrl, credentialId));
  }

  put(record: WatchedCredential): Promise<void> {
    return this.store.put(WatchedCredentials.keyOf(record.logUrl, record.credentialId), record);
  }

  /** The records whose check is due, soonest first. */
  async due(now: number, limit: number): Promise<WatchedCredential[]> {
    const page = await this.store.query({
      where: { nextCheckAt: { lte: now } },
      orderBy: { field: 'nextCheckAt' },
      limit,
    });
    return page.items.map((item) => item.value);
  }

  async withStatus(status: WatchStatus, limit = 1000): Promise<WatchedCredential[]> {
    const page = await this.store.query({ where: { status }, limit });
    return page.items.map((item) => item.value);
  }

  count(status: WatchStatus): Promise<number> {
    return this.store.count({ status });
  }
}
