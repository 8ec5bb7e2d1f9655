/**
 * For tests of this and other packages: acting as a client of the log (anchor credentials, the client-side
 * leaf hash, signature checks) and a small HTTP helper.
 */
export {
  CREDENTIALS_V1,
  ACTIVITY_ANCHORS_V1,
  anchorCredential,
  nquadsOf,
  leafHashFor,
  addVcSignatureVerifies,
  sthSignatureVerifies,
  call,
  type Reply,
} from './log-test-client.js';
