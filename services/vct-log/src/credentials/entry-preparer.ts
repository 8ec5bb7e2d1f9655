import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { AppError, internal, unavailable } from '@anchor/common/errors';
import { getLogger } from '@anchor/common/log';
import type { LogSigner } from '../signing/log-signer.js';
import { prepareCredential, type PreparedCredential, type PrepareReply, type PrepareRequest, type UndefinedTermsPolicy, type WorkerSetup } from './entry-preparation.js';

const log = getLogger('vct-entry-workers');

/** Turns add-vc bodies into log entries (see `prepareCredential`): the CPU-heavy step of add-vc. */
export interface EntryPreparer {
  /** The AppErrors of `prepareCredential` for a body that is not an acceptable credential. */
  prepare(body: string | undefined, timestamp: number, allowedIssuers: readonly string[] | undefined): Promise<PreparedCredential>;
  /** Worker threads in use (0: entries are prepared on the calling thread). */
  readonly workers: number;
  close(): Promise<void>;
}

/**
 * 'auto' → one worker per core. The HTTP thread mostly waits (for workers, for fsyncs), so on two cores
 * two workers beside it kept both cores busy: about 2,000 add-vc/s against about 1,600 with one.
 */
export function workerCount(setting: number | 'auto'): number {
  return setting === 'auto' ? Math.max(1, availableParallelism()) : setting;
}

export interface EntryPreparerOptions {
  workers: number;
  allowUndefinedTerms: UndefinedTermsPolicy;
  signer: LogSigner;
  /** The signer's key as PKCS#8 PEM, for the workers. */
  signingKeyPem: string;
}

export async function createEntryPreparer(options: EntryPreparerOptions): Promise<EntryPreparer> {
  if (options.workers <= 0) {
    return {
      workers: 0,
      prepare: (body, timestamp, allowedIssuers) => prepareCredential(body, timestamp, allowedIssuers, options.allowUndefinedTerms, options.signer),
      close: async () => undefined,
    };
  }
  return WorkerPool.start(options.workers, { allowUndefinedTerms: options.allowUndefinedTerms, signingKeyPem: options.signingKeyPem });
}

interface Waiting {
  resolve(prepared: PreparedCredential): void;
  reject(error: unknown): void;
}

interface PooledWorker {
  worker: Worker;
  waiting: Map<number, Waiting>;
}

/**
 * Prepares entries on worker threads, so the parsing, JSON-LD and signing work of concurrent add-vc
 * requests runs beside the HTTP thread instead of blocking it. Each request goes to the worker with the fewest in flight; a worker
 * that dies fails its in-flight requests (500; the client may retry) and is replaced.
 */
class WorkerPool implements EntryPreparer {
  private readonly pool: PooledWorker[] = [];
  private nextId = 1;
  private closing = false;

  private constructor(
    readonly workers: number,
    private readonly setup: WorkerSetup,
  ) {}

  static async start(count: number, setup: WorkerSetup): Promise<WorkerPool> {
    const pool = new WorkerPool(count, setup);
    try {
      await Promise.all(Array.from({ length: count }, () => pool.spawn()));
    } catch (error) {
      await pool.close();
      throw error;
    }
    return pool;
  }

  prepare(body: string | undefined, timestamp: number, allowedIssuers: readonly string[] | undefined): Promise<PreparedCredential> {
    if (this.closing) return Promise.reject(unavailable('the entry workers are shutting down'));
    let target: PooledWorker | undefined;
    for (const candidate of this.pool) if (target === undefined || candidate.waiting.size < target.waiting.size) target = candidate;
    if (target === undefined) return Promise.reject(unavailable('no entry worker is running'));
    const id = this.nextId++;
    const chosen = target;
    return new Promise<PreparedCredential>((resolve, reject) => {
      chosen.waiting.set(id, { resolve, reject });
      chosen.worker.postMessage({ id, body, timestamp, allowedIssuers } satisfies PrepareRequest);
    });
  }

  async close(): Promise<void> {
    this.closing = true;
    await Promise.all(this.pool.map(({ worker }) => worker.terminate()));
  }

  private async spawn(): Promise<void> {
    const worker = new Worker(new URL('./entry-worker.js', import.meta.url), { workerData: this.setup });
    const pooled: PooledWorker = { worker, waiting: new Map() };
    worker.on('message', (reply: PrepareReply) => {
      const waiting = pooled.waiting.get(reply.id);
      if (!waiting) return;
      pooled.waiting.delete(reply.id);
      if ('prepared' in reply) waiting.resolve(reply.prepared);
      else waiting.reject(reply.error.code ? new AppError(reply.error.code, reply.error.message) : internal(`preparing the entry failed: ${reply.error.message}`));
    });
    const fail = (reason: string): void => {
      const index = this.pool.indexOf(pooled);
      if (index < 0) return;
      this.pool.splice(index, 1);
      for (const waiting of pooled.waiting.values()) waiting.reject(internal(`entry worker ${reason}`));
      pooled.waiting.clear();
      if (!this.closing) {
        log.error('an entry worker died; starting another', { reason });
        this.spawn().catch((error: unknown) => log.error('cannot start an entry worker', { err: error as Error }));
      }
    };
    await new Promise<void>((resolve, reject) => {
      worker.once('online', resolve);
      worker.once('error', reject);
    });
    worker.on('error', (error) => fail(`failed: ${error.message}`));
    worker.on('exit', (code) => fail(`exited with code ${code}`));
    this.pool.push(pooled);
  }
}
