import { Worker } from 'node:worker_threads';
import { internal, unavailable } from '../errors/index.js';
import { getLogger, type Logger } from '../log/index.js';
import { errorOf, type ReplyMessage, type TaskMessage } from './messages.js';

export interface WorkerPoolOptions {
  /** The worker's compiled module; it calls `serveTasks`. */
  file: URL | string;
  /** How many threads (at least 1). */
  size: number;
  /** What one task does, for errors and logs: `<taskName> failed: ...`. */
  taskName: string;
  /** Given to every thread as `workerData` (structured-cloned). */
  workerData?: unknown;
  /** Idle threads do not keep the process alive (default: they do). */
  unref?: boolean;
  /** The log module of the pool's messages (default `workers`). */
  logModule?: string;
  /** Node options of the threads (default the process's; a test runner's own conditions would load sources). */
  execArgv?: string[];
}

interface Waiting<Result> {
  resolve(result: Result): void;
  reject(error: unknown): void;
}

interface Thread<Result> {
  worker: Worker;
  inFlight: Map<number, Waiting<Result>>;
  /** Settles when the thread's module has loaded and called `serveTasks` (rejects with its load error). */
  loaded: Promise<void>;
  wasLoaded: boolean;
}

/**
 * A fixed number of worker threads running one module, for CPU-heavy work that would otherwise stall the
 * event loop. Threads start on `ready()` or on the first task; each task goes to the thread with the fewest
 * in flight. A thread that dies fails its in-flight tasks with a 500 naming the task and is replaced.
 */
export class WorkerPool<Task, Result> {
  readonly size: number;
  private readonly threads: Array<Thread<Result>> = [];
  private readonly log: Logger;
  private nextId = 1;
  private closed = false;

  constructor(private readonly options: WorkerPoolOptions) {
    if (!Number.isInteger(options.size) || options.size < 1)
      throw new Error(`a worker pool needs a whole number of threads, at least 1 (got ${options.size})`);
    this.size = options.size;
    this.log = getLogger(options.logModule ?? 'workers');
  }

  /** Starts the threads not running and waits until every one has loaded; rejects with a thread's load error. */
  async ready(): Promise<void> {
    if (this.closed) throw this.closedError();
    this.fill();
    await Promise.all(this.threads.map((thread) => thread.loaded));
  }

  run(task: Task): Promise<Result> {
    if (this.closed) return Promise.reject(this.closedError());
    this.fill();
    let target = this.threads[0] as Thread<Result>;
    for (const thread of this.threads) if (thread.inFlight.size < target.inFlight.size) target = thread;
    const id = this.nextId++;
    return new Promise<Result>((resolve, reject) => {
      target.inFlight.set(id, { resolve, reject });
      target.worker.postMessage({ id, task } satisfies TaskMessage<Task>);
    });
  }

  /** Terminates every thread; tasks still in flight fail. */
  async close(): Promise<void> {
    this.closed = true;
    await Promise.all(this.threads.map((thread) => thread.worker.terminate()));
  }

  private closedError(): Error {
    return unavailable(`${this.options.taskName}: the worker pool is closed`);
  }

  private fill(): void {
    while (this.threads.length < this.size) this.spawn();
  }

  private spawn(): void {
    const worker = new Worker(this.options.file, {
      workerData: this.options.workerData,
      ...(this.options.execArgv ? { execArgv: this.options.execArgv } : {}),
    });
    if (this.options.unref) worker.unref();
    let loaded: () => void = () => undefined;
    const thread: Thread<Result> = { worker, inFlight: new Map(), loaded: Promise.resolve(), wasLoaded: false };
    thread.loaded = new Promise<void>((resolve, reject) => {
      loaded = resolve;
      worker.once('error', reject);
      worker.once('exit', (code) =>
        reject(new Error(`${this.options.taskName}: a worker thread exited with code ${code} while loading`)),
      );
    });
    thread.loaded.catch(() => undefined);
    worker.on('message', (reply: ReplyMessage<Result>) => {
      if ('ready' in reply) {
        thread.wasLoaded = true;
        loaded();
        return;
      }
      const waiting = thread.inFlight.get(reply.id);
      if (!waiting) return;
      thread.inFlight.delete(reply.id);
      if ('error' in reply) waiting.reject(errorOf(reply.error, this.options.taskName));
      else waiting.resolve(reply.result);
    });
    worker.on('error', (error) => this.stopped(thread, `failed: ${error.message}`));
    worker.on('exit', (code) => this.stopped(thread, `exited with code ${code}`));
    this.threads.push(thread);
  }

  private stopped(thread: Thread<Result>, reason: string): void {
    const index = this.threads.indexOf(thread);
    if (index >= 0) this.threads.splice(index, 1);
    for (const waiting of thread.inFlight.values())
      waiting.reject(internal(`${this.options.taskName} failed: its worker thread ${reason}`));
    thread.inFlight.clear();
    if (index < 0 || this.closed) return;
    // A thread that never loaded is not replaced here (it would fail again at once); the next task tries anew.
    if (!thread.wasLoaded) {
      this.log.error('a worker thread could not start', { pool: this.options.taskName, reason });
      return;
    }
    this.log.error('a worker thread stopped; starting another', { pool: this.options.taskName, reason });
    this.spawn();
  }
}
