import { mountRoutes } from '@anchor/common/http';
import { createJsonLdContextsFeature } from '@anchor/common/jsonld-contexts';
import { createService, type ServiceDefinition } from '@anchor/common/service';
import type { NodeConfig } from './config.js';
import { extendNodeContext, nodeSettings, type NodeContextMembers } from './context.js';
import type { NodeServer, NodeServerOptions, NodeServices } from './node-server.js';
import { createActivityPubFeature } from './activitypub/activitypub-feature.js';
import { createAnchoringFeature } from './anchoring/anchoring-feature.js';
import { ParsedOperationCache } from './anchor-model/parsed-operation-cache.js';
import { createCasFeature } from './cas/cas-feature.js';
import { createDeadLettersFeature } from './dead-letters/dead-letters-feature.js';
import { createDidDiscoveryFeature } from './did-discovery/did-discovery-feature.js';
import { createDidWebFeature } from './did-web/did-web-feature.js';
import { createExportFeature } from './export/export-feature.js';
import { createWellKnownFeature } from './well-known/well-known-feature.js';
import { createAnchorPropagationFeature } from './anchor-propagation/anchor-propagation-feature.js';
import { createLogMonitoringFeature } from './log-monitoring/log-monitoring-feature.js';
import { createObserverFeature } from './observer/observer-feature.js';
import { OperationStores } from './operations/operation-stores.js';
import { createResolutionFeature } from './resolution/resolution-feature.js';
import { nodeRoutes } from './routes.js';
import { createSidetreeApiFeature } from './sidetree-api/sidetree-api-feature.js';
import { createSystemFeature } from './system/system-feature.js';
import { createAnchorCredentialsFeature } from './anchor-credentials/anchor-credentials-feature.js';
import { createVctClientFeature } from './vct-client/vct-client-feature.js';
import { createWitnessFeature } from './witness/witness-feature.js';

export { nodeConfigSpec, type NodeConfig } from './config.js';
export type { NodeServer, NodeServerOptions, NodeServices } from './node-server.js';

/** The node on the service kit: its features in dependency order, which is also their start order. */
const nodeService = (options: NodeServerOptions): ServiceDefinition<NodeConfig, NodeContextMembers, NodeServices> => ({
  name: 'anchor-node',
  metricsPrefix: 'node_',
  settings: nodeSettings,
  extend: extendNodeContext,
  async features(ctx, add) {
    // First in, last out: the signing keys (a kms connection) outlive every feature that signs.
    add({ name: 'signing-keys', stop: async () => ctx.keys.close() });
    // The operator's contexts (--contexts-file) are in place before anything checks a credential.
    const contexts = add(
      await createJsonLdContextsFeature(ctx.jsonldContexts, { contextsFile: ctx.config.jsonld.contextsFile }),
    );
    const stores = await OperationStores.open(ctx.storage);
    const parsedOperations = new ParsedOperationCache();
    const cas = add(await createCasFeature(ctx));
    const anchorCredentials = add(await createAnchorCredentialsFeature(ctx));
    const resolution = add(createResolutionFeature(ctx, { stores }));
    const didWeb = add(createDidWebFeature(ctx, { webView: resolution.webView }));
    const vct = add(await createVctClientFeature(ctx));
    // The observer starts consuming before the writer resumes anchors.
    const observer = add(
      await createObserverFeature(ctx, { stores, parsedOperations, cas, resolution: resolution.service }),
    );
    const activitypub = add(await createActivityPubFeature(ctx));
    const witness = add(await createWitnessFeature(ctx, { activityPub: activitypub, vct }));
    const anchoring = add(
      await createAnchoringFeature(ctx, {
        stores,
        parsedOperations,
        cas,
        anchorCredentials,
        vct,
        observer,
        witnessing: options.witnessing ?? witness.witnessing,
      }),
    );
    // An arriving witness proof moves its anchor on at once on the writer instance (others are polled).
    witness.onProof((anchorId) => {
      if (anchoring.writer.isLeader) anchoring.pipeline.advance(anchorId);
    });
    const didDiscovery = add(
      createDidDiscoveryFeature(ctx, { resolution: resolution.service, observer: observer.observer }),
    );
    const sidetreeApi = add(
      createSidetreeApiFeature(ctx, { stores, resolution, sink: anchoring.writer, discovery: didDiscovery }),
    );
    const anchorPropagation = add(
      await createAnchorPropagationFeature(ctx, { activityPub: activitypub, anchoring, observer, cas }),
    );
    const logMonitoring = add(
      await createLogMonitoringFeature(ctx, {
        vct,
        activityPub: activitypub,
        isLeader: () => anchoring.writer.isLeader,
      }),
    );
    // Deliveries to peers and activities from them that failed on every attempt, kept for the operator.
    const deadLetters = add(
      await createDeadLettersFeature(ctx, {
        sources: [
          activitypub.delivery.fanOutDeadLetterSource(),
          activitypub.delivery.deadLetterSource(),
          activitypub.inbox.deadLetterSource(),
        ],
      }),
    );
    const exports = add(createExportFeature(ctx, { stores, observer, cas }));
    const system = add(createSystemFeature(ctx));
    const wellKnown = add(
      createWellKnownFeature(ctx, {
        resolution: resolution.service,
        didAnchors: stores.didAnchors,
        cas: cas.store,
        logSetting: vct.logSetting,
        federation: activitypub,
      }),
    );
    const services: NodeServices = {
      stores,
      cas,
      anchorCredentials,
      resolution,
      vct,
      observer,
      anchoring,
      sidetreeApi,
      wellKnown,
      activitypub,
      witness,
      anchorPropagation,
      logMonitoring,
      deadLetters,
      exports,
    };
    mountRoutes(ctx.http, nodeRoutes(ctx, { ...services, didWeb, system, contexts }));
    return services;
  },
  started(ctx) {
    ctx.log.info('node started', {
      url: ctx.listener.url,
      externalEndpoint: ctx.urls.externalEndpoint,
      serviceId: ctx.urls.serviceId,
    });
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
    onFatal: (listener) => service.onFatal(listener),
  };
}
