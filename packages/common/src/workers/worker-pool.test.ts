import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { AppError } from '../errors/index.js';
import { compilePoolWorker } from './compile-worker.test-helpers.js';
import type { PoolTestTask } from './pool-worker.test-helpers.js';
import { WorkerPool, type WorkerPoolOptions } from './worker-pool.js';

let worker: Awaited<ReturnType<typeof compilePoolWorker>>;
const pools: Array<WorkerPool<PoolTestTask, unknown>> = [];

beforeAll(async () => {
  worker = await compilePoolWorker();
});
afterEach(async () => {
  await Promise.all(pools.splice(0).map((pool) => pool.close()));
});
afterAll(() => worker.remove());

function pool(options: Partial<WorkerPoolOptions> = {}): WorkerPool<PoolTestTask, unknown> {
  const created = new WorkerPool<PoolTestTask, unknown>({
    file: worker.file,
    size: 2,
    taskName: 'testing the pool',
    workerData: { prefix: 'p' },
    ...options,
  });
  pools.push(created);
  return created;
}

async function rejection(promise: Promise<unknown>): Promise<AppError> {
  const error = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(AppError);
  return error as AppError;
}

describe('WorkerPool', () => {
  it('answers each task with its own result, with the workerData every thread was given', async () => {
    const workers = pool();
    const results = await Promise.all(Array.from({ length: 50 }, (_, n) => workers.run({ op: 'echo', value: { n } })));
    expect(results).toEqual(Array.from({ length: 50 }, (_, n) => ({ echoed: { n }, prefix: 'p' })));
  });

  it('spreads tasks in flight over its threads', async () => {
    const workers = pool({ size: 3 });
    await workers.ready();
    const answers = (await Promise.all(
      Array.from({ length: 6 }, () => workers.run({ op: 'slow', ms: 100 })),
    )) as Array<{ threadId: number }>;
    const perThread = new Map<number, number>();
    for (const { threadId } of answers) perThread.set(threadId, (perThread.get(threadId) ?? 0) + 1);
    expect([...perThread.values()]).toEqual([2, 2, 2]);
  });

  it('rejects with the AppError a task threw: code, message, retryability and details', async () => {
    const error = await rejection(pool().run({ op: 'bad-request', message: 'not a credential' }));
    expect(error).toMatchObject({
      code: 'bad_request',
      status: 400,
      message: 'not a credential',
      retryable: false,
      details: { field: 'x' },
    });
  });

  it('turns any other error into a 500 naming the task', async () => {
    const error = await rejection(pool().run({ op: 'throw', message: 'out of paper' }));
    expect(error).toMatchObject({ code: 'internal', status: 500, message: 'testing the pool failed: out of paper' });
  });

  it('fails the tasks of a thread that dies, replaces it, and keeps serving', async () => {
    const workers = pool({ size: 1 });
    const crash = workers.run({ op: 'crash', afterMs: 50 });
    const bystander = workers.run({ op: 'slow', ms: 5_000 });
    for (const failed of [await rejection(crash), await rejection(bystander)]) {
      expect(failed).toMatchObject({
        code: 'internal',
        message: 'testing the pool failed: its worker thread exited with code 3',
      });
    }
    expect(await workers.run({ op: 'echo', value: 'after' })).toEqual({ echoed: 'after', prefix: 'p' });
  });

  it('reports a module that cannot load from ready(), and every task fails with that reason', async () => {
    const workers = pool({ workerData: { prefix: 'p', failToLoad: true } });
    await expect(workers.ready()).rejects.toThrow('this worker refuses to load');
    const error = await rejection(workers.run({ op: 'echo', value: 1 }));
    expect(error.message).toBe('testing the pool failed: its worker thread failed: this worker refuses to load');
  });

  it('after close(), fails the tasks in flight and refuses new ones with a 503', async () => {
    const workers = pool({ size: 1 });
    const inFlight = workers.run({ op: 'slow', ms: 5_000 });
    await workers.ready();
    await workers.close();
    expect((await rejection(inFlight)).code).toBe('internal');
    const refused = await rejection(workers.run({ op: 'echo', value: 1 }));
    expect(refused).toMatchObject({ status: 503, message: 'testing the pool: the worker pool is closed' });
  });

  it('needs at least one thread', () => {
    expect(() => new WorkerPool({ file: worker.file, size: 0, taskName: 'x' })).toThrow('at least 1 (got 0)');
  });
});
