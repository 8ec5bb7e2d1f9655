import { buildJrd, JRD_MEDIA_TYPE, WEBFINGER_PATH, type Jrd } from '@anchor/common/webfinger';
import type { NodeUrls } from '../identity/node-urls.js';

/** Link relations and media types of the discovery documents (as Orb writes them). */
export const LINK = Object.freeze({
  self: 'self',
  alternate: 'alternate',
  via: 'via',
  service: 'service',
  vct: 'vct',
});

export const MEDIA = Object.freeze({
  jrd: JRD_MEDIA_TYPE,
  activity: 'application/activity+json',
  ldJson: 'application/ld+json',
  didLdJson: 'application/did+ld+json',
});

export const NODEINFO_SCHEMA = Object.freeze({
  '2.0': 'http://nodeinfo.diaspora.software/ns/schema/2.0',
  '2.1': 'http://nodeinfo.diaspora.software/ns/schema/2.1',
});

export interface DidOrbDocument {
  resolutionEndpoint: string;
  operationEndpoint: string;
}

/** `/.well-known/did-orb`: where this node resolves DIDs and accepts operations (the path keeps Orb's name). */
export function didOrbDocument(urls: NodeUrls): DidOrbDocument {
  return { resolutionEndpoint: urls.identifiersEndpoint, operationEndpoint: urls.operationsEndpoint };
}

const webFingerTemplate = (base: string): string => `${base}${WEBFINGER_PATH}?resource={uri}`;

/**
 * `/.well-known/host-meta(.json)`: how a peer finds this node's WebFinger and its ActivityPub service (every
 * peer reads it before talking to a host), plus the same two links for each discovery domain as alternates.
 * The alternates' service is this node's service path.
 */
export function hostMetaDocument(urls: NodeUrls, discoveryDomains: readonly string[]): Jrd {
  return buildJrd({
    links: [
      { rel: LINK.self, type: MEDIA.jrd, template: webFingerTemplate(urls.externalEndpoint) },
      { rel: LINK.self, type: MEDIA.activity, href: urls.serviceEndpoint },
      ...discoveryDomains.flatMap((domain) => [
        { rel: LINK.alternate, type: MEDIA.jrd, template: webFingerTemplate(domain) },
        { rel: LINK.alternate, type: MEDIA.activity, href: `${domain}${urls.servicePath}` },
      ]),
    ],
  });
}

/** `/.well-known/nodeinfo`: the NodeInfo documents this node serves, by schema. */
export function nodeInfoLinks(urls: NodeUrls): { links: Array<{ rel: string; href: string }> } {
  return {
    links: [
      { rel: NODEINFO_SCHEMA['2.0'], href: `${urls.externalEndpoint}/nodeinfo/2.0` },
      { rel: NODEINFO_SCHEMA['2.1'], href: `${urls.externalEndpoint}/nodeinfo/2.1` },
    ],
  };
}
