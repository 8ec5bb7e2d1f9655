import { join } from 'node:path';
import { kmsSettingsOf } from '@anchor/common/clients';
import {
  createDidResolver,
  didWebResolver,
  serviceDidWebOptions,
  type DidDocument,
  type DidResolverRegistry,
} from '@anchor/common/did';
import { readCaCertificates } from '@anchor/common/http-client';
import {
  createGuardedFetchJson,
  createRequestSigner,
  createSignatureAuthenticator,
  peerFetchPolicy,
  serviceKeyId,
  type FetchPolicy,
} from '@anchor/common/httpsig';
import { JsonLdContexts } from '@anchor/common/jsonld-contexts';
import { getLogger } from '@anchor/common/log';
import type { BaseContext, ContextExtension, ServiceContext, ServiceSettings } from '@anchor/common/service';
import { tracingSettingsOf } from '@anchor/common/tracing';
import { ProtocolRegistry } from '@anchor/sidetree';
import type { NodeConfig } from './config.js';
import { domainDidDocument, localFirstDidWebResolver } from './identity/domain-did-document.js';
import { loadNodeKeys, type NodeKeys } from './identity/node-keys.js';
import { nodeUrls, type NodeUrls } from './identity/node-urls.js';
import { createNodeMetrics, type NodeMetrics } from './observability/node-metrics.js';
import { ConfigValues } from './runtime-config/config-values.js';
import { AcceptLists } from './runtime-config/accept-lists.js';
import { AllowedOrigins } from './runtime-config/allowed-origins.js';

/** What the node adds to the kit's context (config, log, metrics, storage, mq, http, httpClient). */
export interface NodeContextMembers {
  readonly urls: NodeUrls;
  readonly configValues: ConfigValues;
  readonly keys: NodeKeys;
  /** `did:web:<host>`, served at /.well-known/did.json: the anchor-credential key. */
  readonly domainDidDocument: DidDocument;
  readonly allowedOrigins: AllowedOrigins;
  /** Follow / invite-witness accept lists (used when the matching auth policy is accept-list). */
  readonly acceptLists: AcceptLists;
  readonly nodeMetrics: NodeMetrics;
  /** DID resolution for proofs and signatures: did:key, did:web (http allowed on loopback), and did:node once registered. */
  readonly didResolver: DidResolverRegistry;
  /** Bundled and operator JSON-LD contexts: every JSON-LD call of the node loads contexts through its `documentLoader`. */
  readonly jsonldContexts: JsonLdContexts;
  /** Whether the node answers 503 on operations, resolution and inbox (health stays 200, reporting maintenance). */
  readonly maintenance: boolean;
  /** The did:node protocol versions run: the current one accepts operations and writes anchors, each reads its anchors. */
  readonly protocols: ProtocolRegistry;
}

/**
 * Everything a node feature needs, built once per server from the config. Features receive this object
 * and nothing else (tests build a server with a config; there is no other injection path). The outbound
 * client signs requests with the HTTP signing key when HTTP signatures are enabled.
 */
export type NodeContext = ServiceContext<NodeConfig> & NodeContextMembers;

const log = getLogger('anchor-node');

/** What the kit builds for the node: listener, store, queue, token rules, outbound client. */
export function nodeSettings(config: NodeConfig): ServiceSettings {
  const { server, storage, queue, auth, observability } = config;
  return {
    listen: server.hostUrl,
    tls:
      server.tlsCertificate && server.tlsKey ? { certFile: server.tlsCertificate, keyFile: server.tlsKey } : undefined,
    log: { levels: observability.logLevel, format: observability.logFormat },
    tracing: tracingSettingsOf(observability),
    storage: {
      type: storage.databaseType,
      dataDir: join(server.dataDir, 'db'),
      url: storage.databaseUrl,
      prefix: storage.databasePrefix,
      commitIntervalMs: storage.lmdbCommitInterval,
      stallToleranceMs: storage.databaseStallTolerance,
    },
    queue: {
      ...(queue.mqUrl !== undefined ? { url: queue.mqUrl } : {}),
      ...(queue.mqQueueType !== undefined ? { queueType: queue.mqQueueType } : {}),
      // Queues are this node's own even on a broker other nodes share: named under its namespace, and a message
      // stamped with another node's identity is refused instead of being anchored as this node's.
      identity: nodeUrls(server).serviceId,
      ...(queue.mqNamespace !== undefined ? { namespace: queue.mqNamespace } : {}),
      onForeignMessage: (topic, from) =>
        log.error(
          'refused a queue message published by another node: two nodes share an MQ namespace (set --mq-namespace apart)',
          { topic, from: from ?? 'unnamed' },
        ),
      concurrency: queue.mqPoolSize,
      maxAttempts: queue.mqMaxAttempts,
      backoff: {
        initialMs: queue.mqRedeliveryInitialInterval,
        multiplier: queue.mqRedeliveryMultiplier,
        maxMs: queue.mqRedeliveryMaxInterval,
      },
    },
    bodyLimit: server.bodyLimit,
    maintenance: server.maintenanceMode,
    // Other nodes' explorers show this node's health (its statuses name its own database, kms and log).
    builtins: { healthAnyOrigin: true },
    tokens: { definitions: auth.authTokensDef, tokens: auth.authTokens },
    client: {
      timeoutMs: server.httpTimeout,
      ca: readCaCertificates(server.tlsCaCerts ?? []),
      // Federation peers verify our requests by signature, so every outbound request is signed unless client
      // token rules narrow it down.
      signedPaths:
        auth.clientAuthTokensDef.length > 0
          ? { definitions: auth.clientAuthTokensDef, tokens: auth.clientAuthTokens }
          : undefined,
    },
  };
}

