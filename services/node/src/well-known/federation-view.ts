/**
 * What discovery reads from the federation (the ActivityPub feature), and nothing more: NodeInfo counts the
 * outbox, WebFinger names the other nodes that hold an anchor. Kept as a narrow interface so discovery
 * does not depend on how the federation stores its collections.
 */
export interface FederationView {
  /** Activities of this type in this node's outbox (NodeInfo: `Create` are posts, `Like` are comments). */
  outboxCount(type: string): Promise<number>;
  /**
   * Where other nodes hold the anchor with this resource hash (`uEi…`), as learnt from the Likes they sent
   * back: their `<base>/cas/<hash>` URLs.
   */
  anchorAlternates(resourceHash: string): Promise<string[]>;
}
