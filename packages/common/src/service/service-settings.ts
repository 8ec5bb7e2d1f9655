import type { HostPort } from '../config/index.js';
import type {
  BuiltinRoutes,
  HealthCheck,
  HealthOptions,
  RequestSigner,
  SignatureAuthenticator,
} from '../http/index.js';
import type { LogFormat, LogLevelSpec } from '../log/index.js';
import type { MessageQueueConfig } from '../mq/index.js';
import type { StorageSettings } from './open-storage.js';
import type { TokenSettings } from './token-settings.js';

/** What the kit builds for a service, read from the service's config by its definition. */
export interface ServiceSettings {
  /** The API listener. */
  readonly listen: HostPort;
  /** PEM files: serve https. */
  readonly tls?: { readonly certFile: string; readonly keyFile: string } | undefined;
  /** Serve `/metrics` on this separate listener instead of the API listener. */
  readonly metricsListen?: HostPort | undefined;
  /** Applied before anything logs; absent leaves the process's logging as it is (services embedded in tests). */
  readonly log?: { readonly levels: string | LogLevelSpec; readonly format?: LogFormat | undefined } | undefined;
  readonly storage: StorageSettings;
  /**
   * Absent: the service has no queue (and no `mqStatus` health field). A service's queue always names its
   * identity (a deployment's own URL or DID, shared by its replicas): its topics live under the namespace
   * derived from it, so services sharing a broker and a vhost never take each other's work.
   */
  readonly queue?: (MessageQueueConfig & { readonly identity: string }) | undefined;
  /** Largest accepted request body, e.g. `2mb`. */
  readonly bodyLimit: string;
  readonly health?: HealthOptions | undefined;
  /** The HTTP kit's built-in routes; `/metrics` is left off the API listener when `metricsListen` is set. */
  readonly builtins?: BuiltinRoutes | undefined;
  /** Starts (and stays, until changed at runtime) in maintenance: health reports it. */
  readonly maintenance?: boolean | undefined;
  /** Spans exported over OTLP/HTTP to `otlpUrl` (`--tracing-otlp-url`); absent: tracing off, no-op tracer. */
  readonly tracing?: { readonly otlpUrl?: string | undefined } | undefined;
  /** Inbound bearer-token rules. */
  readonly tokens: TokenSettings;
  readonly client?:
    | {
        readonly timeoutMs?: number | undefined;
        /** Outbound requests are signed (with the extension's signer) only where these rules ask for a token; absent: all. */
        readonly signedPaths?: TokenSettings | undefined;
        /** CA certificates trusted besides Node's bundled roots (`--tls-cacerts`, read with `readCaCertificates`). */
        readonly ca?: readonly Buffer[] | undefined;
      }
    | undefined;
}

/**
 * What a service adds to the kit's context, built after the store and the queue are open and before the
 * HTTP app exists: its own context members, and the pieces of the HTTP app and outbound client that need
 * them (a signature authenticator resolving keys through the service's DID resolver, a request signer
 * holding the service's key).
 */
export interface ContextExtension<E extends object> {
  readonly context: E;
  readonly signatureAuthenticator?: SignatureAuthenticator | undefined;
  readonly requestSigner?: RequestSigner | undefined;
  /** More `/healthcheck` fields, after the kit's `dbStatus` and `mqStatus`. */
  readonly health?: Readonly<Record<string, HealthCheck>>;
}
