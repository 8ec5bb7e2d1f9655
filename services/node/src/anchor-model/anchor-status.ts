/**
 * The lifecycle of an in-flight anchor, one status per step whose result is persisted (orb.md §2.3-§2.5):
 *
 * | status | meaning (what is persisted) | next step |
 * |---|---|---|
 * | cut | write-ahead record of the batch: its operation keys (the operations are marked `batched`) | build |
 * | built | batch files in the CAS; content object, previous anchors, unsigned credential | sign |
 * | signed | credential with the node's (local witness) proof | witness |
 * | witnessing | waiting for the witness policy (re-checked after a delay) | witness |
 * | witnessed | credential with every proof the policy needs | publish |
 * | published | witnessed linkset in the CAS, credential at /vc, anchor handed to the observer | wait for the observer |
 * | processed | the observer committed the anchor: its DIDs may be batched again | notify listeners |
 * | completed | completed-anchor listeners notified; the record expires | — |
 * | failed | the observer refused this node's own anchor (a bug): operations parked, see lastError | — |
 *
 * Every step is idempotent (content-addressed writes, keyed puts, the observer's duplicate check), so a
 * crash at any instant resumes the same anchor from the last persisted status.
 */
export type AnchorStatus =
  'cut' | 'built' | 'signed' | 'witnessing' | 'witnessed' | 'published' | 'processed' | 'completed' | 'failed';
