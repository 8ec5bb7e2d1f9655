import type { StoreKind } from '../storage/index.js';
import type { StorageSettings } from './open-storage.js';

/** A service's store as its options name it; the data directory is the service's own option. */
export type StorageOptions = Pick<
  StorageSettings,
  'type' | 'url' | 'prefix' | 'connectTimeoutMs' | 'commitIntervalMs' | 'stallToleranceMs'
>;

/** The `storage` option (`ServiceOptions`) from the values of `storageOptions` (`@anchor/common/config/shared`). */
export function storageSettingsOf(values: {
  databaseType: StoreKind;
  databaseUrl?: string | undefined;
  databasePrefix?: string | undefined;
  databaseTimeout: number;
  lmdbCommitInterval: number;
  databaseStallTolerance?: number | undefined;
}): StorageOptions {
  return {
    type: values.databaseType,
    url: values.databaseUrl,
    prefix: values.databasePrefix,
    connectTimeoutMs: values.databaseTimeout,
    commitIntervalMs: values.lmdbCommitInterval,
    ...(values.databaseStallTolerance === undefined ? {} : { stallToleranceMs: values.databaseStallTolerance }),
  };
}
