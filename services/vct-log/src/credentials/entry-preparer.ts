import { ContextBroadcast, type JsonLdContexts } from '@anchor/common/jsonld-contexts';
import { WorkerPool } from '@anchor/common/workers';
import type { LogSigner } from '../signing/log-signer.js';
import {
  prepareCredential,
  type PreparedCredential,
  type PrepareTask,
  type UndefinedTermsPolicy,
  type WorkerSetup,
} from './entry-preparation.js';

/** Turns add-vc bodies into log entries (see `prepareCredential`): the CPU-heavy step of add-vc. */
export interface EntryPreparer {
  /** The AppErrors of `prepareCredential` for a body that is not an acceptable credential. */
  prepare(
    body: string | undefined,
    timestamp: number,
    allowedIssuers: readonly string[] | undefined,
  ): Promise<PreparedCredential>;
  /** Worker threads in use (0: entries are prepared on the calling thread). */
  readonly workers: number;
  close(): Promise<void>;
}

export interface EntryPreparerOptions {
  workers: number;
  allowUndefinedTerms: UndefinedTermsPolicy;
  signer: LogSigner;

  /** The service's JSON-LD contexts (bundled and operator ones). */
  contexts: JsonLdContexts;
  /**
   * The compiled worker module and its Node options; default `entry-worker.js` beside this module with the
   * process's options (tests from sources name the built worker, without the runner's source conditions).
   */
  worker?: { file: URL; execArgv: string[] };
}

export async function createEntryPreparer(options: EntryPreparerOptions): Promise<EntryPreparer> {
  if (options.workers <= 0) {
    return {
      workers: 0,
      prepare: (body, timestamp, allowedIssuers) =>
        prepareCredential(
          body,
          timestamp,
          allowedIssuers,
          options.allowUndefinedTerms,
          options.signer,
          options.contexts.documentLoader,
        ),
      close: async () => undefined,
    };
  }
  // The parsing, JSON-LD and signing work of concurrent add-vc requests runs beside the HTTP thread instead
  // of blocking it. A failed task is the AppError prepareCredential threw; a dead worker's tasks are 500s
  // (the client may retry).
  const broadcast = new ContextBroadcast(options.contexts);
  const pool = new WorkerPool<PrepareTask, PreparedCredential>({
    file: options.worker?.file ?? new URL('./entry-worker.js', import.meta.url),
    ...(options.worker ? { execArgv: options.worker.execArgv } : {}),
    size: options.workers,
    taskName: 'preparing the entry',
    workerData: {
      allowUndefinedTerms: options.allowUndefinedTerms,
      signing: options.signer.setup,
      contexts: broadcast.setup(),
    } satisfies WorkerSetup,
    logModule: 'vct-entry-workers',
  });
  try {
    await pool.ready();
  } catch (error) {
    await pool.close();
    broadcast.close();
    throw error;
  }
  return {
    workers: pool.size,
    prepare: (body, timestamp, allowedIssuers) =>
      pool.run({ body, timestamp, allowedIssuers, contextsVersion: broadcast.version }),
    close: async () => {
      await pool.close();
      broadcast.close();
    },
  };
}
