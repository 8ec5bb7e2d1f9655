import type { Store, StoreOptions, StoreProvider } from '@anchor/common/storage';

/** What each part of the storage contract gets from the suite. */

export interface ContractContext {
  readonly provider: StoreProvider;
  /** Opens a store with a name unique to this test. */
  openStore<T extends object = Record<string, unknown>>(options?: StoreOptions): Promise<Store<T>>;
  /** Closes the provider and opens a new one over the same data (only when the harness can). */
  reopen(): Promise<StoreProvider>;
  readonly durable: boolean;
  readonly atomicConditionalWrites: boolean;
}
