import { readFile } from 'node:fs/promises';
import {
  createHttpApp,
  StallBoundedProbe,
  startHttpServer,
  TokenRules,
  type HttpApp,
  type RunningHttpServer,
} from '../http/index.js';
import { createHttpClient, type HttpClient } from '../http-client/index.js';
import { configureLogging, getLogger, type Logger } from '../log/index.js';
import { createMetrics, type Metrics } from '../metrics/index.js';
import { createMessageQueue, type MessageQueue } from '../mq/index.js';
import { startTracing, tracedListener, tracedQueue } from '../tracing/index.js';
import type { StoreProvider } from '../storage/index.js';
import type { Feature } from './feature.js';
import { meteredStorage } from './metered-storage.js';
import { startMetricsListener } from './metrics-listener.js';
import { openStorage, STORE_STALL_TOLERANCE_MS } from './open-storage.js';
import type { ContextExtension, ServiceSettings } from './service-settings.js';
import { tokenRulesFor } from './token-settings.js';

/** What every feature of every service receives (a service's definition may add members of its own). */
export interface ServiceContext<Config> {
  readonly config: Config;
  readonly log: Logger;
  readonly metrics: Metrics;
  readonly storage: StoreProvider;
  /** The service's queue; reading it throws when the service declares none. */
  readonly mq: MessageQueue;
  readonly http: HttpApp;
  /**
   * The store's health probe behind `/healthcheck`'s dbStatus (one ping in flight, its result reused). Intake
   * asks its `stalledForMs()` to answer 503 with Retry-After instead of queueing work behind a stalled store.
   */
  readonly storeHealth: StallBoundedProbe;
  /** Outbound client; signs requests when the service's extension gives a signer. */
  readonly httpClient: HttpClient;
  /** The API listener; reading it before `start` throws. */
  readonly listener: { readonly url: string; readonly port: number; readonly secure: boolean };
  /** Releases the outbound client, the queue and the store (the kit calls it last on stop). */
  close(): Promise<void>;
}

/** The part of the context that exists when a definition's `extend` runs. */
export type BaseContext<Config> = Pick<ServiceContext<Config>, 'config' | 'log' | 'metrics' | 'storage' | 'mq'>;

/** Registers a feature (in start order) and hands it back, so a definition reads as a list. */
export type AddFeature = <F extends Feature>(feature: F) => F;

/**
 * A service: a name, how its config maps onto what the kit builds, what it adds to the context, and its
 * features in order. `Parts` is whatever the service exposes to its callers (tests, tools).
 */
export interface ServiceDefinition<Config, Extra extends object, Parts> {
  /** The logger's module name (`--log-level <name>=debug`). */
  readonly name: string;
  /** Prefix of the service's metric names (`node_`). */
  readonly metricsPrefix: string;
  settings(config: Config): ServiceSettings;
  extend?(base: BaseContext<Config>): Promise<ContextExtension<Extra>>;
  /** Creates the features in dependency order (each registering its routes and subscriptions) with `add`. */
  features(context: ServiceContext<Config> & Extra, add: AddFeature): Promise<Parts>;
  /** Called once every feature has started (the service's "started" log line). */
  started?(context: ServiceContext<Config> & Extra, parts: Parts): void;
}

export interface Service<Context, Parts> {
  readonly context: Context;
  readonly parts: Parts;
  /** The API listener's URL (after start). */
  readonly url: string;
  /** The separate metrics listener's URL, when the settings ask for one (after start). */
  readonly metricsUrl: string | undefined;
  /** Listens, then starts the features in order; health says 503 "Starting" until all have started. */
  start(): Promise<void>;
  /** Lets in-flight requests finish, stops the features in reverse, then closes client, queue and store. */
  stop(): Promise<void>;
  /** Called once, after start, when the service cannot go on in this process (its store needs a restart). */
  onFatal(listener: (reason: string) => void): void;
}

