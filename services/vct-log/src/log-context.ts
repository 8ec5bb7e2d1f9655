import type { ServiceContext } from '@anchor/common/service';
import type { VctMetrics } from './metrics.js';
import type { VctLogOptions } from './log-options.js';

/** What the log adds to the kit's context. */
export interface VctLogContextMembers {
  readonly vctMetrics: VctMetrics;
}

/** Everything a log feature receives: the kit's context (config = the server's options) and the log's metrics. */
export type VctLogContext = ServiceContext<VctLogOptions> & VctLogContextMembers;
