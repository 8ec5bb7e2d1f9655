import { AppError } from '../errors/index.js';

/** What an HTTP client is told to wait (Retry-After, seconds) before retrying a request the store could not serve. */
export const STORE_RETRY_AFTER_SECONDS = 5;

/**
 * The store cannot serve now (its database unreachable, its client being replaced, the provider closing): 503,
 * retryable by queue consumers, with Retry-After for HTTP clients. The one error every adapter gives for it.
 */
export function storeUnavailable(message: string, cause?: unknown): AppError {
  return new AppError('unavailable', message, {
    retryable: true,
    cause,
    headers: { 'Retry-After': String(STORE_RETRY_AFTER_SECONDS) },
  });
}
