import { serviceOptionsOf, storageSettingsOf } from '@anchor/common/service';
import { defineConfig, opt, type ConfigOf } from '@anchor/common/config';
import {
  allowedPeerNetworksOption,
  hostUrlOption,
  logOptions,
  metricsHostOption,
  requestBodyLimitOption,
  serviceChecks,
  storageOptions,
  tlsCaCertsOption,
  tlsServeOptions,
  tracingOptions,
} from '@anchor/common/config/shared';
import { contextsFileOption } from '@anchor/common/jsonld-contexts';
import { PROJECT_VERSION } from '@anchor/common/version';
import { VCS_MODES, type VcsOptions } from './vcs-options.js';

const STORE_TYPES = ['mem', 'lmdb', 'mongodb'] as const;

/**
 * Every flag of `vcs`: the seed's table (`VC_REST_*`, `DATABASE_*`, `KMSSECRETS_*`, retries and backoff) plus what
 * this service adds (kms, node, log, data directory). Each flag's first env name is `VC_REST_<FLAG>` (the config
 * module's env rule); the seed's own names follow as aliases. `--help` prints them; the README's option table is
 * generated from this spec.
 */
export const VCS_CONFIG = defineConfig({
  program: 'vcs',
  version: PROJECT_VERSION,
  description:
    'Verifiable credential service: issuer and holder profiles, issue, compose-and-issue, verify, presentations, ' +
    'status lists (StatusList2021, Bitstring Status List), W3C VC-API routes.',
  envPrefix: 'VC_REST',
  options: {
    hostUrl: hostUrlOption({ short: 'u', required: true }),
    hostUrlExternal: opt.url({
      flag: 'host-url-external',
      short: 'x',
      protocols: ['http', 'https'],
      help: 'external URL of the service: status list URLs are minted under it (default http://<host-url>)',
    }),
    mode: opt.enum(VCS_MODES, {
      flag: 'mode',
      short: 'm',
      default: 'combined',
      help: 'route set served: issuer, verifier, holder or combined (all three)',
    }),
    dataDir: opt.string({
      flag: 'data-dir',
      default: 'data/vcs',
      help: 'directory of the embedded (LMDB) stores: the main store and, below kms-secrets/, the local keys',
    }),
    apiToken: opt.string({
      flag: 'api-token',
      secret: true,
      help: 'bearer token every request must carry (Authorization: Bearer <token>), except /healthcheck, /openapi.json and status lists; none means open',
    }),
    requestTokens: opt.map({
      flag: 'request-tokens',
      secret: true,
      help: 'bearer tokens this service sends: node=..., vct=..., resolver=...',
    }),
    edvUrl: opt.string({
      flag: 'edv-url',
      short: 'e',
      help: 'accepted for compatibility and not used: issued credentials are indexed in the service store, not in a vault',
    }),
    blocDomain: opt.string({
      flag: 'bloc-domain',
      short: 'b',
      env: ['BLOC_DOMAIN'],
      help: 'accepted for compatibility and not used: DIDs are did:node on --node-url',
    }),
    universalResolverUrl: opt.url({
      flag: 'universal-resolver-url',
      short: 'r',
      protocols: ['http', 'https'],
      help: 'DID resolver for methods other than key, web and node: GET <url>/1.0/identifiers/<did>',
    }),
    ...storageOptions({ type: 't', url: 'v' }),
    kmsSecretsDatabaseType: opt.enum(STORE_TYPES, {
      flag: 'kms-secrets-database-type',
      short: 'k',
      env: ['KMSSECRETS_DATABASE_TYPE'],
      help: 'storage of the local signing keys (and of the kms keystore capability): mem, lmdb (in <data-dir>/kms-secrets) or mongodb; default --database-type',
    }),
    kmsSecretsDatabaseUrl: opt.string({
      flag: 'kms-secrets-database-url',
      short: 's',
      env: ['KMSSECRETS_DATABASE_URL'],
      secret: true,
      help: 'MongoDB connection string of the key store; should differ from --database-url',
    }),
    kmsSecretsDatabasePrefix: opt.string({
      flag: 'kms-secrets-database-prefix',
      env: ['KMSSECRETS_DATABASE_PREFIX'],
      help: 'prefix of the key store names',
    }),
    kmsUrl: opt.url({
      flag: 'kms-url',
      protocols: ['http', 'https'],
      help: 'key management service: every issuer and holder key is created in it and every signature is made by it (default: local keys in the kms-secrets store)',
    }),
    kmsKeystore: opt.string({
      flag: 'kms-keystore',
      help: 'id of a kms keystore made beforehand (with --kms-capability); default: one created on first start, its id and capability kept in the kms-secrets store',
    }),
    kmsCapability: opt.string({
      flag: 'kms-capability',
      secret: true,
      help: "the --kms-keystore's capability token (returned when the keystore was created), sent as Authorization: Bearer",
    }),
    nodeUrl: opt.url({
      flag: 'node-url',
      protocols: ['http', 'https'],
      help: 'did:node node: profiles without a DID get a did:node created there, and did:node DIDs are resolved there (without it: did:key)',
    }),
    didPublishTimeout: opt.duration({
      flag: 'did-publish-timeout',
      default: '30s',
      help: 'how long profile creation waits for a new did:node to resolve on --node-url',
    }),
    vctUrl: opt.url({
      flag: 'vct-url',
      protocols: ['http', 'https'],
      help: 'transparency log (<log base URL>/<alias>): issued credentials are added to it and the issue answer carries the receipt; the verify check "logged" asks it',
    }),
    vctMergeDelay: opt.duration({
      flag: 'vct-merge-delay',
      default: '5s',
      help: 'the longest the log takes to put an accepted entry in a signed tree head: the "logged" check of a younger credential waits for it that long (and then answers pending, not failed)',
    }),
    vcApiProfile: opt.string({
      flag: 'vc-api-profile',
      help: 'issuer profile serving the W3C VC-API routes /credentials/issue and /credentials/status (without it they answer 404)',
    }),
    contextsFile: contextsFileOption(),
    devMode: opt.bool({
      flag: 'dev-mode',
      help: 'resolve did:web over plain http for every host, and at private, link-local and loopback addresses (otherwise https to public addresses only, and loopback when the vcs itself is on loopback)',
    }),
    ...allowedPeerNetworksOption(),
    didCacheTtl: opt.duration({
      flag: 'did-cache-ttl',
      default: '1m',
      help: 'how long resolved DID documents (proof verification keys) are reused',
    }),
    verifyClockSkew: opt.duration({
      flag: 'verify-clock-skew',
      default: '5m',
      help: "how far a verified credential's validity period may be off the verifier's clock (the expiration and validFrom checks): an issuer's clock may run ahead or behind",
    }),
    maxRetries: opt.int({
      flag: 'max-retries',
      short: 'a',
      env: ['MAX_RETRIES', 'MAX-RETRIES'],
      default: 5,
      min: 0,
      max: 100,
      help: "retries of a failed outbound call that may succeed later (node, log, resolver), and of reaching the kms at start-up (another issuer's status list is fetched once: its URL is the request's to name)",
    }),
    initialBackoffMillisec: opt.int({
      flag: 'initial-backoff-millisec',
      short: 'i',
      env: ['INITIAL_BACKOFF_MILLISEC'],
      default: 250,
      min: 1,
      help: 'wait before the first retry, milliseconds',
    }),
    backoffFactor: opt.number({
      flag: 'backoff-factor',
      short: 'f',
      env: ['BACKOFF_FACTOR', 'BACKOFF-FACTOR'],
      default: 1.5,
      min: 1,
      help: 'growth factor of the wait for later retries',
    }),
    tlsCacerts: tlsCaCertsOption('the kms, the node, the log, did:web documents and status lists'),
    tlsSystemcertpool: opt.bool({
      flag: 'tls-systemcertpool',
      help: "accepted for compatibility and not used: outbound https trusts Node's bundled roots plus --tls-cacerts",
    }),
    governanceClaimsFile: opt.string({
      flag: 'governance-claims-file',
      help: 'accepted for compatibility and not used: there is no governance mode',
    }),
    ...tlsServeOptions(),
    metricsHost: metricsHostOption(),
    ...tracingOptions(),
    requestBodyLimit: requestBodyLimitOption(),
    ...logOptions({
      example: 'vcs-issuer=debug:info',
      levels: 'CRITICAL, ERROR, WARNING, INFO or DEBUG (any case)',
      short: 'l',
    }),
  },
  checks: [
    ...serviceChecks('VC_REST'),
    (c) =>
      (c.kmsSecretsDatabaseType ?? c.databaseType) === 'mongodb' && !(c.kmsSecretsDatabaseUrl ?? c.databaseUrl)
        ? 'option --kms-secrets-database-url (env KMSSECRETS_DATABASE_URL): required with a mongodb key store'
        : undefined,
    (c) =>
      (c.kmsKeystore === undefined) !== (c.kmsCapability === undefined) ||
      (c.kmsKeystore !== undefined && c.kmsUrl === undefined)
        ? 'options --kms-keystore and --kms-capability: give both (with --kms-url), or neither'
        : undefined,
  ],
});

