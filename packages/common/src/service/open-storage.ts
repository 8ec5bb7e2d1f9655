import { getLogger } from '../log/index.js';
import { createStoreProvider, type StorageConfig, type StoreProvider } from '../storage/index.js';

export interface StorageSettings extends StorageConfig {
  /**
   * Keep retrying (once a second) this long while the database cannot be reached, for a MongoDB container
   * that starts after the service (the original log's `--timeout`). Absent: one attempt, errors as they are.
   */
  connectTimeoutMs?: number | undefined;
}

const log = getLogger('service-storage');

/** Opens the store provider; with `connectTimeoutMs`, pings it and retries until the deadline. */
export async function openStorage(settings: StorageSettings): Promise<StoreProvider> {
  const { connectTimeoutMs, ...config } = settings;
  if (connectTimeoutMs === undefined) return createStoreProvider(config);
  const deadline = Date.now() + connectTimeoutMs;
  for (let attempt = 1; ; attempt++) {
    try {
      const provider = await createStoreProvider(config);
      await provider.ping();
      return provider;
    } catch (error) {
      if (Date.now() + 1_000 > deadline)
        throw new Error(`cannot open the ${config.type} database: ${(error as Error).message}`, { cause: error });
      log.warn('database not reachable yet; retrying', { type: config.type, attempt, err: error as Error });
      await new Promise((resolve) => setTimeout(resolve, 1_000));
    }
  }
}
