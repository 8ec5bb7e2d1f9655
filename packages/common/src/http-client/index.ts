/**
 * The shared outbound HTTP client for service-to-service calls: keep-alive pools, deadlines, JSON in and
 * out, bearer tokens per target, HTTP signatures over the exact bytes sent, and failures as AppErrors
 * classified for retry.
 */
export {
  createHttpClient,
  peerStatusOf,
  type HttpClient,
  type HttpClientOptions,
  type RequestOptions,
  type HttpResponse,
  type RetryPolicy,
} from './http-client.js';
export { readPeerHealth, type PeerHealth } from './peer-health.js';
export { readCaCertificates, tlsCaCertsOption, withBundledRoots } from './ca-certificates.js';
