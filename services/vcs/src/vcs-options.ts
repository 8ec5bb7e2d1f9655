import type { FetchLike } from '@anchor/common/did';
import {
  serviceSettingsOf,
  type ServiceOptions,
  type ServiceSettings,
  type StorageOptions,
} from '@anchor/common/service';

export const VCS_MODES = ['issuer', 'verifier', 'holder', 'combined'] as const;
export type VcsMode = (typeof VCS_MODES)[number];

/** How outbound calls that may succeed later (5xx, network) are retried. */
export interface RetryPolicy {
  maxRetries: number;
  initialBackoffMs: number;
  factor: number;
}

/**
 * Everything `createServer` takes; every field has a default, so tests give only what they care about. The
 * `--tls-cacerts` files are read at start (`tlsCaCertFiles`), by the service's own outbound clients.
 */
export interface VcsOptions extends Omit<ServiceOptions, 'caCertificates'> {
  /** External base URL (status list URLs); default http://<host>:<port> (a wildcard host shown as localhost). */
  externalUrl?: string | undefined;
  /** Default combined. */
  mode?: VcsMode;
  /** Embedded stores' directory. Default `data/vcs`. */
  dataDir?: string;
  /** The main store (profiles, status lists, issued-credential index). Default lmdb. */
  storage?: StorageOptions;
  /** The local keys' store (`--kms-secrets-database-*`). Default: the main store's kind, in `<dataDir>/kms-secrets`. */
  keyStorage?: StorageOptions;
  apiToken?: string | undefined;
  /** Outbound bearer tokens by service: node, vct, resolver. */
  requestTokens?: Readonly<Record<string, string>>;
  universalResolverUrl?: string | undefined;
  kmsUrl?: string | undefined;
  /** A keystore made beforehand and its capability; without them the service creates one on first start. */
  kmsKeystore?: string | undefined;
  kmsCapability?: string | undefined;
  nodeUrl?: string | undefined;
  /** How long profile creation waits for a new did:node to resolve. Default 30 s. */
  didPublishTimeoutMs?: number;
  /** How long the "logged" check waits for a young entry to be merged into a signed tree head. */
  vctMergeDelayMs?: number;
  vctUrl?: string | undefined;
  vcApiProfile?: string | undefined;
  devMode?: boolean;
  /** `--allowed-peer-networks`: private networks whose peers (did:web documents, status lists) may be fetched from without dev mode. */
  allowedPeerNetworks?: readonly string[];
  didCacheTtlMs?: number;
  /** `--verify-clock-skew`: the allowance of the expiration and validFrom checks. Default 5 minutes. */
  verifyClockSkewMs?: number;
  retry?: RetryPolicy;
  tlsCaCertFiles?: readonly string[];
  /** `--contexts-file`: JSON-LD contexts the operator adds (over the stored ones). */
  contextsFile?: string | undefined;
  /** Replaces the guarded fetch of did:web documents (tests). */
  didWebFetch?: FetchLike;
}

export const DEFAULT_RETRY: RetryPolicy = { maxRetries: 5, initialBackoffMs: 250, factor: 1.5 };

/** Paths anyone may call whatever `--api-token` says: health, the API description, and status lists (verifiers elsewhere fetch them). */
const OPEN_PATHS = ['/healthcheck', '/openapi.json', '/[^/]+/status/[^/]+'];

/** What the service kit builds for the vcs. */
export function vcsSettings(options: VcsOptions): ServiceSettings {
  const token = options.apiToken ? [options.apiToken] : [];
  return {
    ...serviceSettingsOf(options, { dataDir: 'data/vcs' }),
    builtins: { health: 'open', metrics: true },
    tokens: { open: OPEN_PATHS, read: token, write: token },
  };
}
