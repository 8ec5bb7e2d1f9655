import type { ServiceContext } from '@anchor/common/service';
import type { KmsOptions } from './kms-options.js';
import type { KmsMetrics } from './metrics.js';

/** What the kms adds to the kit's context. */
export interface KmsContextMembers {
  readonly kmsMetrics: KmsMetrics;
}

/** Everything a kms feature receives: the kit's context (config = the server's options) and the kms's metrics. */
export type KmsContext = ServiceContext<KmsOptions> & KmsContextMembers;
