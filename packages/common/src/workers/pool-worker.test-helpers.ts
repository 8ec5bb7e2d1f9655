/**
 * The worker module of the pool's tests (compiled on the fly by `compilePoolWorker`): echoes, waits, fails
 * and crashes on request.
 */
import { threadId, workerData } from 'node:worker_threads';
import { badRequest } from '../errors/index.js';
import { serveTasks } from './serve-tasks.js';

export type PoolTestTask =
  | { op: 'echo'; value: unknown }
  | { op: 'slow'; ms: number }
  | { op: 'bad-request'; message: string }
  | { op: 'throw'; message: string }
  | { op: 'crash'; afterMs: number };

const setup = workerData as { prefix: string; failToLoad?: boolean } | undefined;
if (setup?.failToLoad) throw new Error('this worker refuses to load');

serveTasks<PoolTestTask, unknown>((task) => {
  switch (task.op) {
    case 'echo':
      return { echoed: task.value, prefix: setup?.prefix };
    case 'slow':
      return new Promise((resolve) => setTimeout(() => resolve({ threadId }), task.ms));
    case 'bad-request':
      return Promise.reject(badRequest(task.message, { details: { field: 'x' } }));
    case 'throw':
      throw new Error(task.message);
    case 'crash':
      setTimeout(() => process.exit(3), task.afterMs);
      return new Promise(() => undefined);
  }
});
