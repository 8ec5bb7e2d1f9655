/**
 * For tests of this and other packages: in-process nodes on free loopback ports, a small client of the
 * Sidetree REST API, and a DID driven through its whole lifecycle.
 */
export {
  startTestNode,
  dropClientConnections,
  postOperation,
  resolveDid,
  metadataOf,
  waitPublished,
  TestDid,
  type TestNode,
  type HttpAnswer,
} from './test-node.js';
export { checkResolution, createAll, published, publishedTwice, type Published } from './replica-publication.js';
