import type { ProviderBatchOp, StoreProvider } from '@anchor/common/storage';

/**
 * A provider whose next batch, when `cut` is set, applies only its first `cut` writes one by one and fails:
 * what a lost connection leaves of a batch on a store without transactions (FerretDB, a standalone MongoDB).
 */
export function cuttableProvider(inner: StoreProvider): StoreProvider & { cut: number | undefined } {
  const provider = {
    cut: undefined as number | undefined,
    kind: inner.kind,
    open: inner.open.bind(inner),
    exists: (name: string) => inner.exists(name),
    ping: () => inner.ping(),
    close: () => inner.close(),
    batch: async (ops: readonly ProviderBatchOp[]) => {
      const cut = provider.cut;
      if (cut === undefined) return inner.batch(ops);
      provider.cut = undefined;
      for (const op of ops.slice(0, cut)) await inner.batch([op]);
      throw new Error('connection lost half-way through the batch');
    },
  };
  return provider;
}
