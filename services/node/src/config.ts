import { defineConfig, opt, type ConfigOf } from '@anchor/common/config';
import {
  allowedPeerNetworksOption,
  databasePrefixOption,
  databaseStallToleranceOption,
  databaseTypeOption,
  databaseUrlOption,
  hostUrlOption,
  lmdbCommitIntervalOption,
  logOptions,
  mqOptions,
  mqRedeliveryOptions,
  tlsCaCertsOption,
  tracingOptions,
} from '@anchor/common/config/shared';
import { SIGNATURE_SCHEMES } from '@anchor/common/httpsig';
import { contextsFileOption } from '@anchor/common/jsonld-contexts';
import { deliveryPoolOptions, federationOptions } from './activitypub/federation-options.js';
import { anchoringOptions } from './anchoring/anchoring-options.js';
import { deadLettersOptions } from './dead-letters/dead-letters-options.js';
import { discoveryOptions } from './did-discovery/discovery-options.js';
import { keysOptions, keysOptionsProblem } from './identity/keys-options.js';
import { monitoringOptions, monitoringOptionsProblem } from './log-monitoring/monitoring-options.js';
import { sidetreeOptions, sidetreeOptionsProblem } from './sidetree-api/sidetree-options.js';
import { witnessingOptions, witnessingOptionsProblem } from './witness/witnessing-options.js';

/**
 * Every flag of the node, in Orb's spirit (orb.md §1.4), one section per feature: each feature folder
 * declares its section (`anchoring/anchoring-options.ts`, ...) and the flags every service shares come from
 * `@anchor/common/config/shared`; this file composes them, and keeps the node-wide `server` and `auth` sections.
 * Each flag's first env name is `ANCHOR_<FLAG>` (the config module's env rule); the names listed follow as
 * aliases: this node's earlier names where they differ from the rule, and the generic names Orb
 * deployments use (DATABASE_TYPE, MQ_URL, LOG_LEVEL, BATCH_WRITER_TIMEOUT, ...), so existing manifests keep
 * working. Defaults are chosen so that a bare start (`--host-url`, `--external-endpoint`, `--data-dir`) is a
 * working node: did:node namespace, embedded LMDB store, in-process queue, 1 s batches, unpublished caching on,
 * no tokens.
 */
