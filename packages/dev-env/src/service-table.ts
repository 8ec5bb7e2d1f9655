import type { ServicePlace } from './federation-layout.js';

/** What every service of the federation is started with, whatever its kind. */
export interface LaunchSettings {
  /** Level spec passed to every service (`--log-level`). */
  logLevel: string;
  /** Line format of every service (`--log-format`): one format for all four, whatever their stdout is. */
  logFormat: 'text' | 'json';
}

/** When a started instance counts as up: the path polled on its URL and the status that means ready. */
export interface Readiness {
  path: string;
  ready(status: number): boolean;
}

/** One kind of service the federation runs. */
export interface ServiceEntry {
  /** The package whose bin runs (see `serviceBin`). */
  packageName: string;
  /** Its flags for one place, beyond `--host-url` and `--data-dir`, which every service takes. */
  flags(place: ServicePlace, settings: LaunchSettings): string[];
  readiness: Readiness;
}

const HEALTHY: Readiness = { path: '/healthcheck', ready: (status) => status === 200 };

/**
 * The services of the local federation by name. Each runs bare (embedded LMDB, in-process queues) with its
 * URL as its external address; a new service is one more entry here plus its place in the layout.
 */
export const SERVICES = {
  // Dev mode: the kms makes its own master key in its data directory (and says so in a warning).
  kms: {
    packageName: '@anchor/kms',
    flags: (place, { logLevel, logFormat }) => [
      '--base-url',
      place.url,
      '--dev-mode',
      '--log-level',
      logLevel,
      '--log-format',
      logFormat,
    ],
    readiness: HEALTHY,
  },
  'vct-log': {
    packageName: '@anchor/vct-log',
    flags: (place, { logLevel, logFormat }) => [
      '--base-url',
      place.url,
      '--log-level',
      logLevel,
      '--log-format',
      logFormat,
    ],
    readiness: HEALTHY,
  },
  node: {
    packageName: '@anchor/node',
    // Who may follow and invite is decided by accept lists, which the wiring fills with the other nodes.
    flags: (place, { logLevel, logFormat }) => [
      '--external-endpoint',
      place.url,
      '--follow-auth-policy',
      'accept-list',
      '--invite-witness-auth-policy',
      'accept-list',
      '--log-level',
      logLevel,
      '--log-format',
      logFormat,
    ],
    readiness: HEALTHY,
  },
  // Dev mode: did:key controllers and did:web over plain http on loopback; its node and log come as flags.
  vcs: {
    packageName: '@anchor/vcs',
    flags: (place, { logLevel, logFormat }) => [
      '--host-url-external',
      place.url,
      '--dev-mode',
      '--log-level',
      logLevel,
      '--log-format',
      logFormat,
    ],
    readiness: HEALTHY,
  },
} satisfies Record<string, ServiceEntry>;

export type ServiceName = keyof typeof SERVICES;
