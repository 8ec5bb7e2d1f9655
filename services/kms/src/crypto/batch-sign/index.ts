import { WorkerPool } from '@anchor/common/workers';
import { KmsCryptoError } from '../errors.js';
import type { KeyMaterial } from '../key-material.js';
import { runSignTask, type SignOutcome, type SignTask } from './sign-task.js';

/**
 * Signing many messages with one key, spread over worker threads: the HTTP thread of the kms is one core, and
 * a batch of Ed25519 signs is CPU the other cores can do while it answers requests. Every signature is the one
 * `sign` makes (signatures.ts); only where it runs differs.
 */
export interface BatchSigner {
  /** The messages' signatures, in order; the crypto core's refusal (e.g. a key that does not sign) as a KmsCryptoError. */
  signAll(keyName: string, material: KeyMaterial, messages: Uint8Array[]): Promise<Uint8Array[]>;
  /** Worker threads in use (0: the calling thread). */
  readonly threads: number;
  close(): Promise<void>;
}

/** Fewer messages than this per thread are not worth a thread hop (a message each way costs a few signatures). */
const MIN_PER_THREAD = 8;

export async function createBatchSigner(options: { threads: number }): Promise<BatchSigner> {
  const threads = Math.max(0, options.threads);
  let pool: WorkerPool<SignTask, SignOutcome> | undefined;
  if (threads > 0) {
    pool = new WorkerPool<SignTask, SignOutcome>({
      file: new URL('./sign-worker.js', import.meta.url),
      size: threads,
      taskName: 'the batch signature',
      logModule: 'kms-sign-workers',
    });
    try {
      await pool.ready();
    } catch (error) {
      await pool.close();
      throw error;
    }
  }
  const signed = (outcome: SignOutcome): Uint8Array[] => {
    if ('error' in outcome) throw new KmsCryptoError(outcome.error.code, outcome.error.message);
    return outcome.signatures;
  };
  return {
    threads,
    async signAll(keyName, material, messages) {
      const shares = pool ? Math.min(threads, Math.floor(messages.length / MIN_PER_THREAD)) : 0;
      if (!pool || shares <= 1) return signed(runSignTask({ keyName, material, messages }));
      const size = Math.ceil(messages.length / shares);
      const parts = await Promise.all(
        Array.from({ length: shares }, (_, i) =>
          pool.run({ keyName, material, messages: messages.slice(i * size, (i + 1) * size) }),
        ),
      );
      return parts.flatMap(signed);
    },
    close: async () => pool?.close(),
  };
}
