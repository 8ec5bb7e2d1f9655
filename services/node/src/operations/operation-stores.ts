import { randomUUID } from 'node:crypto';
import type { ProviderBatchOp, Store, StoreProvider } from '@anchor/common/storage';
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
 * | operation-queue | `<suffix>:<claim>` | (suffix, acceptedAt), sorted only: a DID's pending operations in order |
 * | operation | `<suffix>:<anchor hash>` | (suffix, transactionNumber), sorted only |
 * | did-anchor | suffix | — |
 * | did-version | suffix | — |
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
      await provider.open<QueuedOperation>(STORE.queued, { indexes: [{ fields: ['suffix', 'acceptedAt'], sortedOnly: true }] }),
      await provider.open<PublishedOperation>(STORE.published, { indexes: [{ fields: ['suffix', 'transactionNumber'], sortedOnly: true }] }),
      await provider.open<DidAnchor>(STORE.didAnchor),
      await provider.open<DidVersion>(STORE.didVersion),
    );
  }

  /** The batch op that marks a DID changed (see `DidVersion`). */
  static touch(suffix: string): ProviderBatchOp {
    return { store: STORE.didVersion, op: 'put', key: suffix, value: { token: randomUUID() } satisfies DidVersion };
  }

  /** Every record of a store matching `where` (all without), ordered by `orderBy` (key order without), page by page. */
  static async all<T extends object>(store: Store<T>, where?: Record<string, string | number | boolean>, orderBy?: string): Promise<Array<{ key: string; value: T }>> {
    const entries: Array<{ key: string; value: T }> = [];
    let after: string | undefined;
    do {
      const page = await store.query({ ...(where ? { where } : {}), ...(orderBy ? { orderBy: { field: orderBy } } : {}), limit: 10_000, ...(after ? { after } : {}) });
      entries.push(...page.items);
      after = page.next;
    } while (after);
    return entries;
  }
}
