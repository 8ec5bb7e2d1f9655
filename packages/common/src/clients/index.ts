/**
 * Clients for services' administrator APIs, over HTTP only: what the local federation (`@anchor/dev-env`),
 * integration tests, benchmarks and command-line tools drive a running service with.
 */
export {
  NodeAdminClient,
  type AcceptListEntry,
  type AcceptListType,
  type AcceptListUpdate,
  type AdminActivity,
  type NodeAdminClientOptions,
  type NodeHealth,
  type ServiceCollection,
} from './node-admin-client.js';
