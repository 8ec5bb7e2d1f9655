/**
 * The one error type of the project. Library code throws `AppError`s (or plain errors, which map to 500);
 * the HTTP kit maps them to a status and a JSON body `{"message": ...}` in one place, and the queue
 * adapters read `retryable` to choose between redelivery and dead-lettering.
 */
export type ErrorCode =
  | 'bad_request'
  | 'unauthorized'
  | 'forbidden'
  | 'not_found'
  | 'method_not_allowed'
  | 'conflict'
  | 'payload_too_large'
  | 'unsupported_media_type'
  | 'unprocessable'
  | 'too_many_requests'
  | 'internal'
  | 'not_implemented'
  | 'bad_gateway'
  | 'unavailable'
  | 'timeout';

const STATUS: Record<ErrorCode, number> = {
  bad_request: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  method_not_allowed: 405,
  conflict: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  unprocessable: 422,
  too_many_requests: 429,
  internal: 500,
  not_implemented: 501,
  bad_gateway: 502,
  unavailable: 503,
  timeout: 504,
};

export interface AppErrorOptions {
  /** Extra JSON members merged into the HTTP error body (never overriding `message`). */
  details?: Record<string, unknown>;
  /** Whether a queue consumer should retry the work that failed (defaults: 5xx retryable, 4xx not). */
  retryable?: boolean;
  cause?: unknown;
  /** Extra response headers, e.g. `WWW-Authenticate`. */
  headers?: Record<string, string>;
}

export class AppError extends Error {
  override readonly name = 'AppError';
  readonly code: ErrorCode;
  readonly status: number;
  readonly details: Record<string, unknown> | undefined;
  readonly retryable: boolean;
  readonly headers: Record<string, string> | undefined;

  constructor(code: ErrorCode, message: string, options: AppErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.status = STATUS[code];
    this.details = options.details;
    this.retryable = options.retryable ?? this.status >= 500;
    this.headers = options.headers;
  }

  static is(value: unknown): value is AppError {
    return value instanceof AppError;
  }
}

export const badRequest = (message: string, options?: AppErrorOptions): AppError =>
  new AppError('bad_request', message, options);
export const unauthorized = (message = 'unauthorized', options?: AppErrorOptions): AppError =>
  new AppError('unauthorized', message, options);
export const forbidden = (message = 'forbidden', options?: AppErrorOptions): AppError =>
  new AppError('forbidden', message, options);
export const notFound = (message = 'not found', options?: AppErrorOptions): AppError =>
  new AppError('not_found', message, options);
export const conflict = (message: string, options?: AppErrorOptions): AppError =>
  new AppError('conflict', message, options);
export const unavailable = (message = 'service unavailable', options?: AppErrorOptions): AppError =>
  new AppError('unavailable', message, options);
export const internal = (message = 'internal error', options?: AppErrorOptions): AppError =>
  new AppError('internal', message, options);

/** A failure worth retrying later (network error, 5xx from a peer, store briefly unavailable). */
export const transient = (message: string, cause?: unknown): AppError =>
  new AppError('unavailable', message, { retryable: true, cause });
/** A failure that retrying cannot fix (malformed input, 4xx from a peer). */
export const permanent = (message: string, cause?: unknown): AppError =>
  new AppError('unprocessable', message, { retryable: false, cause });

/** Retry policy shared by every consumer: AppErrors say so themselves; unknown errors are retried. */
export function isRetryable(error: unknown): boolean {
  return error instanceof AppError ? error.retryable : true;
}

/** HTTP status for any thrown value: AppErrors carry theirs, everything else is a 500. */
export function statusOf(error: unknown): number {
  return error instanceof AppError ? error.status : 500;
}

export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
