/**
 * DIDs: DID and DID URL syntax, DID documents and their verification methods, did:key and did:web, and a
 * registry of method resolvers that turns a DID URL into a key.
 */
export { type ParsedDid, type ParsedDidUrl, buildDidUrl, isDid, isDidUrl, parseDid, parseDidUrl } from './syntax.js';
export {
  type DidDocument,
  type DidResolutionResult,
  type Service,
  type VerificationMethod,
  type VerificationRelationship,
  VERIFICATION_RELATIONSHIPS,
} from './document.js';
export {
  type FindOptions,
  absoluteId,
  findService,
  findVerificationMethod,
  keyPairFromVerificationMethod,
  verificationMethodsFor,
} from './verification-method.js';
export { type DidKeyFormat, didKeyFromKeyPair, keyPairFromDidKey, resolveDidKey } from './did-key.js';
export {
  type DidWebHttpPolicy,
  type DidWebOptions,
  type DidWebResolveOptions,
  type FetchLike,
  didWebToUrl,
  resolveDidWeb,
  urlToDidWeb,
} from './did-web.js';
export {
  type ServiceEndpoint,
  checkDidWebHost,
  didWebFetch,
  guardedDidWebFetch,
  serviceDidWebOptions,
} from './did-web-fetch.js';
export {
  type DidMethodResolver,
  type ResolvedVerificationMethod,
  DidResolverRegistry,
  createDidResolver,
  didKeyResolver,
  didWebResolver,
} from './resolver.js';
export { didNodeOverHttp, fetchDidResolution } from './resolution-over-http.js';
