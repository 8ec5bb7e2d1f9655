import { randomUUID } from 'node:crypto';
import { queryAll, type ProviderBatchOp, type Store, type StoreProvider } from '@anchor/common/storage';
import type { DidAnchor, DidVersion, PublishedOperation, QueuedOperation } from './operation-records.js';

/** Store names, shared by every part that writes to these stores inside a provider-level atomic batch. */
export const STORE = {
  queued: 'operation-queue',
  published: 'operation',
  didAnchor: 'did-anchor',
  didVersion: 'did-version',
} as const;

/**
 * The operation stores of the node (orb.md §5.2: operation-queue — which also serves as the unpublished
 * operation store —, operation, didanchor), opened once with their indexes:
 *
 * | store | key | indexes |
 * |---|---|---|
 * | operation-queue | `<suffix>:<claim>` | — (a DID's pending operations: the key prefix `<suffix>:`) |
 * | operation | `<suffix>:<anchor hash>` | — (a DID's published operations: the key prefix `<suffix>:`) |
 * | did-anchor | suffix | — |
 * | did-version | suffix | — |
 *
 * The two operation stores are read per DID by key prefix, not through an index: an index entry is one more
 * randomly placed LMDB entry for each queue insert and delete and each published put, and every one of
 * them dirties a page the commit must write (figures in the node README, Stores). A DID has a handful of
 * operations; they are put in order in memory (`DidOperationsLoader.load`).
 */
export class OperationStores {
  private constructor(
    readonly provider: StoreProvider,
    readonly queued: Store<QueuedOperation>,
    readonly published: Store<PublishedOperation>,
    readonly didAnchors: Store<DidAnchor>,
    readonly didVersions: Store<DidVersion>,
  ) {}

  static async open(provider: StoreProvider): Promise<OperationStores> {
    return new OperationStores(
      provider,
      await provider.open<QueuedOperation>(STORE.queued),
      await provider.open<PublishedOperation>(STORE.published),
      await provider.open<DidAnchor>(STORE.didAnchor),
      await provider.open<DidVersion>(STORE.didVersion),
    );
  }

  /** The batch op that marks a DID changed (see `DidVersion`). */
  static touch(suffix: string): ProviderBatchOp {
    return { store: STORE.didVersion, op: 'put', key: suffix, value: { token: randomUUID() } satisfies DidVersion };
  }

  /** Every record of a store (of one DID with `suffix`: its keys start with `<suffix>:`), in key order, page by page. */
  static async all<T extends object>(store: Store<T>, suffix?: string): Promise<Array<{ key: string; value: T }>> {
    return queryAll(store, { ...(suffix !== undefined ? { keyPrefix: `${suffix}:` } : {}), limit: 10_000 });
  }
}
