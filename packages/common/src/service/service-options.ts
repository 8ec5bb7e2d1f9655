import type { HostPort } from '../config/index.js';
import { tracingSettingsOf } from '../tracing/index.js';
import type { StoreKind } from '../storage/index.js';
import type { ServiceSettings } from './service-settings.js';
import { storageSettingsOf, type StorageOptions } from './storage-options.js';

/** What every service's `createServer` takes for the parts the kit builds; a service's options extend it. */
export interface ServiceOptions {
  /** Listen address. Default 127.0.0.1 (main.ts defaults to all interfaces). */
  host?: string;
  /** Default 0: a free port (see `url`). */
  port?: number;
  /** The embedded store's directory (and whatever else the service keeps on disk). */
  dataDir?: string;
  /** Default lmdb; `connectTimeoutMs` (MongoDB): how long start-up retries a database it cannot reach (0, the default here: one attempt). */
  storage?: StorageOptions;
  /** Largest accepted request body. Default 1mb. */
  requestBodyLimit?: string;
  /** Serve /metrics on a separate listener instead of the API listener. */
  metricsHost?: HostPort | undefined;
  /** OTLP/HTTP endpoint of the span exporter; absent: tracing off. */
  tracingOtlpUrl?: string | undefined;
  tls?: { certFile: string; keyFile: string } | undefined;
  /** CA certificates trusted besides Node's bundled roots by the kit's outbound client and the service's own: `--tls-cacerts`. */
  caCertificates?: readonly Buffer[] | undefined;
}

/**
 * The kit's settings every service builds the same way from its `ServiceOptions`; the service adds its token
 * rules and built-in routes (and whatever else differs). `dataDir` is the default data directory.
 */
export function serviceSettingsOf(
  options: ServiceOptions,
  defaults: { dataDir: string } = { dataDir: 'data' },
): Omit<ServiceSettings, 'tokens'> {
  return {
    listen: { host: options.host ?? '127.0.0.1', port: options.port ?? 0 },
    tls: options.tls,
    metricsListen: options.metricsHost,
    tracing: tracingSettingsOf(options),
    storage: {
      ...(options.storage ?? { type: 'lmdb' }),
      dataDir: options.dataDir ?? defaults.dataDir,
      connectTimeoutMs: options.storage?.connectTimeoutMs ?? 0,
    },
    bodyLimit: options.requestBodyLimit ?? '1mb',
    client: { ca: options.caCertificates },
  };
}

/**
 * The `ServiceOptions` from the values of the flags every service declares: `--host-url`, `--data-dir`, the
 * `storageOptions`, `--request-body-limit`, `--metrics-host`, the `tracingOptions` and the `tlsServeOptions` (all
 * declared in `@anchor/common/config/shared`). The
 * CA certificates are left to the service, whose `--tls-cacerts` help names what it trusts them for.
 */
export function serviceOptionsOf(flags: {
  hostUrl: HostPort;
  dataDir: string;
  databaseType: StoreKind;
  databaseUrl?: string | undefined;
  databasePrefix?: string | undefined;
  databaseTimeout: number;
  lmdbCommitInterval: number;
  databaseStallTolerance?: number | undefined;
  requestBodyLimit: string;
  metricsHost?: HostPort | undefined;
  tracingOtlpUrl?: string | undefined;
  tlsServeCert?: string | undefined;
  tlsServeKey?: string | undefined;
}): Omit<ServiceOptions, 'caCertificates'> {
  return {
    host: flags.hostUrl.host,
    port: flags.hostUrl.port,
    dataDir: flags.dataDir,
    storage: storageSettingsOf(flags),
    requestBodyLimit: flags.requestBodyLimit,
    metricsHost: flags.metricsHost,
    tracingOtlpUrl: flags.tracingOtlpUrl,
    tls: tlsSettingsOf(flags),
  };
}

interface TlsServeValues {
  tlsServeCert?: string | undefined;
  tlsServeKey?: string | undefined;
}

/** The `tls` option from those values. */
export function tlsSettingsOf(values: TlsServeValues): { certFile: string; keyFile: string } | undefined {
  return values.tlsServeCert && values.tlsServeKey
    ? { certFile: values.tlsServeCert, keyFile: values.tlsServeKey }
    : undefined;
}
