import type { HttpApp } from '@anchor/common/http';
import { createJsonLdContextsFeature, JsonLdContexts } from '@anchor/common/jsonld-contexts';
import { getLogger } from '@anchor/common/log';
import { createService, type Service, type ServiceDefinition } from '@anchor/common/service';
import { createApiFeature } from './api-feature.js';
import { createCoreFeature, type CoreFeature } from './core-feature.js';
import { VcsMetrics } from './metrics.js';
import type { VcsContext, VcsContextMembers } from './vcs-context.js';
import { vcsSettings, type VcsOptions } from './vcs-options.js';

export type { VcsOptions, VcsMode } from './vcs-options.js';

export interface VcsServer {
  start(): Promise<void>;
  stop(): Promise<void>;
  /** The API's URL once started (`http://127.0.0.1:<port>`). */
  readonly url: string;
  /** The external base URL (status list URLs are minted under it). */
  readonly baseUrl: string;
  /** The HTTP kit once started: its route table (`routeTableOf`) and what express routes, for tests and tools. */
  readonly http: HttpApp;
  /** Told when the service cannot go on in this process (its store needs a restart); `main` then exits 1. */
  onFatal(listener: (reason: string) => void): void;
}

interface VcsParts {
  core: CoreFeature;
}

const log = getLogger('vcs-server');

/** The vcs on the service kit: its working parts (keys, DIDs, profiles, status lists, log), then its API. */
const vcsService: ServiceDefinition<VcsOptions, VcsContextMembers, VcsParts> = {
  name: 'vcs-server',
  metricsPrefix: 'vcs_',
  settings: vcsSettings,
  extend: async ({ metrics }) => ({ context: { vcsMetrics: new VcsMetrics(metrics) } }),
  async features(ctx: VcsContext, add) {
    // First: nothing signs or verifies before the operator's contexts are in.
    const contexts = add(
      await createJsonLdContextsFeature(await JsonLdContexts.open(ctx.storage), {
        contextsFile: ctx.config.contextsFile,
      }),
    );
    const core = add(await createCoreFeature(ctx, contexts.contexts.documentLoader));
    add(createApiFeature(ctx, core, contexts.routes));
    return { core };
  },
  started(ctx, { core }) {
    const { config } = ctx;
    log.info('vcs started', {
      url: ctx.listener.url,
      baseUrl: core.baseUrl,
      mode: config.mode ?? 'combined',
      keys: core.keys.kind,
      dids: core.dids.method,
      log: core.log?.url,
      storage: config.storage?.type ?? 'lmdb',
    });
  },
};

/** The credential service. `start()` builds and starts it (see `vcsService`); `stop()` lets in-flight requests finish. */
export function createServer(options: VcsOptions = {}): VcsServer {
  let service: Service<VcsContext, VcsParts> | undefined;
  let starting = false;
  const fatalListeners: Array<(reason: string) => void> = [];
  const running = (what: string): Service<VcsContext, VcsParts> => {
    if (!service) throw new Error(`vcs is not started (no ${what} yet)`);
    return service;
  };
  return {
    async start() {
      if (starting) throw new Error('vcs is already started');
      starting = true;
      service = await createService(vcsService, options);
      for (const listener of fatalListeners) service.onFatal(listener);
      await service.start();
    },
    stop: async () => service?.stop(),
    get url() {
      return running('listener').url;
    },
    get baseUrl() {
      return running('base URL').parts.core.baseUrl;
    },
    get http() {
      return running('HTTP app').context.http;
    },
    onFatal(listener) {
      if (service) service.onFatal(listener);
      else fatalListeners.push(listener);
    },
  };
}
