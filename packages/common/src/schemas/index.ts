/**
 * JSON Schemas (2020-12, ajv) for the JSON request bodies that two or more services share, and the one way
 * to apply any schema, a service's own included:
 *
 *     const credential = validate(LOG_ADD_VC, body);   // typed, or throws one bad_request
 *     if (isValid(VERIFIABLE_CREDENTIAL, body)) { ... } // type guard
 *
 * A schema that only one service uses lives in that service. Sidetree operation requests are validated by
 * the Sidetree package itself.
 */
import { LOG_ADD_VC, VERIFIABLE_CREDENTIAL } from './credentials.js';
import { registerSchemas } from './validator.js';

export {
  type Schema,
  type ValidateOptions,
  defineSchema,
  firstProblem,
  isValid,
  precompileSchemas,
  registerSchemas,
  validate,
} from './validator.js';
export { type IssuedCredential, type VerifiableCredential, LOG_ADD_VC, VERIFIABLE_CREDENTIAL } from './credentials.js';

// Registered so that a service's own schemas can reference the credential by $id.
registerSchemas(VERIFIABLE_CREDENTIAL, LOG_ADD_VC);
