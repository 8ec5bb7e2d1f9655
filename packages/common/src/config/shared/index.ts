/**
 * The option sections every service shares, declared once: the listener (`--host-url`, TLS, body limit,
 * metrics), storage, logging, and the queue. A service spreads them into its spec where its `--help` lists
 * them; the option builders of common's feature folders (tracing, CA certificates, peer networks) are
 * re-exported so that a service's config imports its shared flags from one place.
 */
export {
  hostUrlOption,
  metricsHostOption,
  requestBodyLimitOption,
  tlsServeOptions,
  tlsServePairCheck,
} from './listen-options.js';
export {
  databasePrefixOption,
  databaseStallToleranceOption,
  databaseTimeoutOption,
  databaseTypeOption,
  databaseUrlOption,
  databaseUrlRequired,
  lmdbCommitIntervalOption,
  storageOptions,
} from './storage-options.js';
export { logOptions } from './log-options.js';
export { mqOptions, mqRedeliveryOptions } from './mq-options.js';
export { tracingOptions } from '../../tracing/index.js';
export { tlsCaCertsOption } from '../../http-client/index.js';
export { allowedPeerNetworksOption } from '../../httpsig/index.js';
export { serviceChecks, serviceTailOptions } from './service-sections.js';
