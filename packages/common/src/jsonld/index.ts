/**
 * JSON-LD without the network: bundled contexts, an offline document loader, URDNA2015 canonicalisation in
 * safe mode, and Data Integrity proofs signed through the common `Signer`: Ed25519Signature2020,
 * Ed25519Signature2018 and JsonWebSignature2020 (interoperating with the Digital Bazaar suites and the
 * original), and the W3C cryptosuites eddsa-rdfc-2022, eddsa-jcs-2022, ecdsa-rdfc-2019 and ecdsa-jcs-2019.
 */
export {
  CONTEXT_URLS,
  type ContextDocument,
  type ContextName,
  bundledContext,
  bundledContextUrls,
  contextLookupKey,
} from './contexts.js';
export {
  type ContextSource,
  type DocumentLoader,
  type DocumentLoaderOptions,
  type RemoteDocument,
  bundledDocumentLoader,
  createDocumentLoader,
} from './document-loader.js';
export {
  type CanonicalizeOptions,
  type CanonizeDatasetOptions,
  RDF_CANON_MAX_DEEP_ITERATIONS,
  RDF_CANON_WORK_BUDGET,
  canonicalize,
  canonizeDataset,
  defaultMaxDeepIterations,
} from './canonicalize.js';
export { ANCHOR_CREDENTIAL_UNDEFINED_TERMS } from './anchor-credential.js';
export {
  type Cryptosuite,
  type DataIntegrityProof,
  type ProofPurpose,
  type ProofType,
  type SecuredDocument,
  CRYPTOSUITES,
  PROOF_PURPOSES,
  PROOF_TYPES,
  isCryptosuite,
  isProofPurpose,
  isProofType,
} from './proof-types.js';
export {
  type ControllerDocument,
  type ResolvedVerificationMethod,
  type VerificationMethodResolver,
  controllerDocumentResolver,
  verificationMethodsOf,
} from './verification-method.js';
export { type ProofOptions, attachProof, createProof, signDocument } from './sign.js';
export {
  type DocumentVerification,
  type ProofCheck,
  type ProofVerification,
  type VerifyOptions,
  assertDocumentVerified,
  verifyDocument,
} from './verify.js';
export { type ProofCanonicalizeOptions, documentWithoutProofs } from './proof-data.js';
export { formatDateTimeStamp, isDateTimeStamp } from './date-time.js';
/** Whether jsonld.js runs with the shared, cached active contexts and dictionary node maps (false only after an unexpected upgrade). */
export { activeContextSharing, dictionaryNodeMaps } from './jsonld-engine.js';
