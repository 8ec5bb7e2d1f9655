import type { Store, StoreProvider } from '@anchor/common/storage';
import type { AnchorCredential } from './anchor-credential.js';
import type { ContentObject, SuffixAnchor } from './anchor-linkset.js';

export const BATCH_STORE = 'anchor-batch';

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
export type AnchorStatus = 'cut' | 'built' | 'signed' | 'witnessing' | 'witnessed' | 'published' | 'processed' | 'completed' | 'failed';

/** Statuses in which a batch holds its DIDs back from the next batches. */
export const IN_FLIGHT: readonly AnchorStatus[] = ['cut', 'built', 'signed', 'witnessing', 'witnessed', 'published'];
/** Statuses the pipeline resumes at start. */
export const UNFINISHED: readonly AnchorStatus[] = [...IN_FLIGHT, 'processed'];

export interface AnchorBatch {
  status: AnchorStatus;
  /** When the batch was cut (epoch ms). */
  createdAt: number;
  updatedAt: number;
  /** acceptedAt of its oldest operation. */
  firstAcceptedAt: number;
  operationKeys: string[];
  /** Failed attempts at the current step (reset on progress). */
  attempts: number;
  lastError?: string;
  operationCount?: number;
  coreIndexHashlink?: string;
  items?: SuffixAnchor[];
  content?: ContentObject;
  /** Unsigned (built), then with the node's proof (signed), then with every proof (witnessed). */
  credential?: AnchorCredential;
  batchOrigins?: string[];
  witnessStartedAt?: number;
  witnessChecks?: number;
  /** `hl:<hash>:<links>` of the witnessed anchor linkset (published). */
  anchorEvent?: string;
  publishedAt?: number;
  processedAt?: number;
  /** Completed records disappear after a day. */
  expiresAt?: number;
}

export async function openBatchStore(provider: StoreProvider): Promise<Store<AnchorBatch>> {
  return provider.open<AnchorBatch>(BATCH_STORE, { indexes: [['status', 'createdAt']], expiryField: 'expiresAt' });
}

/** Every batch in one of `statuses`, oldest first. */
export async function batchesIn(store: Store<AnchorBatch>, statuses: readonly AnchorStatus[]): Promise<Array<{ key: string; value: AnchorBatch }>> {
  const found: Array<{ key: string; value: AnchorBatch }> = [];
  for (const status of statuses) {
    let after: string | undefined;
    do {
      const page = await store.query({ where: { status }, orderBy: { field: 'createdAt' }, limit: 1_000, ...(after ? { after } : {}) });
      found.push(...page.items);
      after = page.next;
    } while (after);
  }
  return found.sort((a, b) => a.value.createdAt - b.value.createdAt);
}
