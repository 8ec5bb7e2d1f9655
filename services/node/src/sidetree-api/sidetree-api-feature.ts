import { badRequest, unavailable } from '@anchor/common/errors';
import { answer, type Answer, type Handler } from '@anchor/common/http';
import { getLogger } from '@anchor/common/log';
import type { NodeContext } from '../context.js';
import type { DidDiscoveryFeature } from '../did-discovery/did-discovery-feature.js';
import type { NodeFeature } from '../feature.js';
import type { OperationStores } from '../operations/operation-stores.js';
import { didHistory } from '../resolution/did-history.js';
import { resolveWithBinding, VARY } from '../resolution/did-resolution-binding.js';
import { methodNames } from '../resolution/node-did-resolver.js';
import type { ResolutionFeature } from '../resolution/resolution-feature.js';
import type { VersionOptions } from '../resolution/resolution-service.js';
import { negotiateResolution } from '../resolution/resolution-media-types.js';
import { IntakeBackPressure } from './intake-back-pressure.js';
import { OperationIntake, type AcceptedOperationSink } from './operation-intake.js';
import type { SidetreeApi } from './sidetree-api.js';

export interface SidetreeApiFeature extends NodeFeature {
  readonly intake: OperationIntake;
  readonly api: SidetreeApi;
  /** The API as the HTTP kit's fast routes. */
  readonly handlers: {
    readonly postOperation: Handler;
    readonly getIdentifier: Handler;
    readonly getHistory: Handler;
  };
}

/**
 * The Sidetree REST API: `POST /sidetree/v1/operations` and `GET /sidetree/v1/identifiers/<did>` (did:node
 * in every form, and did:web scid views), both 503 in maintenance mode. They are the HTTP kit's fast
 * routes: answered in front of express whenever no HTTP signature has to be verified, with the kit's
 * token rules, body limit, error bodies, security headers and metrics, at a fraction of express's cost.
 */
export function createSidetreeApiFeature(
  ctx: NodeContext,
  deps: {
    stores: OperationStores;
    resolution: ResolutionFeature;
    sink: AcceptedOperationSink;
    discovery?: DidDiscoveryFeature | undefined;
  },
): SidetreeApiFeature {
  const log = getLogger('sidetree-api');
  const intake = new OperationIntake(
    {
      stores: deps.stores,
      resolution: deps.resolution.service,
      allowedOrigins: ctx.allowedOrigins,
      sink: deps.sink,
      metrics: ctx.nodeMetrics,
      log,
      storeStalledForMs: () => ctx.storeHealth.stalledForMs(),
      backPressure: new IntakeBackPressure(() => deps.stores.queued.count(), {
        maxQueued: ctx.config.anchoring.maxQueuedOperations,
        onDepth: (depth) => ctx.nodeMetrics.operationQueueDepth.set(depth),
      }),
      verifyLatest: deps.discovery?.verifyLatest,
    },
    {
      namespace: ctx.config.sidetree.didNamespace,
      domain: ctx.urls.host,
      includePublishedOperations: ctx.config.sidetree.includePublishedOperations,
      protocol: ctx.protocols.current,
    },
  );
  const notInMaintenance = (): void => {
    if (ctx.maintenance) throw unavailable('the node is in maintenance mode');
  };
  const { didNamespace, didAliases } = ctx.config.sidetree;
  const resolvedMethods = new Set([...methodNames(didNamespace, didAliases ?? []), 'web']);
  const resolveDid =
    deps.discovery?.resolve ??
    ((did: string, versions: VersionOptions) => deps.resolution.service.resolve(did, versions));

  /** Orb's answer: the resolution result, or the did:web view of a did:node DID. */
  const resolveSeed = async (
    did: string,
    versions: { versionId?: string | undefined; versionTime?: string | undefined },
  ): Promise<{ type: string; body: string }> => {
    if (deps.resolution.webView.isWebDid(did)) {
      if (versions.versionId !== undefined || versions.versionTime !== undefined) {
        throw badRequest('versionId and versionTime apply to did:node identifiers, not to did:web views');
      }
      return { type: 'application/json', body: JSON.stringify(await deps.resolution.webView.resolve(did)) };
    }
    return { type: 'application/did+ld+json', body: (await resolveDid(did, versions)).json };
  };

  const api: SidetreeApi = {
    async postOperation(body) {
      notInMaintenance();
      return answer({ json: await intake.submit(body), type: 'application/did+ld+json' });
    },
    async getIdentifier(rawDid, versions, accept) {
      notInMaintenance();
      const representation = negotiateResolution(accept);
      if (representation.kind === 'seed') {
        const seed = await resolveSeed(decodeDid(rawDid), versions);
        return answer({ text: seed.body, type: seed.type, headers: VARY });
      }
      let did = rawDid;
      try {
        did = decodeDid(rawDid);
      } catch {
        // Not percent-decodable: the binding reports it as an invalid DID.
      }
      return resolveWithBinding(representation, did, resolvedMethods, (target, own) =>
        resolveSeed(target, own ?? versions),
      );
    },
  };

  /** A DID's operations with their anchors, from this node's stores (no peer is asked). */
  const getHistory = async (rawDid: string): Promise<Answer> => {
    notInMaintenance();
    const did = decodeDid(rawDid);
    if (deps.resolution.webView.isWebDid(did))
      throw badRequest('the history is served for did:node identifiers; resolve the did:web view for its did:node id');
    // Resolving first gives the resolver's answers: 400 for a malformed DID, 404 for one this node does not know.
    await deps.resolution.service.resolve(did);
    const suffix = deps.resolution.service.parse(did).suffix;
    const operations = await deps.resolution.service.didOperations(suffix);
    return answer({ json: didHistory(operations, didNamespace) });
  };

  const handlers = {
    postOperation: (req) => api.postOperation(req.body),
    // The raw path segment, as for resolution, so a port's `%3A` survives.
    getHistory: (req) =>
      getHistory(
        req.path.slice(req.path.indexOf('/identifiers/') + '/identifiers/'.length).replace(/\/history\/?$/, ''),
      ),
    getIdentifier: (req) =>
      api.getIdentifier(
        req.path.slice(req.path.indexOf('/identifiers/') + '/identifiers/'.length),
        {
          versionId: req.query.get('versionId') ?? undefined,
          versionTime: req.query.get('versionTime') ?? undefined,
        },
        req.headers.accept,
      ),
  } satisfies SidetreeApiFeature['handlers'];

  return { name: 'sidetree-api', intake, api, handlers };
}

/**
 * The DID as sent: taken from the raw path so that `%3A` (a port's colon inside a did:web or https hint)
 * survives; a DID sent percent-encoded as a whole (`did%3Anode%3A…`) is decoded once.
 */
function decodeDid(raw: string): string {
  if (/^did%3A/i.test(raw)) {
    try {
      return decodeURIComponent(raw);
    } catch {
      throw badRequest(`'${raw}' is not a valid percent-encoded DID`);
    }
  }
  return raw;
}
