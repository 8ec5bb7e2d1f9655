import { didWebResolver, type DidDocument, type DidMethodResolver } from '@anchor/common/did';
import { CONTEXT_URLS } from '@anchor/common/jsonld';
import type { NodeKeys } from './node-keys.js';
import type { NodeUrls } from './node-urls.js';

/**
 * The node's domain DID document, `did:web:<host>` served at `/.well-known/did.json` (orb.md §1.2): the
 * anchor-credential key as an Ed25519VerificationKey2020 under every proof relationship, so anyone can
 * check the proofs the node puts on anchor credentials (`verificationMethod` = `did:web:<host>#<vcKeyId>`).
 */
export function domainDidDocument(urls: NodeUrls, keys: NodeKeys): DidDocument {
  const id = urls.domainDid;
  const keyId = vcVerificationMethod(urls, keys);
  return {
    '@context': [CONTEXT_URLS.didV1, CONTEXT_URLS.ed25519Signature2020V1],
    id,
    verificationMethod: [
      {
        id: keyId,
        type: 'Ed25519VerificationKey2020',
        controller: id,
        publicKeyMultibase: keys.vcSigner.publicKey.publicKeyMultibase(),
      },
    ],
    authentication: [keyId],
    assertionMethod: [keyId],
    capabilityDelegation: [keyId],
    capabilityInvocation: [keyId],
  };
}

/** The DID URL of the anchor-credential key: what proofs name as their verificationMethod. */
export function vcVerificationMethod(urls: NodeUrls, keys: NodeKeys): string {
  return `${urls.domainDid}#${keys.vcKeyId}`;
}

/**
 * did:web resolution that answers this node's own domain DID from memory (no HTTP round trip to itself,
 * and no dependency on its own listener being up) and every other did:web over the network.
 */
export function localFirstDidWebResolver(
  own: DidDocument,
  remote: DidMethodResolver = didWebResolver(),
): DidMethodResolver {
  return {
    resolve: async (did, parsed) => (did === own.id ? { didDocument: own } : remote.resolve(did, parsed)),
  };
}
