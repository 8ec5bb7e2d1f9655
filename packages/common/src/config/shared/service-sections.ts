import { tlsCaCertsOption } from '../../http-client/index.js';
import { tracingOptions } from '../../tracing/index.js';
import { logOptions } from './log-options.js';
import { metricsHostOption, requestBodyLimitOption, tlsServeOptions, tlsServePairCheck } from './listen-options.js';
import { databaseUrlRequired } from './storage-options.js';

/**
 * The tail of a service's options, in the order its `--help` lists them: `--request-body-limit`,
 * `--metrics-host`, `--tracing-otlp-url`, `--tls-serve-cert|key`, `--tls-cacerts` (what the service's clients
 * trust them for: `caCertsFor`) and `--log-level|format`.
 */
export function serviceTailOptions(service: {
  caCertsFor: string;
  log: Parameters<typeof logOptions>[0];
  metricsHost?: Parameters<typeof metricsHostOption>[0];
}) {
  return {
    requestBodyLimit: requestBodyLimitOption(),
    metricsHost: metricsHostOption(service.metricsHost),
    ...tracingOptions(),
    ...tlsServeOptions(),
    tlsCaCerts: tlsCaCertsOption(service.caCertsFor),
    ...logOptions(service.log),
  };
}

/** The checks that go with the shared sections: a whole TLS pair, and a URL for a MongoDB store. */
export function serviceChecks(envPrefix: string) {
  return [tlsServePairCheck, databaseUrlRequired(envPrefix)] as const;
}
