import { parentPort } from 'node:worker_threads';
import { failureOf, type ReplyMessage, type TaskMessage } from './messages.js';

/**
 * The worker thread's side of a `WorkerPool`: answers every task with the handler's result or its error.
 * Asynchronous handlers may have several tasks in flight at once. Called once the module has done its
 * set-up: it tells the pool that the thread has loaded.
 */
export function serveTasks<Task, Result>(handler: (task: Task) => Result | Promise<Result>): void {
  const port = parentPort;
  if (!port) throw new Error('serveTasks must run on a worker thread started by a WorkerPool');
  const fail = (id: number, error: unknown): void =>
    port.postMessage({ id, error: failureOf(error) } satisfies ReplyMessage<Result>);
  port.on('message', ({ id, task }: TaskMessage<Task>) => {
    let result: Result | Promise<Result>;
    try {
      result = handler(task);
    } catch (error) {
      fail(id, error);
      return;
    }
    if (result instanceof Promise)
      result.then(
        (value) => port.postMessage({ id, result: value } satisfies ReplyMessage<Result>),
        (error: unknown) => fail(id, error),
      );
    else port.postMessage({ id, result } satisfies ReplyMessage<Result>);
  });
  port.postMessage({ ready: true } satisfies ReplyMessage<Result>);
}
