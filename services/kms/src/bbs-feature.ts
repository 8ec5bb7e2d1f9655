import type { Feature } from '@anchor/common/service';
import { workerThreads } from '@anchor/common/workers';
import { createBbs, type BbsOperations } from './crypto/bbs/index.js';
import type { KmsContext } from './kms-context.js';

export interface BbsFeature extends Feature {
  readonly bbs: BbsOperations;
}

/** The BBS worker threads: signatures and proofs are milliseconds of CPU each, kept off the HTTP thread. */
export async function createBbsFeature(ctx: KmsContext): Promise<BbsFeature> {
  const bbs = await createBbs({ threads: workerThreads(ctx.config.bbsWorkers ?? 'auto') });
  return { name: 'bbs', bbs, stop: () => bbs.close() };
}
