import { randomUUID } from 'node:crypto';
import { queryAll, type ProviderBatchOp, type Store, type StoreProvider } from '@anchor/common/storage';
import type { DidAnchor, DidVersion, PublishedOperation, QueuedOperation } from './operation-records.js';

/** Store names, shared by every part that writes to these stores inside a provider-level atomic batch. */
export const STORE = {
  queued: 'operation-queue',
  /** A DID's published operations (`<suffix>:<anchor hash>`) and, under its bare suffix, its `DidAnchor`. */
  published: 'operation',
  didVersion: 'did-version',
} as const;

/** Where `DidAnchor` records were kept before they moved beside the DID's operations; emptied at open. */
export const LEGACY_DID_ANCHOR_STORE = 'did-anchor';
/** Records moved per atomic write by the migration. */
const MIGRATION_PAGE = 500;

/**
 * The operation stores of the node (orb.md §5.2: operation-queue — which also serves as the unpublished
 * operation store —, operation, didanchor), opened once with their indexes:
 *
 * | store | key | indexes |
 * |---|---|---|
 * | operation-queue | `<suffix>:<claim>` | — (a DID's pending operations: the key prefix `<suffix>:`) |
 * | operation | `<suffix>:<anchor hash>`: a published operation; `<suffix>`: the DID's `DidAnchor` | — (a DID's published operations: the key prefix `<suffix>:`) |
 * | did-version | suffix | — |
 *
 * The two operation stores are read per DID by key prefix, not through an index: an index entry is one more
 * randomly placed LMDB entry for each queue insert and delete and each published put, and every one of
 * them dirties a page the commit must write (figures in the node README, Stores). A DID has a handful of
 * operations; they are put in order in memory (`DidOperationsLoader.load`).
 *
 * A DID's `DidAnchor` is kept in the operation store under its bare suffix, which sorts just before the
 * DID's operations: the observer's two writes per published operation land on one B-tree leaf, where a
 * store of their own put them on two randomly placed leaves (ADR 0011: 7 KB less written per create).
 * Suffixes never contain a colon, so a DID's operations (`<suffix>:` prefix) and anchors (bare suffixes)
 * are never confused; `didAnchors` and `published` are the one store under the two record types.
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
    const stores = new OperationStores(
      provider,
      await provider.open<QueuedOperation>(STORE.queued),
      await provider.open<PublishedOperation>(STORE.published),
      await provider.open<DidAnchor>(STORE.published),
      await provider.open<DidVersion>(STORE.didVersion),
    );
    await stores.moveLegacyDidAnchors();
    return stores;
  }

  /**
   * Moves the `DidAnchor` records of the store they had before (`did-anchor`) beside their DIDs'
   * operations, a page at a time, each page one atomic write (copy and delete): an interrupted move
   * resumes at the next open. Where both places hold a DID's anchor (an instance of the previous version
   * kept writing the old store), the one with the later version wins.
   */
  private async moveLegacyDidAnchors(): Promise<void> {
    // A deployment that never ran the previous version has no such store: asking creates none.
    if (!(await this.provider.exists(LEGACY_DID_ANCHOR_STORE))) return;
    const legacy = await this.provider.open<DidAnchor>(LEGACY_DID_ANCHOR_STORE);
    for (;;) {
      const { items } = await legacy.query({ limit: MIGRATION_PAGE });
      if (items.length === 0) return;
      const current = await this.didAnchors.getMany(items.map((item) => item.key));
      const ops: ProviderBatchOp[] = [];
      items.forEach(({ key, value }, i) => {
        const here = current[i];
        if (here === undefined || here.version < value.version)
          ops.push({ store: STORE.published, op: 'put', key, value });
        ops.push({ store: LEGACY_DID_ANCHOR_STORE, op: 'delete', key });
      });
      await this.provider.batch(ops);
    }
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
