/**
 * JSON-LD without the network: bundled contexts, an offline document loader, URDNA2015 canonicalisation in
 * safe mode, and Data Integrity proofs (Ed25519Signature2020, Ed25519Signature2018, JsonWebSignature2020)
 * that interoperate with the Digital Bazaar suites and the original.
 */
export {
  CONTEXT_URLS,
  type ContextDocument,
  type ContextName,
  bundledContext,
  bundledContextUrls,
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
  type DataIntegrityProof,
  type ProofPurpose,
  type ProofType,
  type SecuredDocument,
  PROOF_PURPOSES,
  PROOF_TYPES,
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
export {
  type ProofOptions,
  attachProof,
  createProof,
  signDocument,
} from './sign.js';
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
/** Whether jsonld.js runs with the shared, cached active contexts (false only after an unexpected upgrade). */
export { activeContextSharing } from './jsonld-engine.js';
