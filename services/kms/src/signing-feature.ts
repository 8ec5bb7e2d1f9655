import type { Feature } from '@anchor/common/service';
import { workerThreads } from '@anchor/common/workers';
import { createBatchSigner, type BatchSigner } from './crypto/batch-sign/index.js';
import type { KmsContext } from './kms-context.js';

export interface SigningFeature extends Feature {
  readonly batchSigner: BatchSigner;
}

/** The batch-signing worker threads (`/signbatch`): the signatures of a batch on the other cores. */
export async function createSigningFeature(ctx: KmsContext): Promise<SigningFeature> {
  const batchSigner = await createBatchSigner({ threads: workerThreads(ctx.config.signWorkers ?? 'auto') });
  return { name: 'signing', batchSigner, stop: () => batchSigner.close() };
}
