import { createStoreProvider, type StorageConfig, type StoreProvider } from '../storage/index.js';

/**
 * What a service's store is opened from. `connectTimeoutMs` (MongoDB) is how long start-up waits for a
 * database that cannot be reached yet, e.g. a container starting after the service (trustbloc/vct's
 * `--timeout`); the adapter owns that retry (backoff from 0.5 s doubling to 10 s, at once for a malformed
 * URL or refused credentials; 0 makes one attempt, absent means 30 s). Local stores open at once.
 */
export type StorageSettings = StorageConfig & {
  /**
   * How long `/healthcheck` reports a store that stopped answering as degraded (200) before it reports it
   * unavailable (503), in ms (`--database-stall-tolerance`). Read by the service kit's store probe, not the
   * adapters. Default `STORE_STALL_TOLERANCE_MS`.
   */
  stallToleranceMs?: number | undefined;
};

/** The default of `StorageSettings.stallToleranceMs`: 10 s. */
export const STORE_STALL_TOLERANCE_MS = 10_000;

/** Opens the store provider the settings name (one place for every service, the retry included). */
export function openStorage(settings: StorageSettings): Promise<StoreProvider> {
  return createStoreProvider(settings);
}
