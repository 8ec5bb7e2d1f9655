import type { NodeContext } from '../context.js';
import { WebDidView } from './web-did-view.js';
import type { NodeFeature } from '../feature.js';
import type { OperationStores } from '../operations/operation-stores.js';
import { DidOperationsLoader } from './did-operations.js';
import { methodNames, nodeDidResolver } from './node-did-resolver.js';
import { ResolutionService } from './resolution-service.js';

export interface ResolutionFeature extends NodeFeature {
  readonly service: ResolutionService;
  readonly loader: DidOperationsLoader;
  readonly webView: WebDidView;
}

/**
 * DID resolution on this node: the did:node resolution service (cached per DID), its did:web view, and the
 * did:node method in `ctx.didResolver` (so proofs by did:node keys verify through this node).
 */
export function createResolutionFeature(ctx: NodeContext, deps: { stores: OperationStores }): ResolutionFeature {
  const loader = new DidOperationsLoader(
    deps.stores,
    {
      enabled: ctx.config.sidetree.unpublishedOperationStore,
      types: ctx.config.sidetree.unpublishedOperationTypes,
      lifetimeMs: ctx.config.sidetree.unpublishedOperationLifetime,
    },
    ctx.protocols,
  );
  const aliases = ctx.config.sidetree.didAliases ?? [];
  const service = new ResolutionService(loader, {
    namespace: ctx.config.sidetree.didNamespace,
    aliases,
    domain: ctx.urls.host,
    includePublishedOperations: ctx.config.sidetree.includePublishedOperations,
    cacheSize: ctx.config.sidetree.resolutionCacheSize,
    cacheMaxBytes: ctx.config.sidetree.resolutionCacheMaxBytes,
    metrics: ctx.nodeMetrics,
  });
  const resolver = nodeDidResolver(service);
  for (const method of methodNames(ctx.config.sidetree.didNamespace, aliases))
    ctx.didResolver.register(method, resolver);
  const webView = new WebDidView(service, {
    host: ctx.urls.host,
    allowedDomains: ctx.config.sidetree.allowedDidWebDomains ?? [],
  });
  return { name: 'resolution', service, loader, webView };
}
