import type { DidDocument } from '@anchor/common/did';
import { servicePublicKeyDocument, type PublicKeyDocument } from '@anchor/common/httpsig';
import { CONTEXT_URLS } from '@anchor/common/jsonld';
import type { NodeKeys } from '../identity/node-keys.js';
import type { NodeUrls } from '../identity/node-urls.js';
import { ANCHORS_CONTEXT, AS_CONTEXT } from './vocabulary.js';

/** The collections a service actor lists, each at `<service endpoint>/<name>`. */
export const COLLECTIONS = [
  'inbox',
  'outbox',
  'followers',
  'following',
  'witnesses',
  'witnessing',
  'liked',
  'likes',
  'shares',
] as const;
export type CollectionName = (typeof COLLECTIONS)[number];

/** The id of this node's HTTP-signature key: `<service>/keys/<id>`, or `<did>#<id>` for a did:web service. */
export function httpKeyIdOf(urls: NodeUrls, keys: NodeKeys): string {
  return urls.serviceIsDid ? `${urls.serviceId}#${keys.httpKeyId}` : `${urls.serviceEndpoint}/keys/${keys.httpKeyId}`;
}

/**
 * The service actor (spec "Service actor", orb.md §3.1): `id` = the service id (URL or did:web), type
 * Service, the collection endpoints, and `publicKey` — the key document itself, or only the DID URL of the
 * key when the service id is a DID (its key is then in `<service>/did.json`).
 */
export function serviceActor(urls: NodeUrls, keys: NodeKeys): Record<string, unknown> {
  const endpoints = Object.fromEntries(COLLECTIONS.map((name) => [name, `${urls.serviceEndpoint}/${name}`]));
  return {
    '@context': [AS_CONTEXT, CONTEXT_URLS.securityV1, ANCHORS_CONTEXT],
    id: urls.serviceId,
    type: 'Service',
    publicKey: urls.serviceIsDid ? httpKeyIdOf(urls, keys) : publicKeyDocument(urls, keys),
    ...endpoints,
  };
}

/** `GET <service>/keys/<id>` (URL service ids only): `{id, owner, publicKeyPem}` in Orb's PEM form. */
export function publicKeyDocument(urls: NodeUrls, keys: NodeKeys): PublicKeyDocument {
  return servicePublicKeyDocument({
    serviceId: urls.serviceId,
    key: keys.httpSigner.publicKey,
    keyName: keys.httpKeyId,
  });
}

/**
 * `GET <service>/did.json` for a did:web service id (orb.md §1.2): the HTTP-signature key as an
 * Ed25519VerificationKey2020, and a LinkedDomains service naming the node's base URL, through which peers
 * find the service endpoint (host-meta).
 */
export function serviceDidDocument(urls: NodeUrls, keys: NodeKeys): DidDocument {
  const keyId = httpKeyIdOf(urls, keys);
  return {
    '@context': [CONTEXT_URLS.didV1, CONTEXT_URLS.ed25519Signature2020V1],
    id: urls.serviceId,
    verificationMethod: [
      {
        id: keyId,
        type: 'Ed25519VerificationKey2020',
        controller: urls.serviceId,
        publicKeyMultibase: keys.httpSigner.publicKey.publicKeyMultibase(),
      },
    ],
    authentication: [keyId],
    assertionMethod: [keyId],
    capabilityDelegation: [keyId],
    capabilityInvocation: [keyId],
    service: [{ id: `${urls.serviceId}#activity-pub`, type: 'LinkedDomains', serviceEndpoint: urls.externalEndpoint }],
  };
}
