export * from './types.js';
export { createMongoStoreProvider, createStoreProvider, STORE_KINDS, type StorageConfig } from './factory.js';
export { createMemStoreProvider, type MemStoreOptions } from './mem.js';
export { createLmdbStoreProvider, type LmdbStoreOptions } from './lmdb.js';
export type { MongoStoreProvider, MongoStoreOptions } from './mongodb.js';
export { KvStoreProvider, type KvProviderOptions } from './kv-provider.js';
export { checkIntegrity, type IntegrityReport } from './integrity.js';
export { DEFAULT_LIMIT, MAX_LIMIT, MAX_IN_COMBINATIONS } from './query-plan.js';
export { MAX_KEY_BYTES, MAX_RECORD_BYTES, RESERVED_FIELD } from './records.js';
