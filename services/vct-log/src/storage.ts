import { getLogger } from '@anchor/common/log';
import { createStoreProvider, type StoreKind, type StoreProvider } from '@anchor/common/storage';

const log = getLogger('vct-storage');

export interface StorageOptions {
  type: StoreKind;
  url?: string | undefined;
  prefix?: string | undefined;
  /** Keep retrying (once a second) this long while the database cannot be reached. */
  connectTimeoutMs?: number | undefined;
}

/**
 * Opens the store provider, retrying once a second up to `connectTimeoutMs` (a MongoDB container that
 * starts after the log, as the original's `--timeout` allowed).
 */
export async function openStorage(options: StorageOptions, dataDir: string): Promise<StoreProvider> {
  const deadline = Date.now() + (options.connectTimeoutMs ?? 0);
  for (let attempt = 1; ; attempt++) {
    try {
      const provider = await createStoreProvider({ type: options.type, dataDir, url: options.url, prefix: options.prefix });
      await provider.ping();
      return provider;
    } catch (error) {
      if (Date.now() + 1_000 > deadline) throw new Error(`cannot open the ${options.type} database: ${(error as Error).message}`, { cause: error });
      log.warn('database not reachable yet; retrying', { type: options.type, attempt, err: error as Error });
      await new Promise((resolve) => setTimeout(resolve, 1_000));
    }
  }
}
