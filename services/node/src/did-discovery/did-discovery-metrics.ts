import type { Metrics } from '@anchor/common/metrics';
import type { Histogram } from 'prom-client';

/** Orb's resolver metrics for discovery and the anchor origin (orb.md §8.1 `resolver`), `node_` prefixed. */
export interface DidDiscoveryMetrics {
  /** Discovering an unknown hinted DID, by result: found (anchors processed), none (nothing new), failed. */
  requestDiscoverySeconds: Histogram<'result'>;
  /** Asking the anchor origin about a DID and processing what it has that this node lacked. */
  resolveFromAnchorOriginSeconds: Histogram<string>;
  /** Reading an anchor origin's resolution endpoint from its `/.well-known/did-orb` (not cached yet). */
  getAnchorOriginEndpointSeconds: Histogram<string>;
}

export const DISCOVERY_RESULTS = ['found', 'none', 'failed'] as const;

export function createDidDiscoveryMetrics(metrics: Metrics): DidDiscoveryMetrics {
  const created: DidDiscoveryMetrics = {
    requestDiscoverySeconds: metrics.histogram({
      name: 'resolver_request_discovery_seconds',
      help: 'Seconds to discover a DID unknown here from its hint, by result',
      labelNames: ['result'],
    }),
    resolveFromAnchorOriginSeconds: metrics.histogram({
      name: 'resolver_resolve_document_from_anchor_origin_seconds',
      help: "Seconds to ask a DID's anchor origin for newer operations and process what this node lacked",
    }),
    getAnchorOriginEndpointSeconds: metrics.histogram({
      name: 'resolver_get_anchor_origin_endpoint_seconds',
      help: "Seconds to read an anchor origin's resolution endpoint from its /.well-known/did-orb",
    }),
  };
  // Series exist from the start, so a scrape of a fresh node shows the families.
  for (const result of DISCOVERY_RESULTS) created.requestDiscoverySeconds.zero({ result });
  return created;
}