/** The node's own context members, and the signature checks and outbound signer built from its keys. */
export async function extendNodeContext(base: BaseContext<NodeConfig>): Promise<ContextExtension<NodeContextMembers>> {
  const { config, storage } = base;
  const urls = nodeUrls(config.server);
  if (urls.externalEndpoint.startsWith('http://')) {
    base.log.warn('external endpoint is plain http: fine on loopback and in development, use https in production', {
      externalEndpoint: urls.externalEndpoint,
    });
  }
  const configValues = await ConfigValues.open(storage);
  const jsonldContexts = await JsonLdContexts.open(storage);
  const kms = kmsSettingsOf(config.keys);
  // Every outbound client of the node trusts the operator's CAs: the kit's client, and the ones built here.
  const ca = readCaCertificates(config.server.tlsCaCerts ?? []);
  const keys = await loadNodeKeys(
    {
      ...config.keys,
      kms: kms && {
        ...kms,
        httpKeyId: config.keys.kmsHttpKeyId,
        timeoutMs: config.server.httpTimeout,
        ...(ca.length > 0 ? { tls: { ca } } : {}),
      },
    },
    configValues,
  );
  const allowedOrigins = new AllowedOrigins(configValues, config.sidetree.allowedOriginsCacheExpiration);
  await allowedOrigins.seed(config.sidetree.allowedOrigins, [urls.externalEndpoint, urls.serviceId]);

  const ownDidDocument = domainDidDocument(urls, keys);
  // The node's own did:web resolves from memory; other did:web DIDs over the network (http on loopback,
  // and anywhere in dev mode).
  const didResolver = createDidResolver().register(
    'web',
    localFirstDidWebResolver(
      ownDidDocument,
      // A did:web is anyone's to name (a DID keyId, a proof): fetched through the same guard as key fetches. A
      // node served over https expects https of its loopback peers too (a local federation with a private CA).
      didWebResolver(
        serviceDidWebOptions({
          devMode: config.server.devMode,
          ownEndpoint: urls.externalEndpoint,
          allowedPeerNetworks: config.server.allowedPeerNetworks,
          ca,
        }),
      ),
    ),
  );
  const httpKeyId = urls.serviceIsDid
    ? `${urls.serviceId}#${keys.httpKeyId}`
    : serviceKeyId(urls.serviceId, keys.httpKeyId);
  const signatures = config.auth.httpSignatures;
  return {
    context: {
      urls,
      configValues,
      keys,
      domainDidDocument: ownDidDocument,
      jsonldContexts,
      allowedOrigins,
      acceptLists: new AcceptLists(configValues),
      nodeMetrics: createNodeMetrics(base.metrics),
      didResolver,
      maintenance: config.server.maintenanceMode,
      protocols: ProtocolRegistry.of(config.sidetree.protocolVersions, config.sidetree.currentProtocolVersion),
    },
    signatureAuthenticator: signatures
      ? createSignatureAuthenticator({
          dateWindowMs: config.auth.signatureDateWindow,
          cacheTtlMs: config.federation.actorCacheExpiration,
          resolveDidKey: async (didUrl) => (await didResolver.resolveVerificationMethod(didUrl)).key,
          fetchJson: createGuardedFetchJson({ policy: keyFetchPolicy(urls, config.server), ca }),
          targetScheme: new URL(urls.externalEndpoint).protocol === 'http:' ? 'http' : 'https',
        })
      : undefined,
    requestSigner: signatures
      ? createRequestSigner({ keyId: httpKeyId, key: keys.httpSigner, scheme: config.auth.signatureScheme })
      : undefined,
    health: { kmsStatus: () => keys.health() },
  };
}

/**
 * Where the keyId of a signed request may send this node (every signed inbox POST makes it GET that URL
 * before it knows the sender): https to public addresses only. Dev mode lifts the limits (compose networks
 * are private and plain http); a node whose own endpoint is loopback is a local federation, whose peers are
 * on loopback too, so loopback over http is allowed there and nowhere else; `--allowed-peer-networks` adds
 * the operator's private networks.
 */
export function keyFetchPolicy(
  urls: NodeUrls,
  server: { devMode: boolean; allowedPeerNetworks: readonly string[] },
): FetchPolicy {
  return peerFetchPolicy({
    devMode: server.devMode,
    ownEndpoint: urls.externalEndpoint,
    allowedPeerNetworks: server.allowedPeerNetworks,
  });
}
