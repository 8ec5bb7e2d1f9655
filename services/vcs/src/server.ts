import { createJsonLdContextsFeature, JsonLdContexts } from '@anchor/common/jsonld-contexts';
import { getLogger } from '@anchor/common/log';
import { serviceHandle, type ServiceDefinition, type ServiceHandle } from '@anchor/common/service';
import { createApiFeature } from './api-feature.js';
import { createCoreFeature, type CoreFeature } from './core-feature.js';
import { VcsMetrics } from './metrics.js';
import type { VcsContext, VcsContextMembers } from './vcs-context.js';
import { vcsSettings, type VcsOptions } from './vcs-options.js';

export type { VcsOptions, VcsMode } from './vcs-options.js';

export interface VcsServer extends ServiceHandle {
  /** The external base URL (status list URLs are minted under it). */
  readonly baseUrl: string;
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
  return serviceHandle('vcs', vcsService, options, (running) => ({
    get baseUrl() {
      return running('base URL').parts.core.baseUrl;
    },
  }));
}
