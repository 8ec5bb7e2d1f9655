/**
 * JSON Schemas (2020-12, ajv) for the JSON request bodies of the spec, and the one way to apply them:
 *
 *     const updates = validate(ACCEPT_LIST_UPDATE, req.body);   // typed, or throws one bad_request
 *     if (isValid(INBOX_ACTIVITY, body)) { ... }                 // type guard
 *
 * Sidetree operation requests are validated by the Sidetree package itself.
 */
import { LOG_ADD_VC, VERIFIABLE_CREDENTIAL } from './credentials.js';
import { ACCEPT_LIST_UPDATE, ACTIVITY, ALLOWED_ORIGINS_UPDATE, INBOX_ACTIVITY } from './node-requests.js';
import { registerSchemas } from './validator.js';
import { COMPOSE_AND_ISSUE_CREDENTIAL, ISSUE_CREDENTIAL, VERIFY_CREDENTIAL } from './vcs-requests.js';

export { type Schema, type ValidateOptions, defineSchema, firstProblem, isValid, precompileSchemas, registerSchemas, validate } from './validator.js';
export {
  type AcceptListType,
  type AcceptListUpdate,
  type Activity,
  type AllowedOriginsUpdate,
  ACCEPT_LIST_UPDATE,
  ACTIVITY,
  ALLOWED_ORIGINS_UPDATE,
  INBOX_ACTIVITY,
} from './node-requests.js';
export { type IssuedCredential, type VerifiableCredential, LOG_ADD_VC, VERIFIABLE_CREDENTIAL } from './credentials.js';
export {
  type ComposeAndIssueCredentialRequest,
  type IssueCredentialRequest,
  type VerifyCredentialRequest,
  COMPOSE_AND_ISSUE_CREDENTIAL,
  ISSUE_CREDENTIAL,
  VERIFY_CREDENTIAL,
} from './vcs-requests.js';

// The credential schema first: the credential-service schemas reference it by $id.
registerSchemas(
  VERIFIABLE_CREDENTIAL,
  LOG_ADD_VC,
  ACCEPT_LIST_UPDATE,
  ALLOWED_ORIGINS_UPDATE,
  ACTIVITY,
  INBOX_ACTIVITY,
  ISSUE_CREDENTIAL,
  COMPOSE_AND_ISSUE_CREDENTIAL,
  VERIFY_CREDENTIAL,
);
