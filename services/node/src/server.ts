import { readFile } from 'node:fs/promises';
import { mountRoutes, startHttpServer, type RunningHttpServer } from '@anchor/common/http';
import type { NodeConfig } from './config.js';
import { createNodeContext, type NodeContext } from './context.js';
import type { NodeFeature } from './feature.js';
import { createActivityPubFeature, type ActivityPubFeature } from './activitypub/activitypub-feature.js';
import { createAnchoringFeature, type AnchoringFeature } from './anchoring/anchoring-feature.js';
import { ParsedOperationCache } from './anchoring/parsed-operation-cache.js';
import type { AnchorWitnessing } from './anchoring/witnessing.js';
import { createCasFeature, type CasFeature } from './cas/cas-feature.js';
import { createDidWebFeature } from './did-web/did-web-feature.js';
import { createDiscoveryFeature, type DiscoveryFeature } from './discovery/discovery-feature.js';
import { createFederationFeature, type FederationFeature } from './federation/federation-feature.js';
import { createObserverFeature, type ObserverFeature } from './observer/observer-feature.js';
import { OperationStores } from './operations/operation-stores.js';
import { createResolutionFeature, type ResolutionFeature } from './resolution/resolution-feature.js';
import { createSidetreeApiFeature, type SidetreeApiFeature } from './sidetree-api/sidetree-api-feature.js';
import { createSystemFeature } from './system/system-feature.js';
import { createVcFeature, type VcFeature } from './vc/vc-feature.js';
import { createVctClientFeature, type VctClientFeature } from './vct-client/vct-client-feature.js';
import { createWitnessFeature, type WitnessFeature } from './witness/witness-feature.js';
import { nodeRoutes } from './routes.js';

export { nodeConfigSpec, type NodeConfig } from './config.js';

export interface NodeServer {
  /** Listens and starts every feature's background work. */
  start(): Promise<void>;
  /** Stops background work, lets in-flight requests finish, then closes the queue and the store. */
  stop(): Promise<void>;
  /** The listening URL (after start). */
  readonly url: string;
  readonly context: NodeContext;
  /** The parts later features build on (federation, discovery, system endpoints) and tests inspect. */
  readonly services: NodeServices;
}

export interface NodeServices {
  readonly stores: OperationStores;
  readonly cas: CasFeature;
  readonly vc: VcFeature;
  readonly resolution: ResolutionFeature;
  readonly vct: VctClientFeature;
  readonly observer: ObserverFeature;
  readonly anchoring: AnchoringFeature;
  readonly sidetreeApi: SidetreeApiFeature;
  readonly discovery: DiscoveryFeature;
  /** The ActivityPub service: store, inbox, outbox, delivery; `outboxCount(type)` and `anchorAlternates(anchor)` for NodeInfo and WebFinger. */
  readonly activitypub: ActivityPubFeature;
  readonly witness: WitnessFeature;
  readonly federation: FederationFeature;
}

export interface NodeServerOptions {
  /** Replaces the witnessing step (default: the witness feature's Offers to batch and system witnesses under the witness policy). */
  witnessing?: AnchorWitnessing;
}

/**
 * Builds a node from its config: the context (store, queue, keys, HTTP kit), then each feature in
 * dependency order. Tests, the local federation and production all start nodes through this function.
 */
export async function createServer(config: NodeConfig, options: NodeServerOptions = {}): Promise<NodeServer> {
  const context = await createNodeContext(config);
  const stores = await OperationStores.open(context.storage);
  const parsedOperations = new ParsedOperationCache();
  const cas = await createCasFeature(context);
  const vc = await createVcFeature(context);
  const resolution = createResolutionFeature(context, { stores });
  const didWeb = createDidWebFeature(context, { webView: resolution.webView });
  const vct = await createVctClientFeature(context);
  const observer = await createObserverFeature(context, { stores, parsedOperations, cas, resolution: resolution.service });
  const activitypub = await createActivityPubFeature(context);
  const witness = await createWitnessFeature(context, { activityPub: activitypub, vct });
  const anchoring = await createAnchoringFeature(context, { stores, parsedOperations, cas, vc, vct, observer, witnessing: options.witnessing ?? witness.witnessing });
  // An arriving witness proof moves its anchor on at once on the writer instance (others are polled).
  witness.onProof((anchorId) => {
    if (anchoring.writer.isLeader) anchoring.pipeline.advance(anchorId);
  });
  const federation = await createFederationFeature(context, { activityPub: activitypub, anchoring, observer, cas });
  const sidetreeApi = createSidetreeApiFeature(context, { stores, resolution, sink: anchoring.writer });
  const system = createSystemFeature(context);
  const discovery = createDiscoveryFeature(context, { resolution: resolution.service, didAnchors: stores.didAnchors, cas: cas.store, logSetting: vct.logSetting, federation: activitypub });
  const services: NodeServices = { stores, cas, vc, resolution, vct, observer, anchoring, sidetreeApi, discovery, activitypub, witness, federation };
  mountRoutes(context.http, nodeRoutes(context, { sidetreeApi, didWeb, cas, vc, vct, activitypub, witness, system, discovery }));
  // Started in this order, stopped in reverse: the observer consumes before the writer resumes anchors.
  const features: NodeFeature[] = [cas, vc, resolution, didWeb, vct, observer, activitypub, witness, anchoring, sidetreeApi, federation, system, discovery];

  let running: RunningHttpServer | undefined;
  let started: NodeFeature[] = [];
  return {
    context,
    services,
    get url() {
      if (!running) throw new Error('node server not started');
      return running.url;
    },
    async start() {
      // Features start after the listener (some call this node over HTTP), so health says 503 "Starting"
      // until they all have: a probe must not call the node ready while its start-up can still fail.
      context.http.health.setStarting(true);
      // The HTTP kit's listener: its fast routes (the Sidetree endpoints) answered in front of express.
      running = await startHttpServer(context.http.listener, {
        host: config.hostUrl.host,
        port: config.hostUrl.port,
        ...(config.tlsCertificate && config.tlsKey
          ? { tls: { cert: await readFile(config.tlsCertificate), key: await readFile(config.tlsKey) } }
          : {}),
      });
      for (const feature of features) {
        await feature.start?.();
        started.push(feature);
      }
      context.http.health.setStarting(false);
      context.log.info('node started', { url: running.url, externalEndpoint: context.urls.externalEndpoint, serviceId: context.urls.serviceId });
    },
    async stop() {
      for (const feature of started.reverse()) await feature.stop?.();
      started = [];
      await running?.close();
      running = undefined;
      await context.close();
    },
  };
}
