/**
 * WebFinger (RFC 7033): JRD types, the `https://trustbloc.dev/ns/...` property names the federation uses
 * (ledger type, public key, min-resolvers, anchor origin), JRD builders for servers, and a small cached
 * client (`lookupWebFinger`) that finds, say, a transparency log's ledger type and public key.
 */
export {
  JRD_MEDIA_TYPE,
  JRD_PROPERTIES,
  LEDGER_TYPE_VCT_V1,
  TRUSTBLOC_NS,
  WEBFINGER_PATH,
  buildJrd,
  findJrdLink,
  jrdProperty,
  ledgerTypeOf,
  parseJrd,
  publicKeyOf,
  transparencyLogJrd,
  webFingerUrl,
  type Jrd,
  type JrdInput,
  type JrdLink,
} from './jrd.js';
export { createWebFingerClient, lookupWebFinger, type WebFingerClient, type WebFingerClientOptions } from './client.js';
