import { AppError } from '@anchor/common/errors';
import { peerStatusOf } from '@anchor/common/http-client';

/** A failure to report as one line; `exitCode` 1 (failed) unless it is a usage mistake (2). */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: 1 | 2 = 1,
  ) {
    super(message);
    this.name = 'CliError';
  }
}

/** One line for any failure: what went wrong, never a stack trace. */
export function describeFailure(error: unknown): string {
  if (error instanceof CliError || error instanceof AppError) return error.message;
  if (error instanceof Error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code !== undefined && !error.message.includes(code) ? `${error.message} (${code})` : error.message;
  }
  return String(error);
}

/** Connection failures that mean the request never reached the peer (nothing can have happened there). */
const UNREACHED = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH']);

/**
 * Whether `error` proves the peer did nothing: it was never reached, or it answered 4xx (refused the request).
 * A timeout, a reset or a 5xx prove nothing: the request may have been taken.
 */
export function neverReached(error: unknown): boolean {
  const status = peerStatusOf(error);
  if (status !== undefined) return status >= 400 && status < 500;
  for (let cause: unknown = error; cause instanceof Error; cause = cause.cause) {
    const code = (cause as NodeJS.ErrnoException).code;
    if (typeof code === 'string' && UNREACHED.has(code)) return true;
    if (cause instanceof AggregateError && cause.errors.some((inner) => neverReached(inner))) return true;
  }
  return false;
}
