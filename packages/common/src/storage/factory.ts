/**
 * Chooses the storage adapter from the services' flags (`--database-type`, `--database-url`,
 * `--database-prefix`, `--data-dir`).
 */
import { badRequest } from '../errors/index.js';
import { createLmdbStoreProvider } from './lmdb.js';
import { createMemStoreProvider } from './mem.js';
import type { MongoStoreOptions } from './mongodb.js';
import type { StoreKind, StoreProvider } from './types.js';

/**
 * The MongoDB adapter, loaded when first used: importing the driver is a noticeable part of a service's
 * start, which a service on LMDB need not pay.
 */
export async function createMongoStoreProvider(options: MongoStoreOptions): Promise<StoreProvider> {
  const { createMongoStoreProvider: create } = await import('./mongodb.js');
  return create(options);
}

export interface StorageConfig {
  type: StoreKind;
  /** LMDB: the environment directory (required). */
  dataDir?: string;
  /** MongoDB: the connection string (required). */
  url?: string;
  /** Prefix of store (collection / named database) names. */
  prefix?: string;
  /** Period of the expiry sweep in ms (0 disables; default 60 s). */
  sweepIntervalMs?: number;
  /** MongoDB: how long start-up keeps retrying an unreachable server, with backoff (default 30 s). */
  connectTimeoutMs?: number;
  /** LMDB: the group-commit interval in ms (`LmdbStoreOptions.commitIntervalMs`). */
  commitIntervalMs?: number;
}

export const STORE_KINDS: readonly StoreKind[] = ['mem', 'lmdb', 'mongodb'];

export async function createStoreProvider(config: StorageConfig): Promise<StoreProvider> {
  const common = {
    ...(config.prefix ? { prefix: config.prefix } : {}),
    ...(config.sweepIntervalMs !== undefined ? { sweepIntervalMs: config.sweepIntervalMs } : {}),
  };
  switch (config.type) {
    case 'mem':
      return createMemStoreProvider(common);
    case 'lmdb':
      if (!config.dataDir) throw badRequest('database type lmdb needs a data directory (--data-dir)');
      return createLmdbStoreProvider({
        ...common,
        dataDir: config.dataDir,
        ...(config.commitIntervalMs !== undefined ? { commitIntervalMs: config.commitIntervalMs } : {}),
      });
    case 'mongodb':
      if (!config.url) throw badRequest('database type mongodb needs a connection string (--database-url)');
      return createMongoStoreProvider({
        ...common,
        url: config.url,
        ...(config.connectTimeoutMs !== undefined ? { connectTimeoutMs: config.connectTimeoutMs } : {}),
      });
    default:
      throw badRequest(
        `unknown database type ${JSON.stringify(config.type)} (expected one of ${STORE_KINDS.join(', ')})`,
      );
  }
}
