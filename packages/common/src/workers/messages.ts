import { AppError, internal, type ErrorCode } from '../errors/index.js';

/** What the pool posts to a worker thread. */
export interface TaskMessage<Task> {
  id: number;
  task: Task;
}

/** A task's failure as it crosses the thread boundary: an AppError keeps its code, retryability and details. */
export interface TaskFailure {
  message: string;
  code?: ErrorCode;
  retryable?: boolean;
  details?: Record<string, unknown>;
}

/** What a worker thread says: that it has loaded (once), then one reply per task. */
export type ReplyMessage<Result> =
  { ready: true } | { id: number; result: Result } | { id: number; error: TaskFailure };

export function failureOf(error: unknown): TaskFailure {
  if (!(error instanceof AppError)) return { message: error instanceof Error ? error.message : String(error) };
  return {
    message: error.message,
    code: error.code,
    retryable: error.retryable,
    ...(error.details ? { details: error.details } : {}),
  };
}

/** The error a task's caller sees: the AppError the task threw, or an internal error saying what failed. */
export function errorOf(failure: TaskFailure, taskName: string): AppError {
  if (failure.code === undefined) return internal(`${taskName} failed: ${failure.message}`);
  return new AppError(failure.code, failure.message, { retryable: failure.retryable, details: failure.details });
}
