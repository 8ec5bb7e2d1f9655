import { join } from 'node:path';
import { createDidResolver, didWebResolver, type DidDocument, type DidResolverRegistry } from '@anchor/common/did';
import { createHttpApp, parseTokenRules, TokenRules, type HttpApp } from '@anchor/common/http';
import { createHttpClient, type HttpClient } from '@anchor/common/http-client';
import { createRequestSigner, createSignatureAuthenticator, serviceKeyId } from '@anchor/common/httpsig';
import { configureLogging, getLogger, type Logger } from '@anchor/common/log';
import { createMetrics, type Metrics } from '@anchor/common/metrics';
import { createMessageQueue, type MessageQueue } from '@anchor/common/mq';
import { createStoreProvider, type StoreProvider } from '@anchor/common/storage';
import type { NodeConfig } from './config.js';
import { domainDidDocument, localFirstDidWebResolver } from './identity/domain-did-document.js';
import { loadNodeKeys, type NodeKeys } from './identity/node-keys.js';
import { nodeUrls, type NodeUrls } from './identity/node-urls.js';
import { createNodeMetrics, type NodeMetrics } from './observability/node-metrics.js';
import { ConfigValues } from './stores/config-values.js';
import { AcceptLists } from './system/accept-lists.js';
import { AllowedOrigins } from './system/allowed-origins.js';

/**
 * Everything a node feature needs, built once per server from the config. Features receive this object
 * and nothing else (tests build a server with a config; there is no other injection path).
 */
export interface NodeContext {
  readonly config: NodeConfig;
  readonly urls: NodeUrls;
  readonly log: Logger;
  readonly storage: StoreProvider;
  readonly mq: MessageQueue;
  readonly configValues: ConfigValues;
  readonly keys: NodeKeys;
  /** `did:web:<host>`, served at /.well-known/did.json: the anchor-credential key. */
  readonly domainDidDocument: DidDocument;
  readonly allowedOrigins: AllowedOrigins;
  /** Follow / invite-witness accept lists (used when the matching auth policy is accept-list). */
  readonly acceptLists: AcceptLists;
  readonly http: HttpApp;
  readonly metrics: Metrics;
  readonly nodeMetrics: NodeMetrics;
  /** Outbound client; signs requests with the HTTP signing key when HTTP signatures are enabled. */
  readonly httpClient: HttpClient;
  /** DID resolution for proofs and signatures: did:key, did:web (http allowed on loopback), and did:node once registered. */
  readonly didResolver: DidResolverRegistry;
  /** Whether the node answers 503 on operations, resolution and inbox (health stays 200, reporting maintenance). */
  readonly maintenance: boolean;
  /** Releases what the context opened (queue, storage, client); called last on stop. */
  close(): Promise<void>;
}

export async function createNodeContext(config: NodeConfig): Promise<NodeContext> {
  configureLogging({ levels: config.logLevel, format: config.logFormat });
  const log = getLogger('anchor-node');
  const urls = nodeUrls(config);
  if (urls.externalEndpoint.startsWith('http://')) {
    log.warn('external endpoint is plain http: fine on loopback and in development, use https in production', { externalEndpoint: urls.externalEndpoint });
  }

  const storage = await createStoreProvider({
    type: config.databaseType,
    dataDir: join(config.dataDir, 'db'),
    ...(config.databaseUrl !== undefined ? { url: config.databaseUrl } : {}),
    ...(config.databasePrefix !== undefined ? { prefix: config.databasePrefix } : {}),
  });
  const mq = await createMessageQueue({
    ...(config.mqUrl !== undefined ? { url: config.mqUrl } : {}),
    // Queues are this node's own even on a broker other nodes share: named under its namespace, and a message
    // stamped with another node's identity is refused instead of being anchored as this node's.
    identity: urls.serviceId,
    ...(config.mqNamespace !== undefined ? { namespace: config.mqNamespace } : {}),
    onForeignMessage: (topic, from) =>
      log.error('refused a queue message published by another node: two nodes share an MQ namespace (set --mq-namespace apart)', { topic, from: from ?? 'unnamed' }),
    concurrency: config.mqPoolSize,
    maxAttempts: config.mqMaxAttempts,
    backoff: { initialMs: config.mqRedeliveryInitialInterval, multiplier: config.mqRedeliveryMultiplier, maxMs: config.mqRedeliveryMaxInterval },
  });
  const configValues = await ConfigValues.open(storage);
  const keys = await loadNodeKeys(config, configValues);
  const allowedOrigins = new AllowedOrigins(configValues, config.allowedOriginsCacheExpiration);
  await allowedOrigins.seed(config.allowedOrigins ?? [], [urls.externalEndpoint, urls.serviceId]);

  const ownDidDocument = domainDidDocument(urls, keys);
  // The node's own did:web resolves from memory; other did:web DIDs over the network (http on loopback,
  // and anywhere in dev mode).
  const didResolver = createDidResolver().register('web', localFirstDidWebResolver(ownDidDocument, didWebResolver({ http: config.devMode ? 'always' : 'loopback' })));
  const metrics = createMetrics({ prefix: 'node_' });
  const nodeMetrics = createNodeMetrics(metrics);

  const serverRules = parseTokenRules(config.authTokensDef ?? [], config.authTokens ?? {});
  const signatureAuthenticator = config.httpSignatures
    ? createSignatureAuthenticator({
        dateWindowMs: config.signatureDateWindow,
        cacheTtlMs: config.actorCacheExpiration,
        resolveDidKey: async (didUrl) => (await didResolver.resolveVerificationMethod(didUrl)).key,
      })
    : undefined;
  const http = createHttpApp({
    metrics,
    bodyLimit: config.bodyLimit,
    auth: { rules: serverRules, ...(signatureAuthenticator ? { signatureAuthenticator } : {}) },
  });

  // Federation peers verify our requests by signature, so every outbound request is signed unless client
  // token rules narrow it down (the original signed only where its client rules required a token).
  // An empty list (the flag not given) narrows nothing: `[]` is truthy, and would sign no request at all.
  const clientRules = config.clientAuthTokensDef && config.clientAuthTokensDef.length > 0 ? new TokenRules(parseTokenRules(config.clientAuthTokensDef, config.clientAuthTokens ?? {})) : undefined;
  const httpKeyId = urls.serviceIsDid ? `${urls.serviceId}#${keys.httpKeyId}` : serviceKeyId(urls.serviceId, keys.httpKeyId);
  const httpClient = createHttpClient({
    timeoutMs: config.httpTimeout,
    ...(config.httpSignatures ? { signer: createRequestSigner({ keyId: httpKeyId, key: keys.httpSigningKey }) } : {}),
    ...(clientRules ? { shouldSign: ({ method, url }: { method: string; url: URL }) => clientRules.tokensFor(url.pathname, method).length > 0 } : {}),
  });

  http.health.register('dbStatus', () => storage.ping());
  http.health.register('mqStatus', () => (mq.isConnected() ? 'success' : 'not connected'));
  http.health.register('kmsStatus', () => (keys.vcSigningKey.isPrivate && keys.httpSigningKey.isPrivate ? 'success' : 'signing keys unavailable'));
  http.health.setMaintenance(config.maintenanceMode);

  return {
    config,
    urls,
    log,
    storage,
    mq,
    configValues,
    keys,
    domainDidDocument: ownDidDocument,
    allowedOrigins,
    acceptLists: new AcceptLists(configValues),
    http,
    metrics,
    nodeMetrics,
    httpClient,
    didResolver,
    maintenance: config.maintenanceMode,
    async close() {
      httpClient.close();
      await mq.close();
      await storage.close();
    },
  };
}
