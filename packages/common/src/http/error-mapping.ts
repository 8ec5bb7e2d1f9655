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
  return error instanceof Error && typeof (error as BodyParserError).type === 'string' && typeof (error as BodyParserError).status === 'number';
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

/**
 * The one error mapper: every failure becomes a JSON body `{"message": ..., ...details}` with the
 * AppError's status and headers; anything else is a 500 `{"message":"internal error"}` whose stack is
 * logged, never sent. (The original wrote short text bodies such as "Unauthorized.\n" from most
 * handlers and `{"errMessage": ...}` from discovery; one JSON shape replaces both.)
 */
export function errorHandler(log: Logger): ErrorRequestHandler {
  return (error: unknown, req, res, next) => {
    const appError = AppError.is(error) ? error : isBodyParserError(error) ? fromBodyParser(error) : undefined;
    const context = { method: req.method, path: req.path };
    if (res.headersSent) {
      // Too late for a status: let express cut the connection so the client sees a failure.
      log.error('request failed after its response started', { ...context, err: error });
      next(error);
      return;
    }
    if (!appError) {
      log.error('unhandled error', { ...context, err: error instanceof Error ? error : String(error) });
      res.status(500).json({ message: 'internal error' });
      return;
    }
    if (appError.status >= 500) log.warn('request failed', { ...context, status: appError.status, err: appError });
    else log.debug('request rejected', { ...context, status: appError.status, reason: appError.message });
    if (appError.headers) res.set(appError.headers);
    const { message: _ignored, ...details } = appError.details ?? {};
    res.status(appError.status).json({ message: appError.message, ...details });
  };
}

export const notFoundHandler: RequestHandler = (req) => {
  throw notFound(`no route for ${req.method} ${req.path}`);
};
