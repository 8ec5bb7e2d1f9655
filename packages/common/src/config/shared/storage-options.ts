import { opt } from '../options.js';

/** The store kinds `--database-type` takes (`StoreKind` of the storage kit). */
const STORE_KINDS = ['mem', 'lmdb', 'mongodb'] as const;

/** `--database-type`, env `DATABASE_TYPE` besides the prefixed name; `short` keeps a service's alias. */
export function databaseTypeOption(short?: string) {
  return opt.enum(STORE_KINDS, {
    flag: 'database-type',
    ...(short === undefined ? {} : { short }),
    env: ['DATABASE_TYPE'],
    default: 'lmdb',
    help: 'storage: lmdb (embedded, durable, in --data-dir), mongodb (--database-url; use a replica set), or mem (nothing survives a restart)',
  });
}

/** `--database-url`, env `DATABASE_URL`; a secret (credentials live in it). */
export function databaseUrlOption(short?: string) {
  return opt.string({
    flag: 'database-url',
    ...(short === undefined ? {} : { short }),
    env: ['DATABASE_URL'],
    secret: true,
    help: 'MongoDB connection string (mongodb://...)',
  });
}

/** `--database-prefix`, env `DATABASE_PREFIX`. */
export function databasePrefixOption() {
  return opt.string({
    flag: 'database-prefix',
    env: ['DATABASE_PREFIX'],
    help: 'prefix of the store (collection) names, so that several services or nodes can share one database',
  });
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

/** `--database-timeout`: how long start-up retries an unreachable database. */
export function databaseTimeoutOption() {
  return opt.duration({
    flag: 'database-timeout',
    default: '30s',
    help: 'how long start-up keeps retrying, with backoff (0.5 s doubling to 10 s), a database it cannot reach (0: one attempt)',
  });
}

/** `--database-stall-tolerance`: how long /healthcheck calls a store that stopped answering degraded, not down. */
export function databaseStallToleranceOption() {
  return opt.duration({
    flag: 'database-stall-tolerance',
    default: '10s',
    help: 'how long /healthcheck reports a database that stopped answering (connection open, no reply) as degraded (200, status Degraded) before it reports it unavailable (503): a load balancer keeps the replicas in rotation through a short stall and takes them out after a long one. A database that answers with an error is 503 at once',
  });
}

/**
 * The storage flags of a service: `--database-type|url|prefix`, `--lmdb-commit-interval`, `--database-timeout`,
 * `--database-stall-tolerance` (the service kit's `storageSettingsOf` maps their values). `shorts` keeps a
 * service's historical one-letter aliases (the vcs's `-t` and `-v`).
 */
export function storageOptions(shorts: { type?: string; url?: string } = {}) {
  return {
    databaseType: databaseTypeOption(shorts.type),
    databaseUrl: databaseUrlOption(shorts.url),
    databasePrefix: databasePrefixOption(),
    lmdbCommitInterval: lmdbCommitIntervalOption(),
    databaseTimeout: databaseTimeoutOption(),
    databaseStallTolerance: databaseStallToleranceOption(),
  };
}

/** The spec check that goes with `storageOptions`: a MongoDB store needs its URL (the line names the env names). */
export function databaseUrlRequired(envPrefix: string) {
  return (c: { databaseType: string; databaseUrl?: string | undefined }): string | undefined =>
    c.databaseType === 'mongodb' && !c.databaseUrl
      ? `option --database-url (env ${envPrefix}_DATABASE_URL or DATABASE_URL): required with --database-type mongodb`
      : undefined;
}
