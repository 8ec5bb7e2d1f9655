import type { RequestHandler } from 'express';
import { unauthorized } from '../errors/index.js';
import type { Principal, SignatureAuthenticator, SignedRequestLike } from '../http/principal.js';

export interface SignatureMiddlewareOptions {
  /** Refuse unsigned requests with 401 (default). When false, they pass through as anonymous. */
  required?: boolean;
}

/**
 * Express form of the authenticator, for routers that do not use the HTTP kit's auth layer. On success it sets
 * `req.principal = {kind: 'signature', actor, keyId}` (the kit's convention); failures go to `next(error)` as
 * `AppError`s for the app's error handler to map (401, or 503 when a key could not be fetched).
 *
 * The Digest check needs the exact body bytes in `req.rawBody`: mount a body parser that keeps them first,
 * e.g. `express.json({ verify: (req, _res, buf) => { req.rawBody = buf; } })` or `express.raw()` plus copying
 * `req.body` to `req.rawBody`.
 */
export function signatureMiddleware(
  authenticate: SignatureAuthenticator,
  options: SignatureMiddlewareOptions = {},
): RequestHandler {
  const required = options.required ?? true;
  return (req, _res, next) => {
    const request: SignedRequestLike = {
      method: req.method,
      originalUrl: req.originalUrl,
      headers: req.headers,
      ...rawBodyOf(req),
    };
    authenticate(request).then(
      (result) => {
        if (result === undefined) {
          if (required) return next(unauthorized('this endpoint requires an HTTP-signed request'));
          setPrincipal(req, { kind: 'anonymous' });
          return next();
        }
        setPrincipal(req, { kind: 'signature', actor: result.actor, keyId: result.keyId });
        next();
      },
      (error: unknown) => next(error),
    );
  };
}

function rawBodyOf(req: object): { rawBody?: Buffer } {
  const rawBody = (req as { rawBody?: unknown }).rawBody;
  return Buffer.isBuffer(rawBody) ? { rawBody } : {};
}

function setPrincipal(req: object, principal: Principal): void {
  (req as { principal?: Principal }).principal = principal;
}
