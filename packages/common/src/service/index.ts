/**
 * The service kit: one lifecycle for every service. A service is a config spec, a definition (what the kit
 * builds from the config, what the service adds to the context) and an ordered list of features;
 * `createService` builds it, `runService` is its `main.ts`.
 */
export type { Feature } from './feature.js';
export {
  createService,
  FATAL_CHECK_INTERVAL_MS,
  type AddFeature,
  type BaseContext,
  type Service,
  type ServiceContext,
  type ServiceDefinition,
} from './service.js';
export type { ContextExtension, ServiceSettings } from './service-settings.js';
export { openStorage, STORE_STALL_TOLERANCE_MS, type StorageSettings } from './open-storage.js';
export { storageSettingsOf, type StorageOptions } from './storage-options.js';
export { serviceOptionsOf, serviceSettingsOf, tlsSettingsOf, type ServiceOptions } from './service-options.js';
export { serviceHandle, type Running, type ServiceHandle } from './service-handle.js';
export { tokenRulesFor, type TokenSettings } from './token-settings.js';
export { startMetricsListener } from './metrics-listener.js';
export { runService, type Runnable, type RunServiceOptions } from './run-service.js';
