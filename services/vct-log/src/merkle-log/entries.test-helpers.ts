import type { ProviderBatchOp, Store, StoreOptions, StoreProvider } from '@anchor/common/storage';
import { buildLeafInput, leafHashOf, vcEntryOf } from '@anchor/common/vct';
import { identityHashOf } from './leaf-identity.js';
import type { NewEntry } from './transparency-log.js';

/** An entry as add-vc would prepare it, from stand-in N-Quads (the log never looks inside them). */
export function entryFor(nquads: string, timestamp: number, extraData: string | null = null): NewEntry {
  const leafInput = buildLeafInput(timestamp, vcEntryOf(nquads));
  return {
    identity: identityHashOf(nquads),
    timestamp,
    leafInput,
    leafHash: leafHashOf(leafInput).toString('base64'),
    extraData,
  };
}

/**
 * A provider whose batches fail while `failing` returns true: the way a full disk or a lost database
 * connection looks to the log.
 */
export function flakyProvider(
  inner: StoreProvider,
  failing: (ops: readonly ProviderBatchOp[]) => boolean,
): StoreProvider {
  return {
    kind: inner.kind,
    open: <T extends object>(name: string, options?: StoreOptions): Promise<Store<T>> => inner.open<T>(name, options),
    exists: (name) => inner.exists(name),
    batch: async (ops) => {
      if (failing(ops)) throw new Error('injected storage failure');
      return inner.batch(ops);
    },
    ping: () => inner.ping(),
    close: () => inner.close(),
  };
}

/**
 * A provider that calls `afterBatch` once each batch is written (before the caller sees it): a test steps its
 * clock there, as if each write took that long, or acts between two writes of one integration batch.
 */
export function observedProvider(
  inner: StoreProvider,
  afterBatch: (ops: readonly ProviderBatchOp[]) => void | Promise<void>,
): StoreProvider {
  return {
    kind: inner.kind,
    open: <T extends object>(name: string, options?: StoreOptions): Promise<Store<T>> => inner.open<T>(name, options),
    exists: (name) => inner.exists(name),
    batch: async (ops) => {
      await inner.batch(ops);
      await afterBatch(ops);
    },
    ping: () => inner.ping(),
    close: () => inner.close(),
  };
}
