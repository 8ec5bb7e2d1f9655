/**
 * HTTP signatures (draft-cavage) in Orb's wire format: `algorithm="Sign"`, signed headers
 * `(request-target) Date[ Digest]`, `Digest: SHA-256=<base64>`, keys served as `{id, owner, publicKeyPem}` with
 * the PEM block type naming the key type; and RFC 9421 HTTP Message Signatures beside them, verified always and
 * written when a signer is configured with `scheme: 'rfc9421'`. See the module files for the details of each part.
 */
export { createRequestSigner, SIGNATURE_SCHEMES, type RequestSignerOptions, type SignatureScheme } from './signer.js';
export { createSignatureAuthenticator, type SignatureVerifierOptions } from './verifier.js';
export { signatureMiddleware, type SignatureMiddlewareOptions } from './middleware.js';
export { axiosSigningInterceptor, createSignedFetch, type SignedFetch } from './outbound.js';
export { KeyResolver, type DidKeyResolver, type KeyResolverOptions, type ResolvedKey } from './key-resolver.js';
export { ACTIVITY_JSON_ACCEPT, createFetchJson, type FetchJson, type FetchJsonOptions } from './fetch-json.js';
export {
  addressRefusal,
  checkPeerUrl,
  classifyAddress,
  createGuardedFetch,
  createGuardedFetchJson,
  peerFetchPolicy,
  type AddressClass,
  type FetchPolicy,
  type GuardedFetch,
  type GuardedFetchOptions,
} from './guarded-fetch.js';
export { allowedPeerNetworksOption, parsePeerNetwork, peerNetworkList, type PeerNetwork } from './peer-networks.js';
export {
  actorPublicKeyIds,
  MAIN_KEY,
  parsePublicKeyDocument,
  serviceKeyId,
  servicePublicKeyDocument,
  KeyDocumentError,
  type PublicKeyDocument,
} from './key-document.js';
export {
  encodePublicKeyPem,
  parsePublicKeyPem,
  toVerificationKey,
  PublicKeyFormatError,
  type PemForm,
  type PublicKeySource,
} from './public-key-pem.js';
export {
  algorithmAcceptable,
  NodeVerificationKey,
  ORIGINAL_ALGORITHM,
  type HttpSigKeyType,
  type SigningKey,
  type VerificationKey,
} from './algorithms.js';
export { digestHeader, verifyDigestHeader, type DigestAlgorithm } from './digest.js';
export { checkCreatedFreshness, checkDateFreshness, httpDate } from './date.js';
export { contentDigestHeader, verifyContentDigest, type ContentDigestAlgorithm } from './content-digest.js';
export {
  formatMessageSignature,
  MESSAGE_SIGNATURE_ALGORITHMS,
  messageSignatureBase,
  parseMessageSignature,
  signatureInput,
  type MessageSignature,
  type MessageSignatureParameters,
  type SignedMessage,
} from './message-signature.js';
export { signMessage } from './message-signer.js';
export { TtlCache } from './ttl-cache.js';
export { formatSignatureHeader, parseSignatureHeader, type SignatureParameters } from './signature-header.js';
export { buildSigningString } from './signing-string.js';
