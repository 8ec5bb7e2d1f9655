/**
 * JSON-LD contexts as operator data: the contexts an operator adds to a service (`--contexts-file`, the
 * `/ld/context` administrator routes), kept in the service's store and served by one document loader to
 * every JSON-LD user of the service, worker threads included; never fetched from the network.
 */
export { CONTEXTS_STORE, JsonLdContexts, type ContextSnapshot } from './context-store.js';
export {
  ContextBroadcast,
  WORKER_CONTEXTS_WAIT_MS,
  WorkerContexts,
  type WorkerContextsSetup,
} from './context-broadcast.js';
export {
  CONTEXTS_REFRESH_INTERVAL_MS,
  contextsFileOption,
  createJsonLdContextsFeature,
  jsonLdContextRoutes,
  readContextsFile,
  type JsonLdContextsFeature,
  type JsonLdContextsFeatureOptions,
} from './contexts-feature.js';
export { MAX_CONTEXT_URL_BYTES, parseOperatorContexts, type OperatorContext } from './operator-context.js';
