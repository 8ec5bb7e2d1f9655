import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { unauthorized, type AppError } from '../errors/index.js';
import type { RouteRequest } from './handler.js';
import type { Principal, SignatureAuthenticator } from './principal.js';
import { TokenRules, type TokenRule } from './token-rules.js';
import './request.js';

export interface AuthOptions {
  /** Bearer-token rules (see `TokenRule`, `parseTokenRules`); none means every route is open. */
  rules?: readonly TokenRule[];
  /** Verifies HTTP signatures (the httpsig module provides one); without it signatures are ignored. */
  signatureAuthenticator?: SignatureAuthenticator;
}

/** The principal of a request that brought neither a matching token nor a valid signature. */
export const ANONYMOUS: Principal = Object.freeze({ kind: 'anonymous' });

/** The token of an `Authorization: Bearer <token>` header (empty string for a bare `Bearer`), else undefined. */
export function bearerToken(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  const match = /^bearer(?:\s+(.*))?$/i.exec(header.trim());
  return match ? (match[1] ?? '').trim() : undefined;
}

/**
 * Authenticates every request before routing (spec Authentication rules 1-3, orb.md §1.3):
 *   - a bearer token on a path+method that defines tokens must match one of them, else 401;
 *   - without a usable token the signature authenticator is asked; a present but invalid signature is
 *     401 (its AppError), a valid one sets `principal` to the signer. It is asked even where no token is
 *     defined, so handlers such as the inbox always learn a signer;
 *   - on paths without tokens a bearer token is not checked (no check is defined there).
 * Rejecting requests that lack credentials is left to `requireCredentials`, so self-authorising routes
 * can run in between.
 */
export function authenticate(options: AuthOptions): RequestHandler {
  const rules = new TokenRules(options.rules);
  const verifySignature = options.signatureAuthenticator;
  return async (req: Request, _res: Response, next: NextFunction) => {
    const tokens = rules.tokensFor(req.path, req.method);
    const presented = bearerToken(req.headers.authorization);
    if (tokens.length > 0 && presented !== undefined) {
      const match = rules.match(tokens, presented);
      if (!match) throw invalidBearerToken();
      req.principal = match.name === undefined ? { kind: 'token' } : { kind: 'token', name: match.name };
      req.authorized = true;
      next();
      return;
    }
    const signer = verifySignature ? await verifySignature(req) : undefined;
    req.principal = signer ? { kind: 'signature', actor: signer.actor, keyId: signer.keyId } : ANONYMOUS;
    req.authorized = tokens.length === 0;
    next();
  };
}

/** 401 unless the token rules are satisfied or a valid signature was presented (spec rule 3). */
export const requireCredentials: RequestHandler = (req, _res, next) => {
  if (!req.authorized && req.principal.kind !== 'signature') {
    throw credentialsRequired();
  }
  next();
};

/** 401 for a bearer token that matches none of the tokens defined for the path and method. */
export const invalidBearerToken = (): AppError =>
  unauthorized('invalid bearer token', { headers: { 'WWW-Authenticate': 'Bearer error="invalid_token"' } });

/** 401 for a request that needs a token (or a signature) and brought neither. */
export const credentialsRequired = (): AppError =>
  unauthorized('credentials required: a bearer token or an HTTP signature', {
    headers: { 'WWW-Authenticate': 'Bearer' },
  });

/**
 * For routes Orb serves as token-only (acceptlist, policy, ...): a signature is not enough when
 * the rules define tokens for the path. Put it before the handler: `routes.post('/policy', requireToken, h)`.
 */
export const requireToken: RequestHandler = (req, _res, next) => {
  if (!req.authorized) throw unauthorized('a bearer token is required', { headers: { 'WWW-Authenticate': 'Bearer' } });
  next();
};

/** Extra condition a self-authorising route accepts besides the token rules, e.g. "signer is a follower". */
export type Authorization = (principal: Principal) => boolean | Promise<boolean>;

/** What the decision reads of a request: a `RouteRequest`, or an express request (the kit sets both fields). */
export type AuthorizedRequest = Pick<RouteRequest, 'authorized' | 'principal'>;

/** Whether the token rules are satisfied, or else `alternative` accepts the principal. */
export async function isAuthorized(req: AuthorizedRequest, alternative?: Authorization): Promise<boolean> {
  if (req.authorized) return true;
  return alternative ? await alternative(req.principal) : false;
}

/**
 * Throws 401 unless `isAuthorized`. The decision of a self-authorising route, e.g. a collection readable
 * by a token holder or by a signed follower:
 *   await requireAuthorization(req, signedBy((actor) => followers.has(actor)));
 */
export async function requireAuthorization(req: AuthorizedRequest, alternative?: Authorization): Promise<void> {
  if (!(await isAuthorized(req, alternative)))
    throw unauthorized('not authorised for this resource', { headers: { 'WWW-Authenticate': 'Bearer' } });
}

/** An `Authorization` that accepts verified signers whose actor passes `accept`. */
export function signedBy(accept: (actor: string) => boolean | Promise<boolean>): Authorization {
  return async (principal) => principal.kind === 'signature' && (await accept(principal.actor));
}
