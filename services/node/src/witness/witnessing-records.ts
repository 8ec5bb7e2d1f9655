import type { DataIntegrityProof } from '@anchor/common/jsonld';
import type { Store, StoreProvider } from '@anchor/common/storage';
import type { AnchorCredential } from '../anchor-model/anchor-credential.js';
import type { WitnessRole } from '@anchor/common/witness-policy';

export const WITNESS_STORES = {
  anchors: 'witness-anchor',
  proofs: 'witness-proof',
} as const;

/** A candidate witness of one anchor. */
export interface WitnessEntry {
  /** The witness service's id. */
  uri: string;
  roles: WitnessRole[];
  hasLog: boolean;
  /** When an Offer was sent to it (epoch ms); absent while it was never asked. */
  selectedAt?: number;
  /** The Offer it was sent and that Offer's endTime (epoch ms): its proof must be created before then (+ skew). */
  offerId?: string;
  offerEndTime?: number;
  /** Silent past the grace period: not asked again while others can take its place. */
  excluded?: boolean;
}

/**
 * The witnessing of one of this node's anchors (Orb's `witness` + `anchor-status` stores in one
 * record, keyed by the anchor's batch id): its candidates, who was asked when, and the selection rounds.
 * Written only by the anchor's witnessing step (never concurrently); proofs arrive separately.
 */
export interface WitnessingRecord {
  anchorId: string;
  /** `hl:` of the anchor's content object: what witnesses' AnchorReceipts reply to. */
  anchor: string;
  /** The credential with this node's proof, which witnesses sign. */
  credential: AnchorCredential;
  status: 'witnessing' | 'completed';
  witnesses: WitnessEntry[];
  /** Offers sent so far. */
  rounds: number;
  /** When witnesses were last selected: the grace period runs from here. */
  lastSelectionAt: number;
  createdAt: number;
  /** Completed records expire (`--witness-store-expiry-period`). */
  expiresAt?: number;
}

/** A witness's proof of an anchor, keyed `<anchorId>|<witness>`: a later proof of the same witness replaces it. */
export interface WitnessProofRecord {
  anchorId: string;
  witness: string;
  proof: DataIntegrityProof;
  receivedAt: number;
  expiresAt: number;
}

export class WitnessingRecords {
  private constructor(
    readonly anchors: Store<WitnessingRecord>,
    readonly proofs: Store<WitnessProofRecord>,
  ) {}

  static async open(provider: StoreProvider): Promise<WitnessingRecords> {
    return new WitnessingRecords(
      await provider.open<WitnessingRecord>(WITNESS_STORES.anchors, { indexes: ['anchor'], expiryField: 'expiresAt' }),
      await provider.open<WitnessProofRecord>(WITNESS_STORES.proofs, {
        indexes: [['anchorId', 'receivedAt']],
        expiryField: 'expiresAt',
      }),
    );
  }

  async byAnchor(anchor: string): Promise<WitnessingRecord | undefined> {
    return (await this.anchors.query({ where: { anchor }, limit: 1 })).items[0]?.value;
  }

  async proofsOf(anchorId: string): Promise<WitnessProofRecord[]> {
    return (await this.proofs.query({ where: { anchorId }, orderBy: { field: 'receivedAt' }, limit: 1_000 })).items.map(
      (item) => item.value,
    );
  }

  static proofKey(anchorId: string, witness: string): string {
    return `${anchorId}|${witness}`;
  }
}
