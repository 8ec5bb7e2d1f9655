import type { HttpApp } from '../http/index.js';
import { createService, type Service, type ServiceContext, type ServiceDefinition } from './service.js';

/** What a service's `createServer(options)` returns before anything is built: `start()` builds and starts it. */
export interface ServiceHandle {
  start(): Promise<void>;
  stop(): Promise<void>;
  /** The API's URL once started (`http://127.0.0.1:<port>`). */
  readonly url: string;
  /** The separate metrics listener's URL, when `metricsHost` is set. */
  readonly metricsUrl: string | undefined;
  /** The HTTP kit once started: its route table (`routeTableOf`) and what express routes, for tests and tools. */
  readonly http: HttpApp;
  /** Told when the service cannot go on in this process (its store needs a restart); `main` then exits 1. */
  onFatal(listener: (reason: string) => void): void;
}

/** The started service, or an error saying what is not there yet (`what`: "base URL", "key", ...). */
export type Running<Config, Extra extends object, Parts> = (
  what: string,
) => Service<ServiceContext<Config> & Extra, Parts>;

/**
 * The handle of a service built on `start()`, once: `label` names it in errors ("kms is not started (no
 * listener yet)"), and `more` adds the service's own members, read from the running service through `running`
 * (getters stay getters).
 */
export function serviceHandle<Config, Extra extends object, Parts, More extends object>(
  label: string,
  definition: ServiceDefinition<Config, Extra, Parts>,
  config: Config,
  more: (running: Running<Config, Extra, Parts>) => More,
): ServiceHandle & More {
  let service: Service<ServiceContext<Config> & Extra, Parts> | undefined;
  let starting = false;
  const fatalListeners: Array<(reason: string) => void> = [];
  const running: Running<Config, Extra, Parts> = (what) => {
    if (!service) throw new Error(`${label} is not started (no ${what} yet)`);
    return service;
  };
  const handle: ServiceHandle = {
    async start() {
      if (starting) throw new Error(`${label} is already started`);
      starting = true;
      service = await createService(definition, config);
      for (const listener of fatalListeners) service.onFatal(listener);
      await service.start();
    },
    stop: async () => service?.stop(),
    get url() {
      return running('listener').url;
    },
    get metricsUrl() {
      return service?.metricsUrl;
    },
    get http() {
      return running('HTTP app').context.http;
    },
    onFatal(listener) {
      if (service) service.onFatal(listener);
      else fatalListeners.push(listener);
    },
  };
  return Object.defineProperties(handle, Object.getOwnPropertyDescriptors(more(running))) as ServiceHandle & More;
}
