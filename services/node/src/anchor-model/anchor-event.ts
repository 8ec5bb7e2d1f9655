/**
 * An anchor to process (Orb's `AnchorInfo`): this node's own anchors, and anchors other nodes
 * announce. The same path serves both, so remote anchors get exactly the checks local ones do.
 */
export interface AnchorEvent {
  /** `hl:<hash>[:<links>]` of the witnessed anchor linkset (the AnchorEvent `url`). */
  hashlink: string;
  /** The linkset itself when the announcement embeds it (an ActivityPub Create does); must hash to `hashlink`. */
  linkset?: object;
  /** Who announced it: a remote service IRI; absent for this node's own anchors. */
  attributedTo?: string;
  /** Other places to fetch the linkset, its parents and the batch files from: peers' base URLs or CAS bases. */
  sources?: string[];
  /** The local batch this anchor completes (set by this node's batch writer only). */
  batchId?: string;
}

/** Topic of anchors waiting for the observer (durable in the `anchor-pending` store as well). */
export const ANCHOR_TOPIC = 'node.anchor';

/** What the observer reports once an anchor's operations are stored. */
export interface ProcessedAnchor {
  anchorHash: string;
  hashlink: string;
  batchId: string | undefined;
  attributedTo: string | undefined;
  transactionNumber: number;
  transactionTime: number;
  suffixes: string[];
}
