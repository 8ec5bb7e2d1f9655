/**
 * The local federation: a vct-log and several nodes on loopback, each started as its package's bin and
 * wired to follow and witness each other through their HTTP APIs (`npm start`, `npm run demo`).
 */
export { startLocalFederation, type LocalFederation, type LocalFederationOptions } from './local-federation.js';
export { wireFederation, type WiringOptions } from './federation-wiring.js';
export { planFederation, type FederationLayout, type ServicePlace } from './federation-layout.js';
export { SERVICES, type ServiceEntry, type ServiceName, type LaunchSettings, type Readiness } from './service-table.js';
export { serviceBin } from './service-bin.js';
export { createDemoDid, resolutionUrl, waitUntilPublished, type DemoDid, type PublishedView } from './demo-did.js';
export { kmsInitSpec, initKeystores, runKmsInit, type KmsInitConfig } from './kms-init.js';
export { federationInitSpec, initFederation, runFederationInit, type FederationInitConfig } from './federation-init.js';
export { federationConfigSpec, demoConfigSpec, runFederationCommand, runDemoCommand } from './federation-command.js';
