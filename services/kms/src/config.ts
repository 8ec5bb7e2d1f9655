import { serviceOptionsOf } from '@anchor/common/service';
import { defineConfig, opt, type ConfigOf } from '@anchor/common/config';
import {
  allowedPeerNetworksOption,
  hostUrlOption,
  serviceChecks,
  serviceTailOptions,
  storageOptions,
} from '@anchor/common/config/shared';
import { readCaCertificates } from '@anchor/common/http-client';
import { PROJECT_VERSION } from '@anchor/common/version';
import { workerThreadsOption } from '@anchor/common/workers';
import type { KmsOptions } from './server.js';

/**
 * Every flag of `kms`: each flag's first env name is `KMS_<FLAG>` (the config module's env rule, which is also
 * trustbloc/kms's spelling); the generic names the deployments use follow as aliases. `--help` prints them; the
 * README's option table lists them and a test checks it lists every flag.
 */
export const KMS_CONFIG = defineConfig({
  program: 'kms',
  version: PROJECT_VERSION,
  description:
    'Key management service: keystores owned by controller DIDs, keys encrypted at rest under a master key, and the operations of trustbloc/kms (sign, verify, AEAD, MAC, NaCl box, key wrap, BBS) under /v1/keystores.',
  envPrefix: 'KMS',
  options: {
    hostUrl: hostUrlOption({ default: '0.0.0.0:8074' }),
    baseUrl: opt.url({
      flag: 'base-url',
      protocols: ['http', 'https'],
      help: 'external URL of the service, for Location headers (default http://<host-url>, with a wildcard host shown as localhost)',
    }),
    dataDir: opt.string({
      flag: 'data-dir',
      default: 'data',
      help: 'directory of the LMDB database (and, in dev mode, of the generated master key file kms-master-key)',
    }),
    secretLockKeyPath: opt.string({
      flag: 'secret-lock-key-path',
      help: 'file holding the 32-byte master key (raw, or base64) that seals every keystore data key; required unless KMS_SECRET_LOCK_KEY or --dev-mode',
    }),
    secretLockKey: opt.string({
      flag: 'secret-lock-key',
      secret: true,
      help: 'the master key itself, base64 of 32 bytes (prefer the env variable to a flag)',
    }),
    devMode: opt.bool({
      flag: 'dev-mode',
      help: 'without a master key, create one in --data-dir on first start (and warn); resolve did:web controllers over plain http, and at private, link-local and loopback addresses (otherwise https to public addresses only, and loopback when the kms itself is on loopback)',
    }),
    ...allowedPeerNetworksOption(),
    ...storageOptions(),
    nodeUrl: opt.url({
      flag: 'node-url',
      protocols: ['http', 'https'],
      help: 'a did:node node: did:node controllers are resolved there and POST /v1/keystores/did creates did:node DIDs on it',
    }),
    nodeToken: opt.string({
      flag: 'node-token',
      secret: true,
      help: "bearer token for the node's Sidetree endpoints, when it requires one",
    }),
    nodeAnchorOrigin: opt.string({
      flag: 'node-anchor-origin',
      help: 'the anchor origin did:node creates name (default: --node-url)',
    }),
    readTokens: opt.list({
      flag: 'api-read-token',
      secret: true,
      help: 'bearer tokens for /metrics and GET /loglevels; none means open (keystore routes take the keystore capability instead)',
    }),
    writeTokens: opt.list({
      flag: 'api-write-token',
      secret: true,
      help: 'bearer tokens for creating keystores and POST /loglevels; none means anyone may create a keystore',
    }),
    didCacheTtl: opt.duration({
      flag: 'did-cache-ttl',
      default: '5m',
      help: "how long a controller DID's keys are reused for HTTP signature checks",
    }),
    bbsWorkers: workerThreadsOption(
      'bbs-workers',
      'worker threads for BBS signatures and proofs; auto = one per core; 0 runs them on the HTTP thread',
    ),
    signWorkers: workerThreadsOption(
      'sign-workers',
      'worker threads for the signatures of POST .../signbatch; auto = one per core; 0 signs on the HTTP thread',
    ),
    ...serviceTailOptions({
      caCertsFor: 'the node (--node-url), and the did:web documents of keystore controllers',
      log: { example: 'kms-server=debug:info' },
    }),
  },
  checks: [
    ...serviceChecks('KMS'),
    (c) =>
      c.secretLockKeyPath !== undefined && c.secretLockKey !== undefined
        ? 'options --secret-lock-key-path and --secret-lock-key (env KMS_SECRET_LOCK_KEY): give the master key once'
        : undefined,
    (c) =>
      c.secretLockKeyPath === undefined && c.secretLockKey === undefined && !c.devMode
        ? 'option --secret-lock-key-path (env KMS_SECRET_LOCK_KEY_PATH) or KMS_SECRET_LOCK_KEY: a master key is required (or --dev-mode, which creates one)'
        : undefined,
  ],
});

export type KmsFlags = ConfigOf<typeof KMS_CONFIG>;

/** The server's options from the parsed flags. */
export function kmsOptionsFrom(flags: KmsFlags): KmsOptions {
  return {
    ...serviceOptionsOf(flags),
    baseUrl: flags.baseUrl,
    masterKey: { file: flags.secretLockKeyPath, base64: flags.secretLockKey },
    devMode: flags.devMode,
    allowedPeerNetworks: flags.allowedPeerNetworks,
    readTokens: flags.readTokens,
    writeTokens: flags.writeTokens,
    nodeUrl: flags.nodeUrl,
    nodeToken: flags.nodeToken,
    nodeAnchorOrigin: flags.nodeAnchorOrigin,
    didCacheTtlMs: flags.didCacheTtl,
    bbsWorkers: flags.bbsWorkers,
    signWorkers: flags.signWorkers,
    caCertificates: readCaCertificates(flags.tlsCaCerts ?? []),
  };
}