export const nodeConfigSpec = defineConfig({
  program: 'anchor-node',
  description: 'did:node anchoring node: Sidetree operations, anchors, ActivityPub federation, witnessing, discovery',
  envPrefix: 'ANCHOR',
  sections: {
    server: {
      hostUrl: hostUrlOption({ short: 'u', required: true }),
      externalEndpoint: opt.url({
        flag: 'external-endpoint',
        short: 'e',
        protocols: ['http', 'https'],
        help: 'Base URL used in every identifier this node mints (VC ids, activity ids, CAS links, did:web host). Default http://<host-url>',
      }),
      serviceId: opt.string({
        flag: 'service-id',
        help: 'ActivityPub service id: a URL (default <external-endpoint>/services/node) or did:web:<host>:services:<name>, which must share the external endpoint host',
      }),
      dataDir: opt.string({
        flag: 'data-dir',
        short: 'd',
        default: './data/node',
        help: 'Directory for the embedded store and generated keys',
      }),
      tlsCertificate: opt.string({
        flag: 'tls-certificate',
        short: 'y',
        help: 'PEM certificate file; serve https when set with --tls-key',
      }),
      tlsKey: opt.string({
        flag: 'tls-key',
        short: 'x',
        secret: true,
        help: 'PEM private key file for --tls-certificate',
      }),
      tlsCaCerts: tlsCaCertsOption(
        'every client of the node (federation, WebFinger, CAS, did:web, key fetches, log, kms)',
      ),
      httpTimeout: opt.duration({
        flag: 'http-timeout',
        env: ['HTTP_TIMEOUT'],
        default: '20s',
        help: 'Outbound HTTP request timeout',
      }),
      bodyLimit: opt.string({
        flag: 'body-limit',
        default: '2mb',
        help: 'Largest accepted request body (413 beyond it)',
      }),
      importBodyLimit: opt.string({
        flag: 'import-body-limit',
        default: '64mb',
        help: 'Largest page POST /sidetree/v1/import takes (an export page with its batch files; read after the admin token check; 413 beyond it)',
      }),
      maintenanceMode: opt.bool({
        flag: 'enable-maintenance-mode',
        env: ['ANCHOR_MAINTENANCE_MODE', 'MAINTENANCE_MODE_ENABLED'],
        help: 'Answer 503 on operations, resolution and inbox while health reports maintenance',
      }),
      ...allowedPeerNetworksOption(),
      devMode: opt.bool({
        flag: 'enable-dev-mode',
        env: ['ANCHOR_DEV_MODE', 'DEV_MODE_ENABLED'],
        help: 'Allow plain http beyond loopback for did:web documents, WebFinger, host-meta and actors (development federations such as docker-compose); loopback http works without it',
      }),
    },
    discovery: discoveryOptions,
    jsonld: {
      contextsFile: contextsFileOption(),
    },
    sidetree: sidetreeOptions,
    anchoring: anchoringOptions,
    witnessing: witnessingOptions,
    monitoring: monitoringOptions,
    keys: keysOptions,
    auth: {
      httpSignatures: opt.bool({
        flag: 'enable-http-signatures',
        short: 'p',
        env: ['ANCHOR_HTTP_SIGNATURES_ENABLED', 'HTTP_SIGNATURES_ENABLED'],
        default: true,
        help: 'Sign outbound federation requests and verify inbound signatures',
      }),
      signatureScheme: opt.enum(SIGNATURE_SCHEMES, {
        flag: 'http-signature-scheme',
        default: 'cavage',
        help: 'How outbound requests are signed: cavage (draft-cavage, the only scheme Orb reads) or rfc9421 (HTTP Message Signatures); inbound, both are verified',
      }),
      signatureDateWindow: opt.duration({
        flag: 'http-signature-date-window',
        default: '5m',
        help: 'Signed requests whose Date differs from now by more are rejected',
      }),
      authTokensDef: opt.list({
        flag: 'auth-tokens-def',
        short: 'D',
        separator: null,
        help: 'Token rules, repeatable: <path-regex>|<read-token-names joined by &>|<write-token-names joined by &>',
      }),
      authTokens: opt.map({
        flag: 'auth-tokens',
        short: 'A',
        secret: true,
        help: 'Token values: name=value[,name=value]',
      }),
      clientAuthTokensDef: opt.list({
        flag: 'client-auth-tokens-def',
        separator: null,
        help: 'Which outbound paths to sign (same format as --auth-tokens-def); default: the server rules',
      }),
      clientAuthTokens: opt.map({
        flag: 'client-auth-tokens',
        secret: true,
        help: 'Token values for --client-auth-tokens-def',
      }),
      requestTokens: opt.map({
        flag: 'request-tokens',
        secret: true,
        help: 'Bearer tokens this node sends to other services: vct-read=..., vct-write=...',
      }),
    },
    federation: federationOptions,
    storage: {
      databaseType: databaseTypeOption('t'),
      databaseUrl: databaseUrlOption('v'),
      databasePrefix: databasePrefixOption(),
      lmdbCommitInterval: lmdbCommitIntervalOption(),
      databaseStallTolerance: databaseStallToleranceOption(),
    },
    queue: {
      ...mqOptions({ url: 'q' }),
      mqPoolSize: opt.int({
        flag: 'mq-pool-size',
        default: 5,
        min: 1,
        max: 100,
        help: 'Consumers per queue topic (the inbox and the outbox have pools of their own)',
      }),
      ...deliveryPoolOptions,
      ...mqRedeliveryOptions(),
      ...deadLettersOptions,
    },
    observability: {
      ...logOptions({ example: 'observer=debug:info', short: 'l' }),
      ...tracingOptions(),
    },
  },
  checks: [
    (c) => keysOptionsProblem(c.keys),
    (c) => monitoringOptionsProblem(c.monitoring),
    (c) => sidetreeOptionsProblem(c.sidetree),
    (c) =>
      (c.server.tlsCertificate === undefined) !== (c.server.tlsKey === undefined)
        ? 'options --tls-certificate and --tls-key: give both to serve https, or neither'
        : undefined,
    (c) => witnessingOptionsProblem(c.witnessing),
  ],
});

export type NodeConfig = ConfigOf<typeof nodeConfigSpec>;
