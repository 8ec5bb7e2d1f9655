import type { KmsSettings } from '@anchor/common/clients';
import type { FetchLike } from '@anchor/common/did';
import { serviceSettingsOf, type ServiceOptions, type ServiceSettings } from '@anchor/common/service';
import type { LogKeyType } from '@anchor/common/vct';
import type { UndefinedTermsPolicy } from './credentials/entry-preparation.js';
import type { LogDefinition } from './log-definitions.js';

/** Everything `createServer` takes; every field has a default, so tests give only what they care about. */
export interface VctLogOptions extends ServiceOptions {
  /** External URL for WebFinger; default http://<host>:<port> (a wildcard host shown as localhost). */
  baseUrl?: string | undefined;
  /** LMDB database and default key file location. Default `data`. */
  dataDir?: string;
  /** Default one readable and writable log, `main`. */
  logs?: LogDefinition[];
  /** Default `<dataDir>/vct-log-key.pem`. */
  keyFile?: string | undefined;
  /** Where the newest signed head of each alias is kept (ADR 0014). Default `<dataDir>/tree-high-water.json`. */
  treeHighWaterFile?: string | undefined;
  /** Start even when the database's tree is smaller than a head already signed (after a restore). */
  allowTreeRollback?: boolean;
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
  /** Origin line of each alias's C2SP checkpoint, `{alias}` replaced; default `<base URL without scheme>/{alias}`. */
  tlogOrigin?: string | undefined;
  /** `--tiles-dir`: each alias's tlog-tiles written as files under `<tilesDir>/<alias>/`. Default none (off). */
  tilesDir?: string | undefined;
  /** Witnesses asked to cosign each new checkpoint: `<cosignature vkey>@<submission URL>`. */
  witnesses?: readonly string[];
  /** How long the log waits for one witness's answer. Default 10 s. */
  witnessTimeoutMs?: number;
  /** Witness mode: the note verifier keys of the logs cosigned at `POST /add-checkpoint` (key name = origin). */
  witnessLogs?: readonly string[];
  /** The witness's Ed25519 key file. Default `<dataDir>/witness-key.pem`, created when missing. */
  witnessKeyFile?: string | undefined;
  /** The witness's key name. Default `<base URL without scheme>/witness`. */
  witnessName?: string | undefined;
  /** Lease duration when several replicas share a database. */
  sequencerLeaseMs?: number;
  /** Integrate only while holding the sequencer lease. Default: with mongodb. */
  useSequencerLease?: boolean;
  devMode?: boolean;
  /** `--allowed-peer-networks`: private networks whose peers did:web resolution may reach without dev mode. */
  allowedPeerNetworks?: readonly string[];
  allowUndefinedTerms?: UndefinedTermsPolicy;
  canonicalizeWorkers?: number | 'auto';
  didCacheTtlMs?: number;
  /** JSON-LD contexts added at start (`--contexts-file`, see `@anchor/common/jsonld-contexts`). */
  contextsFile?: string | undefined;
  /** Replaces the guarded fetch of did:web documents (tests). */
  didWebFetch?: FetchLike;
}

/** What the service kit builds for the log. */
export function vctLogSettings(options: VctLogOptions): ServiceSettings {
  return {
    ...serviceSettingsOf(options),
    builtins: { health: 'open', metrics: 'open' },
    // As trustbloc/vct: /healthcheck, WebFinger and /metrics are open; reads need a read token and writes
    // (add-vc, log levels) a write token, each only when some are configured.
    tokens: {
      open: ['/healthcheck', '/\\.well-known/webfinger', '/metrics'],
      read: options.readTokens ?? [],
      write: options.writeTokens ?? [],
    },
  };
}
