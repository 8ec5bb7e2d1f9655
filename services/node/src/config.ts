import { defineConfig, formatDuration, opt, type ConfigOf } from '@anchor/common/config';
import { parseLogSpec } from '@anchor/common/log';
import { checkNamespace } from '@anchor/common/mq';

/**
 * Every flag of the node, in the original's spirit (orb.md §1.4): each has an `ANCHOR_` environment
 * variable, and the generic names the original's deployments use (DATABASE_TYPE, MQ_URL, LOG_LEVEL,
 * BATCH_WRITER_TIMEOUT, ...) are honoured as fallbacks so existing manifests keep working. Defaults are
 * chosen so that a bare start (`--host-url`, `--external-endpoint`, `--data-dir`) is a working node:
 * did:node namespace, embedded LMDB store, in-process queue, 1 s batches, unpublished caching on, no tokens.
 */
export const nodeConfigSpec = defineConfig({
  program: 'anchor-node',
  description: 'did:node anchoring node: Sidetree operations, anchors, ActivityPub federation, witnessing, discovery',
  options: {
    // --- HTTP and identity ---------------------------------------------------------------------------
    hostUrl: opt.hostPort({ flag: 'host-url', short: 'u', env: ['ANCHOR_HOST_URL'], required: true, help: 'Listen address host:port' }),
    externalEndpoint: opt.url({
      flag: 'external-endpoint',
      short: 'e',
      env: ['ANCHOR_EXTERNAL_ENDPOINT'],
      protocols: ['http', 'https'],
      help: 'Base URL used in every identifier this node mints (VC ids, activity ids, CAS links, did:web host). Default http://<host-url>',
    }),
    serviceId: opt.string({
      flag: 'service-id',
      env: ['ANCHOR_SERVICE_ID'],
      help: 'ActivityPub service id: a URL (default <external-endpoint>/services/node) or did:web:<host>:services:<name>, which must share the external endpoint host',
    }),
    discoveryDomain: opt.string({
      flag: 'discovery-domain',
      env: ['ANCHOR_DISCOVERY_DOMAIN'],
      help: 'Domain added as the https-hinted equivalent id (did:node:https:<domain>:<hash>:<suffix>) of processed operations',
    }),
    discoveryDomains: opt.list({
      flag: 'discovery-domains',
      env: ['ANCHOR_DISCOVERY_DOMAINS', 'DISCOVERY_DOMAINS'],
      validateItem: (item: string) => (isHttpOrigin(item) ? undefined : 'must be an http(s) origin such as https://shared.example.com'),
      help: 'Base URLs of other nodes serving the same DIDs, announced as WebFinger and host-meta alternates (e.g. https://shared.example.com)',
    }),
    discoveryMinimumResolvers: opt.int({
      flag: 'discovery-minimum-resolvers',
      env: ['ANCHOR_DISCOVERY_MINIMUM_RESOLVERS', 'DISCOVERY_MINIMUM_RESOLVERS'],
      default: 1,
      min: 1,
      help: 'How many resolvers a client should ask before trusting a DID document (WebFinger min-resolvers)',
    }),
    dataDir: opt.string({ flag: 'data-dir', short: 'd', env: ['ANCHOR_DATA_DIR'], default: './data/node', help: 'Directory for the embedded store and generated keys' }),
    tlsCertificate: opt.string({ flag: 'tls-certificate', short: 'y', env: ['ANCHOR_TLS_CERTIFICATE'], help: 'PEM certificate file; serve https when set with --tls-key' }),
    tlsKey: opt.string({ flag: 'tls-key', short: 'x', env: ['ANCHOR_TLS_KEY'], secret: true, help: 'PEM private key file for --tls-certificate' }),
    tlsCaCerts: opt.list({ flag: 'tls-cacerts', env: ['ANCHOR_TLS_CACERTS'], help: 'Extra CA certificate files trusted for outbound https' }),
    httpTimeout: opt.duration({ flag: 'http-timeout', env: ['ANCHOR_HTTP_TIMEOUT', 'HTTP_TIMEOUT'], default: '20s', help: 'Outbound HTTP request timeout' }),
    bodyLimit: opt.string({ flag: 'body-limit', env: ['ANCHOR_BODY_LIMIT'], default: '2mb', help: 'Largest accepted request body (413 beyond it)' }),
    maintenanceMode: opt.bool({
      flag: 'enable-maintenance-mode',
      env: ['ANCHOR_MAINTENANCE_MODE', 'MAINTENANCE_MODE_ENABLED'],
      help: 'Answer 503 on operations, resolution and inbox while health reports maintenance',
    }),
    devMode: opt.bool({
      flag: 'enable-dev-mode',
      env: ['ANCHOR_DEV_MODE', 'DEV_MODE_ENABLED'],
      help: 'Allow plain http beyond loopback for did:web documents, WebFinger, host-meta and actors (development federations such as docker-compose); loopback http works without it',
    }),

    // --- Sidetree / DIDs --------------------------------------------------------------------------------
    didNamespace: opt.string({ flag: 'did-namespace', short: 'n', env: ['ANCHOR_DID_NAMESPACE', 'DID_NAMESPACE'], default: 'did:node', help: 'DID method namespace' }),
    didAliases: opt.list({ flag: 'did-aliases', short: 'a', env: ['ANCHOR_DID_ALIASES', 'DID_ALIASES'], help: 'Alternate namespaces accepted on resolution (e.g. did:orb)' }),
    batchWriterTimeout: opt.duration({
      flag: 'batch-writer-timeout',
      short: 'b',
      env: ['ANCHOR_BATCH_WRITER_TIMEOUT', 'BATCH_WRITER_TIMEOUT'],
      default: '1s',
      min: '10ms',
      help: 'Longest time an accepted operation waits before its batch is cut (the original defaults to 60s)',
    }),
    maxOperationsPerBatch: opt.int({
      flag: 'max-operations-per-batch',
      env: ['ANCHOR_MAX_OPERATIONS_PER_BATCH'],
      default: 10_000,
      min: 1,
      max: 10_000,
      help: 'Cut a batch as soon as this many operations are pending (protocol maximum 10000)',
    }),
    allowedOrigins: opt.list({
      flag: 'allowed-origins',
      short: 'o',
      env: ['ANCHOR_ALLOWED_ORIGINS', 'ALLOWED_ORIGINS'],
      help: 'Anchor origins accepted on create/recover, merged into the stored list at start (* allows any). When nothing is stored or given, the node accepts its own external endpoint and service id',
    }),
    allowedOriginsCacheExpiration: opt.duration({
      flag: 'allowed-origins-cache-expiration',
      env: ['ANCHOR_ALLOWED_ORIGINS_CACHE_EXPIRATION', 'ALLOWED_ORIGINS_CACHE_EXPIRATION'],
      default: '1m',
      help: 'How long other instances may serve a stale allowed-origins list (this instance sees its own changes at once)',
    }),
    allowedDidWebDomains: opt.list({
      flag: 'allowed-did-web-domains',
      env: ['ANCHOR_ALLOWED_DID_WEB_DOMAINS', 'ALLOWED_DID_WEB_DOMAINS'],
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
      env: ['ANCHOR_UNPUBLISHED_OPERATION_STORE_OPERATION_TYPES', 'UNPUBLISHED_OPERATION_STORE_OPERATION_TYPES'],
      default: ['create', 'update'],
      help: 'Operation types kept in the unpublished store',
    }),
    unpublishedOperationLifetime: opt.duration({
      flag: 'unpublished-operation-lifetime',
      env: ['ANCHOR_UNPUBLISHED_OPERATION_LIFETIME', 'UNPUBLISHED_OPERATION_LIFETIME'],
      default: '1h',
      help: 'How long an unpublished operation stays resolvable if it is never anchored',
    }),
    resolutionCacheSize: opt.int({
      flag: 'resolution-cache-size',
      env: ['ANCHOR_RESOLUTION_CACHE_SIZE'],
      default: 20_000,
      min: 0,
      help: 'DIDs whose parsed operations and rendered results this instance keeps in memory (0 disables the cache)',
    }),
    includePublishedOperations: opt.bool({
      flag: 'include-published-operations-in-metadata',
      env: ['ANCHOR_INCLUDE_PUBLISHED_OPERATIONS_IN_METADATA', 'INCLUDE_PUBLISHED_OPERATIONS_IN_METADATA'],
      default: true,
      help: 'List publishedOperations in resolution metadata',
    }),

    // --- Anchoring and witnessing -----------------------------------------------------------------------
    anchorCredentialDomain: opt.string({
      flag: 'anchor-credential-domain',
      env: ['ANCHOR_ANCHOR_CREDENTIAL_DOMAIN', 'ANCHOR_CREDENTIAL_DOMAIN'],
      help: 'Proof domain when the anchor credential is signed without a log (default: the external endpoint)',
    }),
    anchorDataUriMediaType: opt.enum(['application/gzip;base64', 'application/json'], {
      flag: 'anchor-data-uri-media-type',
      env: ['ANCHOR_ANCHOR_DATA_URI_MEDIA_TYPE', 'ANCHOR_DATA_URI_MEDIA_TYPE'],
      default: 'application/gzip;base64',
      help: 'Encoding of the data: URIs inside anchor linksets',
    }),
    maxWitnessDelay: opt.duration({ flag: 'max-witness-delay', short: 'w', env: ['ANCHOR_MAX_WITNESS_DELAY', 'MAX_WITNESS_DELAY'], default: '10m', help: 'Offer endTime = now + this' }),
    maxClockSkew: opt.duration({ flag: 'max-clock-skew', env: ['ANCHOR_MAX_CLOCK_SKEW', 'MAX_CLOCK_SKEW'], default: '1m', help: 'Tolerance on witness proof creation times' }),
    witnessStoreExpiryPeriod: opt.duration({
      flag: 'witness-store-expiry-period',
      env: ['ANCHOR_WITNESS_STORE_EXPIRY_PERIOD', 'WITNESS_STORE_EXPIRY_PERIOD'],
      default: '12m',
      help: 'How long witness bookkeeping of an anchor is kept (must exceed max-witness-delay + max-clock-skew)',
    }),
    signWithLocalWitness: opt.bool({
      flag: 'sign-with-local-witness',
      short: 'f',
      env: ['ANCHOR_SIGN_WITH_LOCAL_WITNESS', 'SIGN_WITH_LOCAL_WITNESS'],
      default: true,
      help: 'Always add the local witness (log-backed when a log is configured) proof to anchor credentials',
    }),
    anchorStatusMonitoringInterval: opt.duration({
      flag: 'anchor-status-monitoring-interval',
      env: ['ANCHOR_ANCHOR_STATUS_MONITORING_INTERVAL', 'ANCHOR_STATUS_MONITORING_INTERVAL'],
      default: '10s',
      help: 'How often in-process anchors are checked for witnesses that did not answer',
    }),
    anchorStatusGracePeriod: opt.duration({
      flag: 'anchor-status-in-process-grace-period',
      env: ['ANCHOR_ANCHOR_STATUS_IN_PROCESS_GRACE_PERIOD', 'ANCHOR_STATUS_IN_PROCESS_GRACE_PERIOD'],
      default: '1m',
      help: 'Time given to selected witnesses before others are selected in their place',
    }),
    batchWriterLease: opt.duration({
      flag: 'batch-writer-lease',
      env: ['ANCHOR_BATCH_WRITER_LEASE'],
      default: '15s',
      min: '1s',
      help: 'Lease that makes one instance of a deployment the batch writer; another takes over this long after it stops renewing',
    }),
    vctEnabled: opt.bool({
      flag: 'vct-enabled',
      env: ['ANCHOR_VCT_ENABLED', 'VCT_ENABLED'],
      default: true,
      help: 'Report the transparency log in health checks (vctStatus "disabled" when false); witnessing uses the /log setting regardless',
    }),
    vcSignKeyFile: opt.string({
      flag: 'vc-sign-key-file',
      env: ['ANCHOR_VC_SIGN_KEY_FILE'],
      help: 'PEM (PKCS#8) Ed25519 key that signs anchor credentials; generated in the data directory when absent',
    }),
    vcSignKeyId: opt.string({ flag: 'vc-sign-key-id', env: ['ANCHOR_VC_SIGN_ACTIVE_KEY_ID'], default: 'vc-key', help: 'Key id of the anchor-credential key in /.well-known/did.json' }),
    httpSignKeyFile: opt.string({
      flag: 'http-sign-key-file',
      env: ['ANCHOR_HTTP_SIGN_KEY_FILE'],
      help: 'PEM (PKCS#8) Ed25519 key that signs outbound HTTP requests; generated in the data directory when absent',
    }),
    httpSignKeyId: opt.string({ flag: 'http-sign-key-id', env: ['ANCHOR_HTTP_SIGN_ACTIVE_KEY_ID'], default: 'main-key', help: 'Key id of the HTTP signing key' }),

    // --- Authentication and federation ------------------------------------------------------------------
    httpSignatures: opt.bool({
      flag: 'enable-http-signatures',
      short: 'p',
      env: ['ANCHOR_HTTP_SIGNATURES_ENABLED', 'HTTP_SIGNATURES_ENABLED'],
      default: true,
      help: 'Sign outbound federation requests and verify inbound signatures',
    }),
    signatureDateWindow: opt.duration({
      flag: 'http-signature-date-window',
      env: ['ANCHOR_HTTP_SIGNATURE_DATE_WINDOW'],
      default: '5m',
      help: 'Signed requests whose Date differs from now by more are rejected (the original never checked)',
    }),
    authTokensDef: opt.list({
      flag: 'auth-tokens-def',
      short: 'D',
      env: ['ANCHOR_AUTH_TOKENS_DEF'],
      separator: null,
      help: 'Token rules, repeatable: <path-regex>|<read-token-names joined by &>|<write-token-names joined by &>',
    }),
    authTokens: opt.map({ flag: 'auth-tokens', short: 'A', env: ['ANCHOR_AUTH_TOKENS'], secret: true, help: 'Token values: name=value[,name=value]' }),
    clientAuthTokensDef: opt.list({
      flag: 'client-auth-tokens-def',
      env: ['ANCHOR_CLIENT_AUTH_TOKENS_DEF'],
      separator: null,
      help: 'Which outbound paths to sign (same format as --auth-tokens-def); default: the server rules',
    }),
    clientAuthTokens: opt.map({ flag: 'client-auth-tokens', env: ['ANCHOR_CLIENT_AUTH_TOKENS'], secret: true, help: 'Token values for --client-auth-tokens-def' }),
    requestTokens: opt.map({
      flag: 'request-tokens',
      env: ['ANCHOR_REQUEST_TOKENS'],
      secret: true,
      help: 'Bearer tokens this node sends to other services: vct-read=..., vct-write=...',
    }),
    followAuthPolicy: opt.enum(['accept-all', 'accept-list'], {
      flag: 'follow-auth-policy',
      short: 'F',
      env: ['ANCHOR_FOLLOW_AUTH_POLICY', 'FOLLOW_AUTH_POLICY'],
      default: 'accept-all',
      help: 'Who may follow this node',
    }),
    inviteWitnessAuthPolicy: opt.enum(['accept-all', 'accept-list'], {
      flag: 'invite-witness-auth-policy',
      short: 'W',
      env: ['ANCHOR_INVITE_WITNESS_AUTH_POLICY', 'INVITE_WITNESS_AUTH_POLICY'],
      default: 'accept-all',
      help: 'Who may invite this node to witness',
    }),
    activityPubPageSize: opt.int({
      flag: 'activitypub-page-size',
      short: 'P',
      env: ['ANCHOR_ACTIVITYPUB_PAGE_SIZE', 'ACTIVITYPUB_PAGE_SIZE'],
      default: 50,
      min: 1,
      max: 1000,
      help: 'Items per ActivityPub collection page',
    }),
    syncInterval: opt.duration({
      flag: 'sync-interval',
      short: 'S',
      env: ['ANCHOR_SYNC_INTERVAL', 'ANCHOR_EVENT_SYNC_INTERVAL'],
      default: '1m',
      help: 'How often followees\' outboxes and followers\' inboxes are read for missed anchors',
    }),
    syncMinActivityAge: opt.duration({
      flag: 'sync-min-activity-age',
      env: ['ANCHOR_SYNC_MIN_ACTIVITY_AGE', 'ANCHOR_EVENT_SYNC_MIN_ACTIVITY_AGE'],
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
      env: ['ANCHOR_NODEINFO_REFRESH_INTERVAL', 'NODEINFO_REFRESH_INTERVAL'],
      default: '15s',
      help: 'How often NodeInfo usage counts are recomputed',
    }),

    // --- Storage and queues -----------------------------------------------------------------------------
    databaseType: opt.enum(['lmdb', 'mem', 'mongodb'], {
      flag: 'database-type',
      short: 't',
      env: ['ANCHOR_DATABASE_TYPE', 'DATABASE_TYPE'],
      default: 'lmdb',
      help: 'lmdb (embedded, durable), mem (tests only), mongodb (production)',
    }),
    databaseUrl: opt.string({ flag: 'database-url', short: 'v', env: ['ANCHOR_DATABASE_URL', 'DATABASE_URL'], secret: true, help: 'MongoDB connection string' }),
    databasePrefix: opt.string({ flag: 'database-prefix', env: ['ANCHOR_DATABASE_PREFIX', 'DATABASE_PREFIX'], help: 'Prefix of store names (several nodes may share one database)' }),
    mqUrl: opt.string({ flag: 'mq-url', short: 'q', env: ['ANCHOR_MQ_URL', 'MQ_URL'], secret: true, help: 'amqp:// URL of RabbitMQ; empty for the in-process queue' }),
    mqNamespace: opt.string({
      flag: 'mq-namespace',
      env: ['ANCHOR_MQ_NAMESPACE', 'MQ_NAMESPACE'],
      validate: (value) => checkNamespace(value),
      help: "Prefix of this node's queue names, so nodes sharing a broker and vhost never take each other's work; default derived from the service id. Replicas of one node share it",
    }),
    mqPoolSize: opt.int({ flag: 'mq-pool-size', env: ['ANCHOR_MQ_POOL_SIZE'], default: 5, min: 1, max: 100, help: 'Consumers per queue topic (the inbox and the outbox have pools of their own)' }),
    mqOutboxPool: opt.int({
      flag: 'mq-outbox-pool',
      env: ['ANCHOR_MQ_OUTBOX_POOL', 'MQ_OUTBOX_POOL'],
      default: 32,
      min: 1,
      max: 1000,
      help: 'Outbound activity deliveries (signed POSTs to other inboxes) and fan-outs in flight at once',
    }),
    mqInboxPool: opt.int({
      flag: 'mq-inbox-pool',
      env: ['ANCHOR_MQ_INBOX_POOL', 'MQ_INBOX_POOL'],
      default: 32,
      min: 1,
      max: 1000,
      help: 'Received activities handled at once',
    }),
    mqMaxAttempts: opt.int({
      flag: 'mq-redelivery-max-attempts',
      env: ['ANCHOR_MQ_REDELIVERY_MAX_ATTEMPTS', 'MQ_REDELIVERY_MAX_ATTEMPTS'],
      default: 30,
      min: 1,
      help: 'Deliveries before a failing message is dead-lettered',
    }),
    mqRedeliveryInitialInterval: opt.duration({
      flag: 'mq-redelivery-initial-interval',
      env: ['ANCHOR_MQ_REDELIVERY_INITIAL_INTERVAL', 'MQ_REDELIVERY_INITIAL_INTERVAL'],
      default: '2s',
      help: 'First redelivery delay',
    }),
    mqRedeliveryMultiplier: opt.number({
      flag: 'mq-redelivery-multiplier',
      env: ['ANCHOR_MQ_REDELIVERY_MULTIPLIER', 'MQ_REDELIVERY_MULTIPLIER'],
      default: 1.5,
      min: 1,
      help: 'Growth factor of redelivery delays',
    }),
    mqRedeliveryMaxInterval: opt.duration({
      flag: 'mq-redelivery-max-interval',
      env: ['ANCHOR_MQ_REDELIVERY_MAX_INTERVAL', 'MQ_REDELIVERY_MAX_INTERVAL'],
      default: '1m',
      help: 'Longest redelivery delay',
    }),

    // --- Observability ----------------------------------------------------------------------------------
    logLevel: opt.custom({
      flag: 'log-level',
      short: 'l',
      env: ['ANCHOR_LOG_LEVEL', 'LOG_LEVEL'],
      type: 'level spec',
      parse: (raw: string) => {
        parseLogSpec(raw);
        return raw;
      },
      default: 'info',
      help: 'module=level:...:default with levels error, warning, info, debug',
    }),
    logFormat: opt.enum(['text', 'json'], { flag: 'log-format', env: ['ANCHOR_LOG_FORMAT', 'LOG_FORMAT'], default: 'text', help: 'Log line format' }),
  },
  checks: [
    // Witness bookkeeping must outlive an Offer's whole window, or late proofs would find no record.
    (c) =>
      c.witnessStoreExpiryPeriod > c.maxWitnessDelay + c.maxClockSkew
        ? undefined
        : `--witness-store-expiry-period (${formatDuration(c.witnessStoreExpiryPeriod)}) must exceed --max-witness-delay + --max-clock-skew (${formatDuration(c.maxWitnessDelay + c.maxClockSkew)})`,
  ],
});

export type NodeConfig = ConfigOf<typeof nodeConfigSpec>;

/** `scheme://host[:port]` of http or https, nothing more (alternate links append their own paths). */
function isHttpOrigin(text: string): boolean {
  try {
    const url = new URL(text);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.origin === text.replace(/\/$/, '');
  } catch {
    return false;
  }
}