/** How often a started service checks that its store can still take writes without a restart. */
export const FATAL_CHECK_INTERVAL_MS = 1_000;

/**
 * Builds a service: logging, metrics, the store, the queue, the definition's own context, the HTTP app
 * (token rules, signature authentication) and the outbound client, then the features. A failure on the
 * way releases what was built before it and rethrows.
 */
export async function createService<Config, Extra extends object, Parts>(
  definition: ServiceDefinition<Config, Extra, Parts>,
  config: Config,
): Promise<Service<ServiceContext<Config> & Extra, Parts>> {
  const settings = definition.settings(config);
  if (settings.log)
    configureLogging({ levels: settings.log.levels, ...(settings.log.format ? { format: settings.log.format } : {}) });
  const log = getLogger(definition.name);
  const metrics = createMetrics({ prefix: definition.metricsPrefix });
  const releases: Array<() => Promise<void> | void> = [];
  const releaseAll = async (): Promise<void> => {
    for (const release of releases.splice(0).reverse()) {
      await Promise.resolve()
        .then(release)
        .catch((error: unknown) => log.error('releasing a resource failed', { err: error as Error }));
    }
  };

  let context: ServiceContext<Config> & Extra;
  const features: Feature[] = [];
  let parts: Parts;
  let listening: RunningHttpServer | undefined;
  let metricsListening: RunningHttpServer | undefined;
  try {
    const tracing = await startTracing({
      serviceName: definition.name,
      instance: settings.queue?.identity,
      otlpUrl: settings.tracing?.otlpUrl,
    });
    releases.push(() => tracing.shutdown());
    const storage = meteredStorage(await openStorage(settings.storage), metrics);
    // A store that needs a restart is left as it is: closing an embedded database after a failed commit
    // (lmdb-js on a full disk) can crash the process on its way out instead of exiting cleanly.
    releases.push(() => (storage.restartReason?.() === undefined ? storage.close() : undefined));
    const queue = settings.queue ? tracedQueue(await createMessageQueue(settings.queue)) : undefined;
    if (queue) releases.push(() => queue.close());
    const mq = (): MessageQueue => {
      if (!queue) throw new Error(`${definition.name} has no message queue`);
      return queue;
    };
    const base: BaseContext<Config> = {
      config,
      log,
      metrics,
      storage,
      get mq() {
        return mq();
      },
    };
    const extension: ContextExtension<Extra> = definition.extend
      ? await definition.extend(base)
      : { context: {} as Extra };

    const http = createHttpApp({
      metrics,
      bodyLimit: settings.bodyLimit,
      auth: {
        rules: tokenRulesFor(settings.tokens),
        ...(extension.signatureAuthenticator ? { signatureAuthenticator: extension.signatureAuthenticator } : {}),
      },
      ...(settings.health ? { health: settings.health } : {}),
      builtins: { ...settings.builtins, ...(settings.metricsListen ? { metrics: false } : {}) },
    });
    const signedPaths = settings.client?.signedPaths
      ? new TokenRules(tokenRulesFor(settings.client.signedPaths))
      : undefined;
    const httpClient = createHttpClient({
      metrics,
      ...(settings.client?.timeoutMs !== undefined ? { timeoutMs: settings.client.timeoutMs } : {}),
      ...(extension.requestSigner ? { signer: extension.requestSigner } : {}),
      ...(settings.client?.ca !== undefined && settings.client.ca.length > 0
        ? { tls: { ca: [...settings.client.ca] } }
        : {}),
      ...(signedPaths
        ? {
            shouldSign: ({ method, url }: { method: string; url: URL }) =>
              signedPaths.tokensFor(url.pathname, method).length > 0,
          }
        : {}),
    });
    releases.push(() => httpClient.close());

    // A stalled store (connection open, no answer) must neither hang the probe nor pile up pings behind it.
    const storeHealth = new StallBoundedProbe(() => storage.ping(), {
      unhealthyAfterMs: settings.storage.stallToleranceMs ?? STORE_STALL_TOLERANCE_MS,
      name: 'the store',
    });
    http.health.register('dbStatus', () => storeHealth.check());
    if (queue) http.health.register('mqStatus', () => (queue.isConnected() ? 'success' : 'not connected'));
    for (const [name, check] of Object.entries(extension.health ?? {})) http.health.register(name, check);
    if (settings.maintenance) http.health.setMaintenance(true);

    const kitContext: ServiceContext<Config> = {
      config,
      log,
      metrics,
      storage,
      get mq() {
        return mq();
      },
      http,
      storeHealth,
      httpClient,
      get listener() {
        if (!listening) throw new Error(`${definition.name} is not started`);
        return { url: listening.url, port: listening.port, secure: settings.tls !== undefined };
      },
      close: releaseAll,
    };
    context = Object.defineProperties(
      { ...extension.context },
      Object.getOwnPropertyDescriptors(kitContext),
    ) as ServiceContext<Config> & Extra;
    parts = await definition.features(context, (feature) => {
      features.push(feature);
      return feature;
    });
  } catch (error) {
    await stopFeatures(features, log).catch(() => undefined);
    await releaseAll();
    throw error;
  }

  let started = false;
  let stopping: Promise<void> | undefined;
  const fatalListeners: Array<(reason: string) => void> = [];
  let watchdog: NodeJS.Timeout | undefined;
  const watchStorage = (): void => {
    watchdog = setInterval(() => {
      const reason = context.storage.restartReason?.();
      if (reason === undefined) return;
      clearInterval(watchdog);
      log.error('the service cannot go on in this process', { reason });
      for (const listener of fatalListeners) listener(reason);
    }, FATAL_CHECK_INTERVAL_MS);
    watchdog.unref();
  };

  const stop = (): Promise<void> => {
    clearInterval(watchdog);
    stopping ??= (async () => {
      // Requests first (what they accepted is durable), then the features' work in flight, then resources.
      await listening?.close();
      await metricsListening?.close();
      try {
        await stopFeatures(features, log);
      } finally {
        await context.close();
      }
    })();
    return stopping;
  };

  return {
    context,
    parts,
    get url() {
      return context.listener.url;
    },
    get metricsUrl() {
      return metricsListening?.url;
    },
    async start() {
      if (started) throw new Error(`${definition.name} is already started`);
      started = true;
      // Features start after the listener (some call their own service over HTTP), so a probe sees 503
      // "Starting" until all have: it must not call the service ready while its start-up can still fail.
      context.http.health.setStarting(true);
      try {
        const tls = settings.tls
          ? { cert: await readFile(settings.tls.certFile), key: await readFile(settings.tls.keyFile) }
          : undefined;
        listening = await startHttpServer(tracedListener(context.http.listener), {
          host: settings.listen.host,
          port: settings.listen.port,
          ...(tls ? { tls } : {}),
        });
        if (settings.metricsListen) metricsListening = await startMetricsListener(metrics, settings.metricsListen);
        for (const feature of features) await feature.start?.();
        context.http.health.setStarting(false);
        watchStorage();
        definition.started?.(context, parts);
      } catch (error) {
        await stop().catch((stopError: unknown) =>
          log.error('stopping after a failed start failed', { err: stopError as Error }),
        );
        throw error;
      }
    },
    stop,
    onFatal(listener) {
      fatalListeners.push(listener);
    },
  };
}

/**
 * Stops features in reverse, each even when an earlier stop failed (the first failure is rethrown once
 * all have run). A feature's stop must therefore also work when its start never ran.
 */
async function stopFeatures(features: readonly Feature[], log: Logger): Promise<void> {
  let failure: unknown;
  for (const feature of [...features].reverse()) {
    try {
      await feature.stop?.();
    } catch (error) {
      log.error('stopping a feature failed', { feature: feature.name, err: error as Error });
      failure ??= error;
    }
  }
  if (failure !== undefined) throw failure;
}
