import type { KmsSettings } from '@anchor/common/clients';
import type { HostPort } from '@anchor/common/config';
import type { FetchLike } from '@anchor/common/did';
import type { ServiceSettings } from '@anchor/common/service';
import type { StoreKind } from '@anchor/common/storage';
import type { LogKeyType } from '@anchor/common/vct';
import { tracingSettingsOf } from '@anchor/common/tracing';
import type { UndefinedTermsPolicy } from './credentials/entry-preparation.js';
import type { LogDefinition } from './log-definitions.js';

/** Everything `createServer` takes; every field has a default, so tests give only what they care about. */
export interface VctLogOptions {
  /** Listen address. Default 127.0.0.1 (main.ts defaults to all interfaces). */
  host?: string;
  /** Default 0: a free port (see `url`). */
  port?: number;
  /** External URL for WebFinger; default http://<host>:<port> (a wildcard host shown as localhost). */
  baseUrl?: string | undefined;
  /** LMDB database and default key file location. Default `data`. */
  dataDir?: string;
  /** Default one readable and writable log, `main`. */
  logs?: LogDefinition[];
  /** Default lmdb; `connectTimeoutMs` (MongoDB): how long start-up retries a database it cannot reach (0, the default here: one attempt). */
  storage?: {
    type: StoreKind;
    url?: string | undefined;
    prefix?: string | undefined;
    connectTimeoutMs?: number | undefined;
  };
  /** Default `<dataDir>/vct-log-key.pem`. */
  keyFile?: string | undefined;
  /** Type of a generated key (default Ed25519); an existing key must match when given. */
  keyType?: LogKeyType | undefined;
  /** Sign with a key in the kms instead of a key file (`--kms-url`, `--kms-type web`). */
  kms?: KmsSettings | undefined;
  readTokens?: readonly string[];
  writeTokens?: readonly string[];
  integrationIntervalMs?: number;
  integrationBatchSize?: number;
  maxRootAgeMs?: number;
  maxGetEntries?: number;
  /** Lease duration when several replicas share a database. */
  sequencerLeaseMs?: number;
  /** Integrate only while holding the sequencer lease. Default: with mongodb. */
  useSequencerLease?: boolean;
  devMode?: boolean;
  allowUndefinedTerms?: UndefinedTermsPolicy;
  canonicalizeWorkers?: number | 'auto';
  didCacheTtlMs?: number;
  /** JSON-LD contexts added at start (`--contexts-file`, see `@anchor/common/jsonld-contexts`). */
  contextsFile?: string | undefined;
  requestBodyLimit?: string;
  /** Serve /metrics on a separate listener instead of the API listener. */
  metricsHost?: HostPort | undefined;
  /** OTLP/HTTP endpoint of the span exporter; absent: tracing off. */
  tracingOtlpUrl?: string | undefined;
  tls?: { certFile: string; keyFile: string } | undefined;
  /** CA certificates trusted besides Node's bundled roots by every outbound call (the kms, did:web): `--tls-cacerts`. */
  caCertificates?: readonly Buffer[] | undefined;
  /** Replaces the guarded fetch of did:web documents (tests). */
  didWebFetch?: FetchLike;
}

/** What the service kit builds for the log. */
export function vctLogSettings(options: VctLogOptions): ServiceSettings {
  return {
    listen: { host: options.host ?? '127.0.0.1', port: options.port ?? 0 },
    tls: options.tls,
    metricsListen: options.metricsHost,
    tracing: tracingSettingsOf(options),
    storage: {
      ...(options.storage ?? { type: 'lmdb' }),
      dataDir: options.dataDir ?? 'data',
      connectTimeoutMs: options.storage?.connectTimeoutMs ?? 0,
    },
    bodyLimit: options.requestBodyLimit ?? '1mb',
    client: { ca: options.caCertificates },
    health: { timeField: 'currentTime', statusField: 'status' },
    builtins: { health: 'open', metrics: 'open' },
    // As the original: /healthcheck, WebFinger and /metrics are open; reads need a read token and writes
    // (add-vc, log levels) a write token, each only when some are configured.
    tokens: {
      open: ['/healthcheck', '/\\.well-known/webfinger', '/metrics'],
      read: options.readTokens ?? [],
      write: options.writeTokens ?? [],
    },
  };
}
