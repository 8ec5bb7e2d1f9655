import { getLogger } from '@anchor/common/log';
import { createWebFingerClient } from '@anchor/common/webfinger';
import type { ResolutionModel } from '@anchor/sidetree';
import { keyFetchPolicy, type NodeContext } from '../context.js';
import type { NodeFeature } from '../feature.js';
import type { AnchorObserver } from '../observer/anchor-observer.js';
import type { ResolutionService, ResolvedDid, VersionOptions } from '../resolution/resolution-service.js';
import { DidDiscovery } from './did-discovery.js';
import { createDidDiscoveryMetrics } from './did-discovery-metrics.js';
import { plainHttpPolicy } from './peer-base.js';

export interface DidDiscoveryFeature extends NodeFeature {
  /** The identifiers endpoint's resolution when discovery or resolve-from-anchor-origin is on; else undefined. */
  readonly resolve: ((did: string, versions: VersionOptions) => Promise<ResolvedDid>) | undefined;
  /** The intake's check of a change against the anchor origin (`--verify-latest-from-anchor-origin`); else undefined. */
  readonly verifyLatest:
    ((suffix: string, published: ResolutionModel, current: ResolutionModel) => Promise<void>) | undefined;
}

/**
 * `--enable-did-discovery`, `--resolve-from-anchor-origin`, `--verify-latest-from-anchor-origin`: all off
 * by default (as in Orb), and then nothing here runs on the resolution or intake paths.
 */
export function createDidDiscoveryFeature(
  ctx: NodeContext,
  deps: { resolution: ResolutionService; observer: AnchorObserver },
): DidDiscoveryFeature {
  const { discovery, sidetree, server } = ctx.config;
  const discovering = new DidDiscovery(
    {
      resolution: deps.resolution,
      observer: deps.observer,
      // Short-lived answers: a node asked for its latest anchor must be asked again, not remembered.
      webFinger: createWebFingerClient({ httpClient: ctx.httpClient, cacheTtlMs: 1_000 }),
      httpClient: ctx.httpClient,
      log: getLogger('did-discovery'),
      metrics: createDidDiscoveryMetrics(ctx.metrics),
    },
    {
      namespace: sidetree.didNamespace,
      ownBase: ctx.urls.externalEndpoint,
      discoveryDomains: (discovery.discoveryDomains ?? []).map((domain) => domain.replace(/\/$/, '')),
      plainHttp: plainHttpPolicy(ctx.urls.externalEndpoint, server.devMode),
      peerPolicy: keyFetchPolicy(ctx.urls, server),
      discoverUnknown: discovery.didDiscovery,
      resolveFromAnchorOrigin: discovery.resolveFromAnchorOrigin,
    },
  );
  return {
    name: 'did-discovery',
    resolve:
      discovery.didDiscovery || discovery.resolveFromAnchorOrigin
        ? (did, versions) => discovering.resolve(did, versions)
        : undefined,
    verifyLatest: discovery.verifyLatestFromAnchorOrigin
      ? (suffix, published, current) => discovering.verifyLatest(suffix, published, current)
      : undefined,
  };
}
