import { opt } from '@anchor/common/config';

/** The node's `discovery` section: how other nodes and clients find this node's DIDs, and this node theirs. */
export const discoveryOptions = {
  discoveryDomain: opt.string({
    flag: 'discovery-domain',
    help: 'Domain added as the https-hinted equivalent id (did:node:https:<domain>:<hash>:<suffix>) of processed operations',
  }),
  discoveryDomains: opt.list({
    flag: 'discovery-domains',
    env: ['DISCOVERY_DOMAINS'],
    validateItem: (item: string) =>
      isHttpOrigin(item) ? undefined : 'must be an http(s) origin such as https://shared.example.com',
    help: 'Base URLs of other nodes serving the same DIDs, announced as WebFinger and host-meta alternates (e.g. https://shared.example.com)',
  }),
  didDiscovery: opt.bool({
    flag: 'enable-did-discovery',
    env: ['ANCHOR_DID_DISCOVERY_ENABLED', 'DID_DISCOVERY_ENABLED'],
    help: 'Resolve a DID unknown here that carries a hashlink or https hint: its anchors are fetched from the hinted node, checked and processed as the observer does',
  }),
  resolveFromAnchorOrigin: opt.bool({
    flag: 'resolve-from-anchor-origin',
    env: ['RESOLVE_FROM_ANCHOR_ORIGIN'],
    help: 'Before answering for a published DID anchored elsewhere, ask its anchor origin for its latest anchor and process any this node lacks',
  }),
  verifyLatestFromAnchorOrigin: opt.bool({
    flag: 'verify-latest-from-anchor-origin',
    env: ['VERIFY_LATEST_FROM_ANCHOR_ORIGIN'],
    help: 'Refuse an update, recover or deactivate of a DID anchored elsewhere while its anchor origin has operations this node has not seen (re-submit later)',
  }),
  discoveryMinimumResolvers: opt.int({
    flag: 'discovery-minimum-resolvers',
    env: ['DISCOVERY_MINIMUM_RESOLVERS'],
    default: 1,
    min: 1,
    help: 'How many resolvers a client should ask before trusting a DID document (WebFinger min-resolvers)',
  }),
};

/** `scheme://host[:port]` of http or https, nothing more (alternate links append their own paths). */
function isHttpOrigin(text: string): boolean {
  try {
    const url = new URL(text);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.origin === text.replace(/\/$/, '');
  } catch {
    return false;
  }
}
