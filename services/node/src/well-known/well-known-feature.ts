import { badRequest } from '@anchor/common/errors';
import { answer, type Handler } from '@anchor/common/http';
import { getLogger } from '@anchor/common/log';
import type { Store } from '@anchor/common/storage';
import { createWebFingerClient, JRD_MEDIA_TYPE } from '@anchor/common/webfinger';
import type { NodeContext } from '../context.js';
import type { NodeFeature } from '../feature.js';
import type { DidAnchor } from '../operations/operation-records.js';
import type { ResolutionService } from '../resolution/resolution-service.js';
import type { LogSetting } from '../vct-client/log-setting.js';
import type { FederationView } from './federation-view.js';
import { nodeInfoContentType, nodeInfoDocument, NodeInfoUsageCounter, type NodeInfoVersion } from './nodeinfo.js';
import { WebFingerResources } from './webfinger-resources.js';
import { didOrbDocument, hostMetaDocument, nodeInfoLinks } from './well-known-documents.js';

export interface WellKnownDeps {
  resolution: ResolutionService;
  didAnchors: Store<DidAnchor>;
  cas: { has(hash: string): Promise<boolean> };
  logSetting: LogSetting;
  /** The federation's outbox counts and the other nodes holding an anchor (the ActivityPub feature). */
  federation: FederationView;
}

export interface WellKnownFeature extends NodeFeature {
  readonly webFinger: WebFingerResources;
  readonly nodeInfo: NodeInfoUsageCounter;
  readonly handlers: WellKnownHandlers;
}

export interface WellKnownHandlers {
  readonly didOrb: Handler;
  /** `/.well-known/host-meta` and `/.well-known/host-meta.json`. */
  readonly hostMeta: Handler;
  readonly domainDid: Handler;
  readonly webFinger: Handler;
  readonly nodeInfoLinks: Handler;
  readonly nodeInfo: Readonly<Record<NodeInfoVersion, Handler>>;
}

/**
 * How operators, peers and crawlers find this node (spec Discovery endpoints, orb.md §1.2 and §2.10):
 * `/.well-known/did-orb`, `host-meta` and `host-meta.json`, `did.json` (the domain DID with the
 * anchor-credential key), `webfinger`, `nodeinfo`, all GET and always open, as in Orb (a peer
 * must be able to find and verify this node before it holds any credential, so even a catch-all token rule
 * does not close them); and `/nodeinfo/2.0`, `/nodeinfo/2.1`, which token rules may protect as in the
 * original.
 */
export function createWellKnownFeature(ctx: NodeContext, deps: WellKnownDeps): WellKnownFeature {
  const discoveryDomains = (ctx.config.discovery.discoveryDomains ?? []).map((domain) => domain.replace(/\/$/, ''));
  const webFinger = new WebFingerResources({
    urls: ctx.urls,
    namespaces: [ctx.config.sidetree.didNamespace, ...(ctx.config.sidetree.didAliases ?? [])],
    discoveryDomains,
    minResolvers: ctx.config.discovery.discoveryMinimumResolvers,
    vctEnabled: ctx.config.witnessing.vctEnabled,
    logSetting: deps.logSetting,
    webFinger: createWebFingerClient({
      httpClient: ctx.httpClient,
      cacheTtlMs: ctx.config.federation.actorCacheExpiration,
    }),
    resolution: deps.resolution,
    didAnchors: deps.didAnchors,
    cas: deps.cas,
    federation: deps.federation,
  });
  const nodeInfo = new NodeInfoUsageCounter(
    deps.federation,
    ctx.config.federation.nodeInfoRefreshInterval,
    getLogger('nodeinfo'),
  );
  const nodeInfoHandler =
    (version: NodeInfoVersion): Handler =>
    () =>
      answer({ json: nodeInfoDocument(version, nodeInfo.usage), type: nodeInfoContentType(version) });
  const handlers: WellKnownHandlers = {
    didOrb: () => answer({ json: didOrbDocument(ctx.urls) }),
    // Both paths serve the JRD whatever the Accept header: XRD is not offered, and a 400 helps no client.
    hostMeta: () => answer({ json: hostMetaDocument(ctx.urls, discoveryDomains) }),
    // Public key material: the explorer of another node checks this node's witness proofs with it in the page.
    domainDid: () => answer({ json: ctx.domainDidDocument, headers: { 'Access-Control-Allow-Origin': '*' } }),
    webFinger: async (req) => {
      const jrd = await webFinger.describe(webFingerResource(req.query.get('resource') ?? undefined));
      return answer({ json: jrd, type: JRD_MEDIA_TYPE });
    },
    nodeInfoLinks: () => answer({ json: nodeInfoLinks(ctx.urls) }),
    nodeInfo: { '2.0': nodeInfoHandler('2.0'), '2.1': nodeInfoHandler('2.1') },
  };

  return {
    name: 'well-known',
    webFinger,
    nodeInfo,
    handlers,
    start: () => nodeInfo.start(),
    async stop() {
      nodeInfo.stop();
    },
  };
}

/** The `resource` query parameter: required, once, non-empty (RFC 7033 §4.2: 400 otherwise). */
function webFingerResource(resource: string | undefined): string {
  if (resource === undefined || resource === '')
    throw badRequest('the resource query parameter is required, e.g. ?resource=did:node:...');
  return resource;
}
