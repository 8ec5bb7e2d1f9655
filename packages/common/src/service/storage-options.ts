import { opt } from '../config/index.js';
import type { StoreKind } from '../storage/index.js';
import type { StorageSettings } from './open-storage.js';

/** A service's store as its options name it; the data directory is the service's own option. */
export type StorageOptions = Pick<StorageSettings, 'type' | 'url' | 'prefix' | 'connectTimeoutMs' | 'commitIntervalMs'>;

/**
 * The storage flags every service takes, with one help text each: `--database-type|url|prefix|timeout`, env
 * `<PREFIX>_DATABASE_*` by the config rule plus the generic `DATABASE_*` the original's deployments use.
 * `shorts` keeps a service's historical one-letter aliases (the vcs's `-t` and `-v`).
 */
export function storageOptions(shorts: { type?: string; url?: string } = {}) {
  return {
    databaseType: opt.enum(['mem', 'lmdb', 'mongodb'] as const, {
      flag: 'database-type',
      ...(shorts.type === undefined ? {} : { short: shorts.type }),
      env: ['DATABASE_TYPE'],
      default: 'lmdb',
      help: 'storage: lmdb (embedded, durable, in --data-dir), mongodb (--database-url; use a replica set), or mem (nothing survives a restart)',
    }),
    databaseUrl: opt.string({
      flag: 'database-url',
      ...(shorts.url === undefined ? {} : { short: shorts.url }),
      env: ['DATABASE_URL'],
      secret: true,
      help: 'MongoDB connection string (mongodb://...)',
    }),
    databasePrefix: opt.string({
      flag: 'database-prefix',
      env: ['DATABASE_PREFIX'],
      help: 'prefix of the store (collection) names',
    }),
    lmdbCommitInterval: lmdbCommitIntervalOption(),
    databaseTimeout: opt.duration({
      flag: 'database-timeout',
      default: '30s',
      help: 'how long start-up keeps retrying, with backoff (0.5 s doubling to 10 s), a database it cannot reach (0: one attempt)',
    }),
  };
}

/** `--lmdb-commit-interval`: the embedded store's group commit (`LmdbStoreOptions.commitIntervalMs`). */
export function lmdbCommitIntervalOption() {
  return opt.duration({
    flag: 'lmdb-commit-interval',
    env: ['LMDB_COMMIT_INTERVAL'],
    default: '4ms',
    max: '1s',
    help: 'lmdb group commit: shortest time between the starts of two commits; writes arriving sooner wait and are committed together (one fsync). A write after a quieter spell is committed at once. 0: each event turn commits its own writes',
  });
}

/** The spec check that goes with `storageOptions`: a MongoDB store needs its URL (the line names the env names). */
export function databaseUrlRequired(envPrefix: string) {
  return (c: { databaseType: string; databaseUrl?: string | undefined }): string | undefined =>
    c.databaseType === 'mongodb' && !c.databaseUrl
      ? `option --database-url (env ${envPrefix}_DATABASE_URL or DATABASE_URL): required with --database-type mongodb`
      : undefined;
}

/** The `storage` option (`ServiceOptions`) from the values of `storageOptions`. */
export function storageSettingsOf(values: {
  databaseType: StoreKind;
  databaseUrl?: string | undefined;
  databasePrefix?: string | undefined;
  databaseTimeout: number;
  lmdbCommitInterval: number;
}): StorageOptions {
  return {
    type: values.databaseType,
    url: values.databaseUrl,
    prefix: values.databasePrefix,
    connectTimeoutMs: values.databaseTimeout,
    commitIntervalMs: values.lmdbCommitInterval,
  };
}
