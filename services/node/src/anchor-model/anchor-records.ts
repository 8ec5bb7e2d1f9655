import type { Store, StoreProvider } from '@anchor/common/storage';
import type { AnchorEvent } from './anchor-event.js';

export const ANCHOR_STORES = {
  anchors: 'anchor',
  sequence: 'anchor-sequence',
  pending: 'anchor-pending',
} as const;

/** An anchor this node has dealt with (store `anchor`, keyed by the anchor hash; Orb's anchor-ref). */
export interface AnchorRecord {
  /** `hl:<hash>:<links>` as the anchor was announced. */
  hashlink: string;
  status: 'processed' | 'rejected';
  /** This node's processing order (processed anchors only). */
  transactionNumber?: number;
  transactionTime?: number;
  processedAt: number;
  attributedTo?: string;
  batchId?: string;
  operationCount?: number;
  parents?: string[];
  /** Why a rejected anchor was refused. */
  reason?: string;
}

/** A transaction number taken by an anchor (store `anchor-sequence`, keyed by the zero-padded number). */
export interface TransactionClaim {
  anchorHash: string;
  transactionNumber: number;
}

/** An announced anchor not processed yet (store `anchor-pending`): re-queued at start, deleted with the commit. */
export interface PendingAnchor {
  event: AnchorEvent;
  submittedAt: number;
}

/**
 * The observer's stores: processed anchors, the transaction-number claims (`anchor-sequence`: number →
 * anchor hash, insert-if-absent, indexed by anchor hash so a replay finds its number), and the durable inbox
 * of events.
 */
export class AnchorRecords {
  private constructor(
    readonly anchors: Store<AnchorRecord>,
    readonly sequence: Store<TransactionClaim>,
    readonly pending: Store<PendingAnchor>,
  ) {}

  static async open(provider: StoreProvider): Promise<AnchorRecords> {
    return new AnchorRecords(
      await provider.open<AnchorRecord>(ANCHOR_STORES.anchors, {
        indexes: ['transactionNumber', ['status', 'processedAt']],
      }),
      await provider.open<TransactionClaim>(ANCHOR_STORES.sequence, { indexes: ['anchorHash', 'transactionNumber'] }),
      await provider.open<PendingAnchor>(ANCHOR_STORES.pending, { indexes: ['submittedAt'] }),
    );
  }

  /** The highest transaction number claimed so far (0 when none). */
  async lastClaimedNumber(): Promise<number> {
    const page = await this.sequence.query({ orderBy: { field: 'transactionNumber', direction: 'desc' }, limit: 1 });
    return page.items[0]?.value.transactionNumber ?? 0;
  }

  /** Sequence keys sort like the numbers they stand for. */
  static sequenceKey(transactionNumber: number): string {
    return String(transactionNumber).padStart(15, '0');
  }
}
