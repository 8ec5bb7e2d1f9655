import type { ServiceContext } from '@anchor/common/service';
import type { VcsMetrics } from './metrics.js';
import type { VcsOptions } from './vcs-options.js';

/** What the vcs adds to the kit's context. */
export interface VcsContextMembers {
  readonly vcsMetrics: VcsMetrics;
}

/** Everything a vcs feature receives: the kit's context (config = the server's options) and the vcs metrics. */
export type VcsContext = ServiceContext<VcsOptions> & VcsContextMembers;