export type VcsFlags = ConfigOf<typeof VCS_CONFIG>;

/** The server's options from the parsed flags. */
export function vcsOptionsFrom(flags: VcsFlags): VcsOptions {
  return {
    ...serviceOptionsOf(flags),
    externalUrl: flags.hostUrlExternal,
    mode: flags.mode,
    keyStorage: storageSettingsOf({
      databaseType: flags.kmsSecretsDatabaseType ?? flags.databaseType,
      databaseUrl: flags.kmsSecretsDatabaseUrl ?? flags.databaseUrl,
      databasePrefix: flags.kmsSecretsDatabasePrefix ?? flags.databasePrefix,
      databaseTimeout: flags.databaseTimeout,
      lmdbCommitInterval: flags.lmdbCommitInterval,
      databaseStallTolerance: flags.databaseStallTolerance,
    }),
    apiToken: flags.apiToken,
    requestTokens: flags.requestTokens,
    universalResolverUrl: flags.universalResolverUrl,
    kmsUrl: flags.kmsUrl,
    kmsKeystore: flags.kmsKeystore,
    kmsCapability: flags.kmsCapability,
    nodeUrl: flags.nodeUrl,
    didPublishTimeoutMs: flags.didPublishTimeout,
    vctUrl: flags.vctUrl,
    vctMergeDelayMs: flags.vctMergeDelay,
    vcApiProfile: flags.vcApiProfile,
    devMode: flags.devMode,
    allowedPeerNetworks: flags.allowedPeerNetworks,
    contextsFile: flags.contextsFile,
    didCacheTtlMs: flags.didCacheTtl,
    verifyClockSkewMs: flags.verifyClockSkew,
    retry: {
      maxRetries: flags.maxRetries,
      initialBackoffMs: flags.initialBackoffMillisec,
      factor: flags.backoffFactor,
    },
    tlsCaCertFiles: flags.tlsCacerts,
  };
}
