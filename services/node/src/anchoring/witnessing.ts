import type { AnchorCredential } from '../anchor-model/anchor-credential.js';
import type { AnchorLink } from '../anchor-model/anchor-linkset.js';

/**
 * The witnessing step of the anchor pipeline, between "signed by this node" and "published" (orb.md §2.5).
 *
 * The pipeline calls `witness` when an anchor enters witnessing and again after each `pending` answer
 * (`recheckAfterMs`), across restarts, until it answers `witnessed` with the credential carrying every proof
 * the witness policy needs. Calls for one anchor never overlap; an implementation keeps its own state
 * (offers sent, proofs received, witnesses re-selected) in the store, keyed by `anchorId`, and must be
 * idempotent: the same request may come again after a crash.
 *
 * `selfWitnessing` is the implementation without witnesses: the policy is satisfied by the node's own (local
 * witness) proof. The witness feature's implementation offers the anchor to batch and system witnesses,
 * collects their proofs and evaluates the policy.
 */
export interface AnchorWitnessing {
  witness(request: WitnessRequest): Promise<WitnessOutcome>;
}

export interface WitnessRequest {
  /** The in-flight anchor (batch) id. */
  anchorId: string;
  /** `hl:<hash of the content object>`: the anchor witnesses are asked about. */
  anchor: string;
  /** Builds the anchor link whose `replies` is the credential signed by this node: what an Offer carries. */
  link(): Promise<AnchorLink>;
  /** The credential with this node's proof (log-backed when a log is configured). */
  credential: AnchorCredential;
  /** The anchor origins of the batch's operations (Orb's batch witnesses). */
  batchOrigins: readonly string[];
  /** When witnessing began (epoch ms) — the start of an Offer's time window. */
  startedAt: number;
  /** 1 on the first call, then one more on each re-check. */
  attempt: number;
}

export type WitnessOutcome =
  { status: 'witnessed'; credential: AnchorCredential } | { status: 'pending'; recheckAfterMs: number };

/** No witnesses: the node's own proof satisfies the policy at once. */
export const selfWitnessing: AnchorWitnessing = {
  async witness(request) {
    return { status: 'witnessed', credential: request.credential };
  },
};
