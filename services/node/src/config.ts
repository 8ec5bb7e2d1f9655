import { kmsOptions, kmsOptionsProblem } from '@anchor/common/clients';
import { lmdbCommitIntervalOption } from '@anchor/common/config/shared';
import { tracingOptions } from '@anchor/common/tracing';
import { defineConfig, formatDuration, opt, type ConfigOf } from '@anchor/common/config';
import { formatByteSize, parseByteSize } from '@anchor/common/http';
import { allowedPeerNetworksOption, SIGNATURE_SCHEMES } from '@anchor/common/httpsig';
import { contextsFileOption } from '@anchor/common/jsonld-contexts';
import { parseLogSpec } from '@anchor/common/log';
import { parseCosignatureVerifierKey } from '@anchor/common/tlog';
import { checkAmqpUrls, checkNamespace, QUEUE_TYPES } from '@anchor/common/mq';
import { PROTOCOL_VERSION_NAMES, ProtocolRegistry } from '@anchor/sidetree';

/**
 * Every flag of the node, in the original's spirit (orb.md §1.4), grouped by the feature that reads it.
 * Each flag's first env name is `ANCHOR_<FLAG>` (the config module's env rule); the names listed here
 * follow as aliases: this node's earlier names where they differ from the rule, and the generic names the
 * original's deployments use (DATABASE_TYPE, MQ_URL, LOG_LEVEL, BATCH_WRITER_TIMEOUT, ...), so existing
 * manifests keep working. Defaults are
 * chosen so that a bare start (`--host-url`, `--external-endpoint`, `--data-dir`) is a working node:
 * did:node namespace, embedded LMDB store, in-process queue, 1 s batches, unpublished caching on, no tokens.
 */
