/**
 * The local federation: an admin client for one node over its HTTP API, and the launcher that runs a
 * vct-log and several nodes on loopback, wired to follow and witness each other (`npm start`).
 */
export { NodeAdminClient, type AdminActivity, type NodeAdminClientOptions, type NodeHealth, type ServiceCollection } from './admin-client.js';
export { startLocalFederation, type LocalFederation, type LocalFederationOptions } from './local-federation.js';
export { wireFederation, type WiringOptions } from './federation-wiring.js';
export { createDemoDid, resolutionUrl, waitUntilPublished, type DemoDid, type PublishedView } from './demo-did.js';
export { federationConfigSpec, demoConfigSpec, runFederationCommand, runDemoCommand } from './federation-command.js';
