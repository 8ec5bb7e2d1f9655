/**
 * The storage contract: one vitest suite every StoreProvider adapter must pass (mem, LMDB, MongoDB), so that
 * code tested against mem behaves the same in production.
 *
 *   testStoreProvider('lmdb', { create: () => ..., reopen: (p) => ... });
 */
import { afterAll, afterEach, beforeEach, describe } from 'vitest';
import type { StoreOptions, StoreProvider } from '@anchor/common/storage';
import { uniqueName } from '../contract-kit/index.js';
import { registerBasics } from './basics.js';
import { registerBatches } from './batches.js';
import { registerExpiry } from './expiry.js';
import { registerLifecycle } from './lifecycle.js';
import { registerQueries } from './queries.js';
import type { ContractContext } from './context.js';

export interface StoreHarness {
  /** A fresh provider (the suite closes it after each test). */
  create(): Promise<StoreProvider>;
  /** Durable adapters: a new provider over the same data as `closed`, which the suite has just closed. */
  reopen?(closed: StoreProvider): Promise<StoreProvider>;
  /** Removes what the run created (temporary directories, test collections). */
  dispose?(): Promise<void>;
  /**
   * False where the server does not make a conditional single-record write atomic (FerretDB v1 reads, then
   * writes): racing compare-and-sets may then all win. Default true (mem, LMDB, MongoDB).
   */
  atomicConditionalWrites?: boolean;
}

export function testStoreProvider(label: string, harness: StoreHarness): void {
  describe(`storage contract: ${label}`, () => {
    let current: StoreProvider | undefined;
    const ctx: ContractContext = {
      get provider(): StoreProvider {
        if (!current) throw new Error('no provider (used outside a test)');
        return current;
      },
      openStore: <T extends object>(storeOptions?: StoreOptions) =>
        ctx.provider.open<T>(uniqueName('store'), storeOptions),
      async reopen() {
        if (!harness.reopen) throw new Error(`${label} cannot reopen`);
        const old = ctx.provider;
        await old.close();
        current = await harness.reopen(old);
        return current;
      },
      durable: harness.reopen !== undefined,
      atomicConditionalWrites: harness.atomicConditionalWrites ?? true,
    };
    beforeEach(async () => {
      current = await harness.create();
    });
    afterEach(async () => {
      await current?.close();
      current = undefined;
    });
    afterAll(async () => {
      await harness.dispose?.();
    });

    registerBasics(ctx);
    registerBatches(ctx);
    registerQueries(ctx);
    registerExpiry(ctx);
    registerLifecycle(ctx);
  });
}
