import type { ErrorRequestHandler, RequestHandler } from 'express';
import { AppError, notFound } from '../errors/index.js';
import type { Logger } from '../log/index.js';
import { errorCodeForStatus } from './status-codes.js';

interface BodyParserError extends Error {
  type: string;
  status: number;
  expose: boolean;
  limit?: number;
}

function isBodyParserError(error: unknown): error is BodyParserError {
  return (
    error instanceof Error &&
    typeof (error as BodyParserError).type === 'string' &&
    typeof (error as BodyParserError).status === 'number'
  );
}

/** Body-parser failures as AppErrors with a message a client can act on. */
function fromBodyParser(error: BodyParserError): AppError | undefined {
  if (!error.expose || error.status < 400 || error.status >= 500) return undefined;
  const message =
    error.type === 'entity.parse.failed'
      ? `malformed JSON: ${error.message}`
      : error.type === 'entity.too.large'
        ? `request body exceeds the limit of ${error.limit} bytes`
        : error.message;
  return new AppError(errorCodeForStatus(error.status), message, { cause: error });
}

/** What a failure becomes on the wire: the AppError's status, headers and `{"message": ..., ...details}`. */
export interface ErrorResponse {
  status: number;
  headers: Record<string, string> | undefined;
  body: { message: string; [detail: string]: unknown };
  /** The mapped AppError; undefined for unexpected errors (which are answered as a bare 500). */
  appError: AppError | undefined;
}

/**
 * A URIError comes only from decoding or encoding URI components: express's and the fast path's path
 * parameters (`%zz`, a lone `%`, `%ff%fe`), or a handler decoding part of the URL the client sent. It is the
 * client's malformed input, answered 400 with one line, never an unhandled error with a stack.
 */
function fromUriError(error: URIError): AppError {
  return new AppError('bad_request', 'malformed percent-encoding in the request URL', { cause: error });
}

/** Maps any thrown value to its response; shared by the express error handler and the fast path (fast-routes.ts). */
export function errorResponse(error: unknown): ErrorResponse {
  const appError = AppError.is(error)
    ? error
    : isBodyParserError(error)
      ? fromBodyParser(error)
      : error instanceof URIError
        ? fromUriError(error)
        : undefined;
  if (!appError) return { status: 500, headers: undefined, body: { message: 'internal error' }, appError: undefined };
  const { message: _ignored, ...details } = appError.details ?? {};
  return {
    status: appError.status,
    headers: appError.headers,
    body: { message: appError.message, ...details },
    appError,
  };
}

/** How the kit logs a failed request: unexpected errors with their stack, 5xx as warnings, refusals at debug. */
export function logErrorResponse(
  log: Logger,
  response: ErrorResponse,
  error: unknown,
  context: { method: string | undefined; path: string },
): void {
  const appError = response.appError;
  if (!appError) log.error('unhandled error', { ...context, err: error instanceof Error ? error : String(error) });
  else if (appError.status >= 500) log.warn('request failed', { ...context, status: appError.status, err: appError });
  else log.debug('request rejected', { ...context, status: appError.status, reason: appError.message });
}

/**
 * The one error mapper: every failure becomes a JSON body `{"message": ..., ...details}` with the
 * AppError's status and headers; anything else is a 500 `{"message":"internal error"}` whose stack is
 * logged, never sent: one JSON shape for every service.
 */
export function errorHandler(log: Logger): ErrorRequestHandler {
  return (error: unknown, req, res, next) => {
    const response = errorResponse(error);
    const context = { method: req.method, path: req.path };
    if (res.headersSent) {
      // Too late for a status: let express cut the connection so the client sees a failure.
      log.error('request failed after its response started', { ...context, err: error });
      next(error);
      return;
    }
    logErrorResponse(log, response, error, context);
    if (response.headers) res.set(response.headers);
    // res.json keeps a Content-Type the handler set before it failed (e.g. text/plain): the body is JSON either way.
    res.status(response.status).type('application/json').json(response.body);
  };
}

export const notFoundHandler: RequestHandler = (req) => {
  throw notFound(`no route for ${req.method} ${req.path}`);
};