export const nodeConfigSpec = defineConfig({
  program: 'anchor-node',
  description: 'did:node anchoring node: Sidetree operations, anchors, ActivityPub federation, witnessing, discovery',
  envPrefix: 'ANCHOR',
  sections: {
    server: {
      hostUrl: opt.hostPort({ flag: 'host-url', short: 'u', required: true, help: 'Listen address host:port' }),
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
      tlsCaCerts: opt.list({
        flag: 'tls-cacerts',
        help: "PEM files of CA certificates trusted for outbound https besides Node's bundled roots: every client of the node (federation, WebFinger, CAS, did:web, key fetches, log, kms)",
      }),
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
    discovery: {
      discoveryDomain: opt.string({
        flag: 'discovery-domain',
        help: 'Domain added as the https-hinted equivalent id (did:node:https:<domain>:<hash>:<suffix>) of processed operations',
      }),
      discoveryDomains: opt.list({
        flag: 'discovery-domains',
        env: ['DISCOVERY_DOMAINS'],
        validateItem: (item: string) =>
          isHttpOrigin(item) ? undefined : 'must be an http(s) origin such as https://shared.example.com',
        help: 'Base URLs of other nodes serving the same DIDs, announced as WebFinger and host-meta alternates (e.g. https://shared.example.com)',
      }),
      didDiscovery: opt.bool({
        flag: 'enable-did-discovery',
        env: ['ANCHOR_DID_DISCOVERY_ENABLED', 'DID_DISCOVERY_ENABLED'],
        help: 'Resolve a DID unknown here that carries a hashlink or https hint: its anchors are fetched from the hinted node, checked and processed as the observer does',
      }),
      resolveFromAnchorOrigin: opt.bool({
        flag: 'resolve-from-anchor-origin',
        env: ['RESOLVE_FROM_ANCHOR_ORIGIN'],
        help: 'Before answering for a published DID anchored elsewhere, ask its anchor origin for its latest anchor and process any this node lacks',
      }),
      verifyLatestFromAnchorOrigin: opt.bool({
        flag: 'verify-latest-from-anchor-origin',
        env: ['VERIFY_LATEST_FROM_ANCHOR_ORIGIN'],
        help: 'Refuse an update, recover or deactivate of a DID anchored elsewhere while its anchor origin has operations this node has not seen (re-submit later)',
      }),
      discoveryMinimumResolvers: opt.int({
        flag: 'discovery-minimum-resolvers',
        env: ['DISCOVERY_MINIMUM_RESOLVERS'],
        default: 1,
        min: 1,
        help: 'How many resolvers a client should ask before trusting a DID document (WebFinger min-resolvers)',
      }),
    },
    jsonld: {
      contextsFile: contextsFileOption(),
    },
    sidetree: {
      didNamespace: opt.string({
        flag: 'did-namespace',
        short: 'n',
        env: ['DID_NAMESPACE'],
        default: 'did:node',
        help: 'DID method namespace',
      }),
      didAliases: opt.list({
        flag: 'did-aliases',
        short: 'a',
        env: ['DID_ALIASES'],
        help: 'Alternate namespaces accepted on resolution (e.g. did:orb)',
      }),
      allowedOrigins: opt.list({
        flag: 'allowed-origins',
        short: 'o',
        env: ['ALLOWED_ORIGINS'],
        help: 'Anchor origins accepted on create/recover, merged into the stored list at start (* allows any). When nothing is stored or given, the node accepts its own external endpoint and service id',
      }),
      allowedOriginsCacheExpiration: opt.duration({
        flag: 'allowed-origins-cache-expiration',
        env: ['ALLOWED_ORIGINS_CACHE_EXPIRATION'],
        default: '1m',
        help: 'How long other instances may serve a stale allowed-origins list (this instance sees its own changes at once)',
      }),
      allowedDidWebDomains: opt.list({
        flag: 'allowed-did-web-domains',
        env: ['ALLOWED_DID_WEB_DOMAINS'],
        help: 'Domains besides this node whose did:web:<domain>:scid:<suffix> ids this node resolves',
      }),
      unpublishedOperationStore: opt.bool({
        flag: 'enable-unpublished-operation-store',
        env: ['ANCHOR_UNPUBLISHED_OPERATION_STORE_ENABLED', 'UNPUBLISHED_OPERATION_STORE_ENABLED'],
        default: true,
        help: 'Make accepted operations resolvable before they are anchored',
      }),
      unpublishedOperationTypes: opt.enumList(['create', 'update', 'recover', 'deactivate'], {
        flag: 'unpublished-operation-store-operation-types',
        env: ['UNPUBLISHED_OPERATION_STORE_OPERATION_TYPES'],
        default: ['create', 'update'],
        help: 'Operation types kept in the unpublished store',
      }),
      unpublishedOperationLifetime: opt.duration({
        flag: 'unpublished-operation-lifetime',
        env: ['UNPUBLISHED_OPERATION_LIFETIME'],
        default: '1h',
        help: 'How long an unpublished operation stays resolvable if it is never anchored',
      }),
      resolutionCacheMaxBytes: opt.custom({
        flag: 'resolution-cache-max-bytes',
        type: 'size',
        default: '128mb',
        parse: parseByteSize,
        format: formatByteSize,
        help: 'Estimated heap the resolution cache may take (parsed operations and rendered results per DID, least recently used out first; 0 disables the cache)',
      }),
      resolutionCacheSize: opt.int({
        flag: 'resolution-cache-size',
        default: 20_000,
        min: 0,
        help: 'DIDs the resolution cache holds at most, whatever their size (0 disables the cache); --resolution-cache-max-bytes binds first unless DIDs are small',
      }),
      protocolVersions: opt.enumList(PROTOCOL_VERSION_NAMES, {
        flag: 'sidetree-protocol-versions',
        env: ['SIDETREE_PROTOCOL_VERSIONS'],
        default: ['1.0'],
        help: "did:node protocol versions this node runs, the original's names (test: its smaller operation and delta limits); an anchor is read under the version its profile names",
      }),
      currentProtocolVersion: opt.enum(PROTOCOL_VERSION_NAMES, {
        flag: 'current-sidetree-protocol-version',
        env: ['CURRENT_SIDETREE_PROTOCOL_VERSION'],
        help: 'The version operations are accepted under and anchors written in; default the listed version of latest genesis time',
      }),
      includePublishedOperations: opt.bool({
        flag: 'include-published-operations-in-metadata',
        env: ['INCLUDE_PUBLISHED_OPERATIONS_IN_METADATA'],
        default: true,
        help: 'List publishedOperations in resolution metadata',
      }),
    },
    anchoring: {
      batchWriterTimeout: opt.duration({
        flag: 'batch-writer-timeout',
        short: 'b',
        env: ['BATCH_WRITER_TIMEOUT'],
        default: '1s',
        min: '10ms',
        help: 'Longest time an accepted operation waits before its batch is cut (the original defaults to 60s)',
      }),
      maxOperationsPerBatch: opt.int({
        flag: 'max-operations-per-batch',
        default: 10_000,
        min: 1,
        max: 10_000,
        help: 'Cut a batch as soon as this many operations are pending (protocol maximum 10000)',
      }),
      maxQueuedOperations: opt.int({
        flag: 'max-queued-operations',
        default: 100_000,
        min: 1,
        help: 'Refuse new operations with 503 and Retry-After while this many are accepted and not yet anchored (back-pressure when batches keep failing)',
      }),
      batchWriterLease: opt.duration({
        flag: 'batch-writer-lease',
        default: '15s',
        min: '1s',
        help: 'Lease that makes one instance of a deployment the batch writer; another takes over this long after it stops renewing',
      }),
      anchorCredentialDomain: opt.string({
        flag: 'anchor-credential-domain',
        env: ['ANCHOR_CREDENTIAL_DOMAIN'],
        help: 'Proof domain when the anchor credential is signed without a log (default: the external endpoint)',
      }),
      anchorDataUriMediaType: opt.enum(['application/gzip;base64', 'application/json'], {
        flag: 'anchor-data-uri-media-type',
        env: ['ANCHOR_DATA_URI_MEDIA_TYPE'],
        default: 'application/gzip;base64',
        help: 'Encoding of the data: URIs inside anchor linksets',
      }),
      signWithLocalWitness: opt.bool({
        flag: 'sign-with-local-witness',
        short: 'f',
        env: ['SIGN_WITH_LOCAL_WITNESS'],
        default: true,
        help: 'Always add the local witness (log-backed when a log is configured) proof to anchor credentials',
      }),
    },
    witnessing: {
      maxWitnessDelay: opt.duration({
        flag: 'max-witness-delay',
        short: 'w',
        env: ['MAX_WITNESS_DELAY'],
        default: '10m',
        help: 'Offer endTime = now + this',
      }),
      maxClockSkew: opt.duration({
        flag: 'max-clock-skew',
        env: ['MAX_CLOCK_SKEW'],
        default: '1m',
        help: 'Tolerance on witness proof creation times',
      }),
      witnessStoreExpiryPeriod: opt.duration({
        flag: 'witness-store-expiry-period',
        env: ['WITNESS_STORE_EXPIRY_PERIOD'],
        default: '12m',
        help: 'How long witness bookkeeping of an anchor is kept (must exceed max-witness-delay + max-clock-skew)',
      }),
      anchorStatusMonitoringInterval: opt.duration({
        flag: 'anchor-status-monitoring-interval',
        env: ['ANCHOR_STATUS_MONITORING_INTERVAL'],
        default: '10s',
        help: 'How often in-process anchors are checked for witnesses that did not answer',
      }),
      anchorStatusGracePeriod: opt.duration({
        flag: 'anchor-status-in-process-grace-period',
        env: ['ANCHOR_STATUS_IN_PROCESS_GRACE_PERIOD'],
        default: '1m',
        help: 'Time given to selected witnesses before others are selected in their place',
      }),
      vctEnabled: opt.bool({
        flag: 'vct-enabled',
        env: ['VCT_ENABLED'],
        default: true,
        help: 'Report the transparency log in health checks (vctStatus "disabled" when false); witnessing uses the /log setting regardless',
      }),
    },
    monitoring: {
      logMonitoringInterval: opt.duration({
        flag: 'vct-log-monitoring-interval',
        env: ['VCT_LOG_MONITORING_INTERVAL'],
        default: '10s',
        min: '10ms',
        help: "How often the monitored transparency logs (this node's, followed services', activated ones) are checked",
      }),
      logMonitoringMaxTreeSize: opt.int({
        flag: 'vct-log-monitoring-max-tree-size',
        env: ['VCT_LOG_MONITORING_MAX_TREE_SIZE'],
        default: 50_000,
        min: 0,
        help: "Up to this tree size a log's root is also rebuilt from its entries (kept in memory: 32 bytes a leaf, twice)",
      }),
      logMonitoringGetEntriesRange: opt.int({
        flag: 'vct-log-monitoring-get-entries-range',
        env: ['VCT_LOG_MONITORING_GET_ENTRIES_RANGE'],
        default: 1000,
        min: 1,
        max: 1000,
        help: 'Entries asked for in one get-entries request when a root is rebuilt',
      }),
      logMonitoringWitnesses: opt.list({
        flag: 'vct-log-monitoring-witnesses',
        env: ['VCT_LOG_MONITORING_WITNESSES'],
        validateItem: cosignerKeyProblem,
        help: 'Witnesses known to the log monitor: their C2SP cosignature/v1 keys (<name>+<hash>+<base64(0x04 key)>, as a witness vct-log prints its witnessVerifierKey)',
      }),
      logMonitoringWitnessQuorum: opt.int({
        flag: 'vct-log-monitoring-witness-quorum',
        env: ['VCT_LOG_MONITORING_WITNESS_QUORUM'],
        default: 0,
        min: 0,
        help: "A log's tree head is trusted only when its C2SP checkpoint (<log>/checkpoint) is that head with cosignatures of this many of --vct-log-monitoring-witnesses; 0: no cosignature asked for",
      }),
      proofMonitoringInterval: opt.duration({
        flag: 'vct-proof-monitoring-interval',
        env: ['VCT_PROOF_MONITORING_INTERVAL'],
        default: '10s',
        min: '10ms',
        help: 'How often logged anchor credentials not yet proven included are checked',
      }),
      proofMonitoringMaxRecords: opt.int({
        flag: 'vct-proof-monitoring-max-records',
        env: ['VCT_PROOF_MONITORING_MAX_RECORDS'],
        default: 500,
        min: 1,
        max: 10_000,
        help: 'Logged credentials checked per round at most',
      }),
      proofMonitoringExpiryPeriod: opt.duration({
        flag: 'vct-proof-monitoring-expiry-period',
        env: ['VCT_PROOF_MONITORING_EXPIRY_PERIOD'],
        default: '1h',
        min: '10ms',
        help: 'A logged credential not proven included this long after it was logged is reported missing and logged again',
      }),
    },
    keys: {
      vcSignKeyFile: opt.string({
        flag: 'vc-sign-key-file',
        help: 'PEM (PKCS#8) Ed25519 key that signs anchor credentials; generated in the data directory when absent',
      }),
      vcSignKeyId: opt.string({
        flag: 'vc-sign-key-id',
        env: ['ANCHOR_VC_SIGN_ACTIVE_KEY_ID'],
        default: 'vc-key',
        help: 'Key id of the anchor-credential key in /.well-known/did.json',
      }),
      httpSignKeyFile: opt.string({
        flag: 'http-sign-key-file',
        help: 'PEM (PKCS#8) Ed25519 key that signs outbound HTTP requests; generated in the data directory when absent',
      }),
      httpSignKeyId: opt.string({
        flag: 'http-sign-key-id',
        env: ['ANCHOR_HTTP_SIGN_ACTIVE_KEY_ID'],
        default: 'main-key',
        help: 'Key id of the HTTP signing key',
      }),
      ...kmsOptions('anchor-credential proofs and HTTP signatures'),
      kmsHttpKeyId: opt.string({
        flag: 'kms-http-key-id',
        help: 'id of the HTTP-signing key in the kms keystore when it is not the --kms-key-id key; default: --kms-key-id, or a key created on first start',
      }),
    },
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
        help: 'How outbound requests are signed: cavage (draft-cavage, the only scheme the original reads) or rfc9421 (HTTP Message Signatures); inbound, both are verified',
      }),
      signatureDateWindow: opt.duration({
        flag: 'http-signature-date-window',
        default: '5m',
        help: 'Signed requests whose Date differs from now by more are rejected (the original never checked)',
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
    federation: {
      followAuthPolicy: opt.enum(['accept-all', 'accept-list'], {
        flag: 'follow-auth-policy',
        short: 'F',
        env: ['FOLLOW_AUTH_POLICY'],
        default: 'accept-all',
        help: 'Who may follow this node',
      }),
      inviteWitnessAuthPolicy: opt.enum(['accept-all', 'accept-list'], {
        flag: 'invite-witness-auth-policy',
        short: 'W',
        env: ['INVITE_WITNESS_AUTH_POLICY'],
        default: 'accept-all',
        help: 'Who may invite this node to witness',
      }),
      activityPubPageSize: opt.int({
        flag: 'activitypub-page-size',
        short: 'P',
        env: ['ACTIVITYPUB_PAGE_SIZE'],
        default: 50,
        min: 1,
        max: 1000,
        help: 'Items per ActivityPub collection page',
      }),
      syncInterval: opt.duration({
        flag: 'sync-interval',
        short: 'S',
        env: ['ANCHOR_EVENT_SYNC_INTERVAL'],
        default: '1m',
        help: "How often followees' outboxes and followers' inboxes are read for missed anchors",
      }),
      syncMinActivityAge: opt.duration({
        flag: 'sync-min-activity-age',
        env: ['ANCHOR_EVENT_SYNC_MIN_ACTIVITY_AGE'],
        default: '30s',
        help: 'Catch-up ignores activities younger than this (normal delivery is still under way)',
      }),
      actorCacheExpiration: opt.duration({
        flag: 'apclient-cache-expiration',
        env: ['ANCHOR_ACTIVITYPUB_CLIENT_CACHE_EXPIRATION', 'ACTIVITYPUB_CLIENT_CACHE_EXPIRATION'],
        default: '10m',
        help: 'Expiry of cached actors, public keys, host-meta and WebFinger documents',
      }),
      nodeInfoRefreshInterval: opt.duration({
        flag: 'nodeinfo-refresh-interval',
        short: 'R',
        env: ['NODEINFO_REFRESH_INTERVAL'],
        default: '15s',
        help: 'How often NodeInfo usage counts are recomputed',
      }),
    },
    storage: {
      databaseType: opt.enum(['lmdb', 'mem', 'mongodb'], {
        flag: 'database-type',
        short: 't',
        env: ['DATABASE_TYPE'],
        default: 'lmdb',
        help: 'lmdb (embedded, durable), mem (tests only), mongodb (production)',
      }),
      databaseUrl: opt.string({
        flag: 'database-url',
        short: 'v',
        env: ['DATABASE_URL'],
        secret: true,
        help: 'MongoDB connection string',
      }),
      databasePrefix: opt.string({
        flag: 'database-prefix',
        env: ['DATABASE_PREFIX'],
        help: 'Prefix of store names (several nodes may share one database)',
      }),
      lmdbCommitInterval: lmdbCommitIntervalOption(),
    },
    queue: {
      mqUrl: opt.string({
        flag: 'mq-url',
        short: 'q',
        env: ['MQ_URL'],
        secret: true,
        validate: (url) => (url.trim() === '' ? undefined : checkAmqpUrls(url.trim())),
        help: 'amqp:// URL of RabbitMQ, or the members of a RabbitMQ cluster as comma-separated URLs (tried in order; after a lost connection the next one); empty for the in-process queue',
      }),
      mqQueueType: opt.enum(QUEUE_TYPES, {
        flag: 'mq-queue-type',
        help: 'classic or quorum (replicated over a cluster, survives the loss of a minority of its members); default: quorum when --mq-url names several brokers, classic for one. Queues of a namespace keep the type they were created with',
      }),
      mqNamespace: opt.string({
        flag: 'mq-namespace',
        env: ['MQ_NAMESPACE'],
        validate: (value) => checkNamespace(value),
        help: "Prefix of this node's queue names, so nodes sharing a broker and vhost never take each other's work; default derived from the service id. Replicas of one node share it",
      }),
      mqPoolSize: opt.int({
        flag: 'mq-pool-size',
        default: 5,
        min: 1,
        max: 100,
        help: 'Consumers per queue topic (the inbox and the outbox have pools of their own)',
      }),
      mqOutboxPool: opt.int({
        flag: 'mq-outbox-pool',
        env: ['MQ_OUTBOX_POOL'],
        default: 32,
        min: 1,
        max: 1000,
        help: 'Outbound activity deliveries (signed POSTs to other inboxes) and fan-outs in flight at once',
      }),
      mqInboxPool: opt.int({
        flag: 'mq-inbox-pool',
        env: ['MQ_INBOX_POOL'],
        default: 32,
        min: 1,
        max: 1000,
        help: 'Received activities handled at once',
      }),
      mqMaxAttempts: opt.int({
        flag: 'mq-redelivery-max-attempts',
        env: ['MQ_REDELIVERY_MAX_ATTEMPTS'],
        default: 30,
        min: 1,
        help: 'Deliveries before a failing message is dead-lettered',
      }),
      mqRedeliveryInitialInterval: opt.duration({
        flag: 'mq-redelivery-initial-interval',
        env: ['MQ_REDELIVERY_INITIAL_INTERVAL'],
        default: '2s',
        help: 'First redelivery delay',
      }),
      mqRedeliveryMultiplier: opt.number({
        flag: 'mq-redelivery-multiplier',
        env: ['MQ_REDELIVERY_MULTIPLIER'],
        default: 1.5,
        min: 1,
        help: 'Growth factor of redelivery delays',
      }),
      mqRedeliveryMaxInterval: opt.duration({
        flag: 'mq-redelivery-max-interval',
        env: ['MQ_REDELIVERY_MAX_INTERVAL'],
        default: '1m',
        help: 'Longest redelivery delay',
      }),
      deadLettersMax: opt.int({
        flag: 'dead-letters-max',
        default: 10_000,
        min: 1,
        help: 'Dead letters (deliveries and received activities that failed on every attempt) kept for inspection and replay at /dead-letters; beyond it the oldest are dropped',
      }),
    },
    observability: {
      logLevel: opt.custom({
        flag: 'log-level',
        short: 'l',
        env: ['LOG_LEVEL'],
        type: 'level spec',
        parse: (raw: string) => {
          parseLogSpec(raw);
          return raw;
        },
        default: 'info',
        help: 'module=level:...:default with levels error, warning, info, debug',
      }),
      // No default: text on a terminal, json otherwise, like every other service.
      logFormat: opt.enum(['text', 'json'], {
        flag: 'log-format',
        env: ['LOG_FORMAT'],
        help: 'log line format (default: text on a terminal, json otherwise)',
      }),
      ...tracingOptions(),
    },
  },
  checks: [
    (c) => kmsOptionsProblem(c.keys),
    (c) =>
      c.monitoring.logMonitoringWitnessQuorum > c.monitoring.logMonitoringWitnesses.length
        ? `--vct-log-monitoring-witness-quorum ${c.monitoring.logMonitoringWitnessQuorum} asks for more cosignatures than the ${c.monitoring.logMonitoringWitnesses.length} witnesses of --vct-log-monitoring-witnesses`
        : undefined,
    (c) => protocolVersionsProblem(c.sidetree.protocolVersions, c.sidetree.currentProtocolVersion),
    (c) =>
      (c.server.tlsCertificate === undefined) !== (c.server.tlsKey === undefined)
        ? 'options --tls-certificate and --tls-key: give both to serve https, or neither'
        : undefined,
    (c) =>
      c.keys.kmsUrl !== undefined && (c.keys.vcSignKeyFile !== undefined || c.keys.httpSignKeyFile !== undefined)
        ? '--kms-url signs with kms keys: drop --vc-sign-key-file and --http-sign-key-file'
        : c.keys.kmsHttpKeyId !== undefined && c.keys.kmsUrl === undefined
          ? '--kms-http-key-id needs --kms-url'
          : undefined,
    // Witness bookkeeping must outlive an Offer's whole window, or late proofs would find no record.
    (c) =>
      c.witnessing.witnessStoreExpiryPeriod > c.witnessing.maxWitnessDelay + c.witnessing.maxClockSkew
        ? undefined
        : `--witness-store-expiry-period (${formatDuration(c.witnessing.witnessStoreExpiryPeriod)}) must exceed --max-witness-delay + --max-clock-skew (${formatDuration(c.witnessing.maxWitnessDelay + c.witnessing.maxClockSkew)})`,
  ],
});

export type NodeConfig = ConfigOf<typeof nodeConfigSpec>;

function protocolVersionsProblem(names: readonly string[], current: string | undefined): string | undefined {
  try {
    ProtocolRegistry.of(names, current);
    return undefined;
  } catch (error) {
    return `options --sidetree-protocol-versions / --current-sidetree-protocol-version: ${(error as Error).message}`;
  }
}

/** `scheme://host[:port]` of http or https, nothing more (alternate links append their own paths). */
function isHttpOrigin(text: string): boolean {
  try {
    const url = new URL(text);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.origin === text.replace(/\/$/, '');
  } catch {
    return false;
  }
}

/** A `--vct-log-monitoring-witnesses` item, or why not. */
function cosignerKeyProblem(item: string): string | undefined {
  try {
    parseCosignatureVerifierKey(item);
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
}
