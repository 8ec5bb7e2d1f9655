import { mountRoutes } from '@anchor/common/http';
import { createService, type ServiceDefinition } from '@anchor/common/service';
import type { NodeConfig } from './config.js';
import { extendNodeContext, nodeSettings, type NodeContext, type NodeContextMembers } from './context.js';
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
import { nodeRoutes } from './routes.js';
import { createSidetreeApiFeature, type SidetreeApiFeature } from './sidetree-api/sidetree-api-feature.js';
import { createSystemFeature } from './system/system-feature.js';
import { createVcFeature, type VcFeature } from './vc/vc-feature.js';
import { createVctClientFeature, type VctClientFeature } from './vct-client/vct-client-feature.js';
import { createWitnessFeature, type WitnessFeature } from './witness/witness-feature.js';

export { nodeConfigSpec, type NodeConfig } from './config.js';

export interface NodeServer {
  /** Listens, then starts every feature's background work (health says "Starting" until all have). */
  start(): Promise<void>;
  /** Lets in-flight requests finish, stops the features in reverse, then closes the queue and the store. */
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

/** The node on the service kit: its features in dependency order, which is also their start order. */
const nodeService = (options: NodeServerOptions): ServiceDefinition<NodeConfig, NodeContextMembers, NodeServices> => ({
  name: 'anchor-node',
  metricsPrefix: 'node_',
  settings: nodeSettings,
  extend: extendNodeContext,
  async features(ctx, add) {
    const stores = await OperationStores.open(ctx.storage);
    const parsedOperations = new ParsedOperationCache();
    const cas = add(await createCasFeature(ctx));
    const vc = add(await createVcFeature(ctx));
    const resolution = add(createResolutionFeature(ctx, { stores }));
    const didWeb = add(createDidWebFeature(ctx, { webView: resolution.webView }));
    const vct = add(await createVctClientFeature(ctx));
    // The observer starts consuming before the writer resumes anchors.
    const observer = add(await createObserverFeature(ctx, { stores, parsedOperations, cas, resolution: resolution.service }));
    const activitypub = add(await createActivityPubFeature(ctx));
    const witness = add(await createWitnessFeature(ctx, { activityPub: activitypub, vct }));
    const anchoring = add(await createAnchoringFeature(ctx, { stores, parsedOperations, cas, vc, vct, observer, witnessing: options.witnessing ?? witness.witnessing }));
    // An arriving witness proof moves its anchor on at once on the writer instance (others are polled).
    witness.onProof((anchorId) => {
      if (anchoring.writer.isLeader) anchoring.pipeline.advance(anchorId);
    });
    const sidetreeApi = add(createSidetreeApiFeature(ctx, { stores, resolution, sink: anchoring.writer }));
    const federation = add(await createFederationFeature(ctx, { activityPub: activitypub, anchoring, observer, cas }));
    const system = add(createSystemFeature(ctx));
    const discovery = add(createDiscoveryFeature(ctx, { resolution: resolution.service, didAnchors: stores.didAnchors, cas: cas.store, logSetting: vct.logSetting, federation: activitypub }));
    mountRoutes(ctx.http, nodeRoutes(ctx, { sidetreeApi, didWeb, cas, vc, vct, activitypub, witness, system, discovery }));
    return { stores, cas, vc, resolution, vct, observer, anchoring, sidetreeApi, discovery, activitypub, witness, federation };
  },
  started(ctx) {
    ctx.log.info('node started', { url: ctx.listener.url, externalEndpoint: ctx.urls.externalEndpoint, serviceId: ctx.urls.serviceId });
  },
});

/** Builds a node from its config. Tests, the dev-env and production all start nodes through this function. */
export async function createServer(config: NodeConfig, options: NodeServerOptions = {}): Promise<NodeServer> {
  const service = await createService(nodeService(options), config);
  return {
    context: service.context,
    services: service.parts,
    get url() {
      return service.url;
    },
    start: () => service.start(),
    stop: () => service.stop(),
  };
}
