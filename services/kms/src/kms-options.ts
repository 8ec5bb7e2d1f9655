import type { ServiceEndpoint } from '@anchor/common/did';
import { serviceSettingsOf, type ServiceOptions, type ServiceSettings } from '@anchor/common/service';

/** Where the master key comes from (see `master-key.ts`); exactly one of these, or dev mode. */
export interface MasterKeySource {
  /** A file holding the 32-byte key, raw or in base64 (`--secret-lock-key-path`). */
  file?: string | undefined;
  /** The key in base64 (`KMS_SECRET_LOCK_KEY`). */
  base64?: string | undefined;
}

/** Everything `createServer` takes; every field has a default, so tests give only what they care about. */
export interface KmsOptions extends ServiceOptions {
  /** External URL for `Location` headers; default http://<host>:<port> (a wildcard host shown as localhost). */
  baseUrl?: string | undefined;
  /** LMDB database and the dev-mode master key file. Default `data`. */
  dataDir?: string;
  masterKey?: MasterKeySource;
  /** Without a master key, create one in the data dir (and warn). */
  devMode?: boolean;
  /** `--allowed-peer-networks`: private networks whose peers did:web resolution may reach without dev mode. */
  allowedPeerNetworks?: readonly string[];
  /** Tokens for reads of the service's own routes (/metrics, GET /loglevels). */
  readTokens?: readonly string[];
  /** Tokens for keystore creation and POST /loglevels. */
  writeTokens?: readonly string[];
  /** A did:node node: resolves did:node controllers and creates did:node DIDs. */
  nodeUrl?: string | undefined;
  /** Bearer token for the node's operations endpoint. */
  nodeToken?: string | undefined;
  /** The anchor origin a did:node create names. Default: the node URL. */
  nodeAnchorOrigin?: string | undefined;
  /** How long resolved controller DID documents are reused. Default 5 minutes. */
  didCacheTtlMs?: number;
  /** Worker threads for BBS; 0 runs BBS on the HTTP thread (tests). Default auto: one per core. */
  bbsWorkers?: number | 'auto';
  /** Worker threads for batch signatures (`/signbatch`); 0 signs on the HTTP thread. Default auto: one per core. */
  signWorkers?: number | 'auto';
}

/** What the SSRF guard of controller did:web resolution judges the kms by (`serviceDidWebOptions`, `checkDidWebHost`). */
export function kmsEndpoint(options: KmsOptions): ServiceEndpoint {
  return {
    devMode: options.devMode ?? false,
    ownEndpoint: options.baseUrl,
    allowedPeerNetworks: options.allowedPeerNetworks,
    listenHost: options.host ?? '127.0.0.1',
    servesTls: options.tls !== undefined,
  };
}

/** What the service kit builds for the kms. */
export function kmsSettings(options: KmsOptions): ServiceSettings {
  return {
    ...serviceSettingsOf(options),
    builtins: { health: 'open', metrics: true },
    // Keystore routes decide themselves (capability or controller signature): a bearer token there is a
    // capability, which the token rules must not refuse. Everything else follows the read/write tokens.
    tokens: {
      open: ['/healthcheck', '/v1/keystores/[^/]+'],
      read: options.readTokens ?? [],
      write: options.writeTokens ?? [],
    },
  };
}
