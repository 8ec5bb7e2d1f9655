import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import type { Request, RequestHandler, Response, Router } from 'express';
import type { Logger } from '../log/index.js';
import { ANONYMOUS, bearerToken, credentialsRequired, invalidBearerToken } from './authentication.js';
import { sendAnswer, writeAnswer } from './answer-writers.js';
import { readRawBody } from './body-parsing.js';
import { checkJsonCharset, isJsonMediaType, KitRequest, type Answer, type Handler } from './handler.js';
import { errorResponse, logErrorResponse } from './error-mapping.js';
import { checkQuery, searchOf } from './query-rule.js';
import type { RequestObserver } from './request-logging.js';
import type { Principal, SignatureAuthenticator } from './principal.js';
import type { CompiledToken, TokenRules } from './token-rules.js';
import './request.js';

export interface FastRouteOptions {
  /**
   * A self-authorising route that verifies HTTP signatures itself (an ActivityPub inbox): a bearer token the
   * rules define must still match (401 otherwise), but a request without one is not refused by the kit. Its
   * signature, if any, is verified against the exact body bytes, on the fast path too; the handler decides
   * from `principal` and `authorized` (through express it sits with the kit's self-authorising routes).
   */
  signed?: boolean;
}

interface FastRoute {
  method: string;
  /** The express path (`/:alias/v1/get-sth`): the route label of the request metric. */
  template: string;
  pattern: RegExp;
  paramNames: readonly string[];
  handler: Handler;
  signed: boolean;
}

interface Match {
  route: FastRoute;
  params: Record<string, string>;
}

/**
 * Routes a service's hottest endpoints are served by. Each is registered on the kit's express routes (so
 * token-protected and signed requests get the kit's whole treatment) and answered by `fastPath` in front
 * of express whenever the kit would let the request through without verifying a signature: express's
 * per-request machinery (routers, body parsers, helmet, ETags) costs more CPU than a cached resolution or a
 * proof, which the throughput targets of these endpoints cannot afford.
 *
 *   http.fastRoutes.get('/:alias/v1/get-sth', (req) => answer({ text: sth(req.params.alias), type: 'application/json' }));
 *
 * Services declare them in their route table (`fast: true`); `mountRoutes` registers them here.
 *
 * A template may end in a `*name` tail (express 5's wildcard): one or more segments, as `a/b/c`.
 */
export class FastRoutes {
  readonly #routes: FastRoute[] = [];

  /** `express`: the kit's routes (behind its credential check); `selfAuthorizing`: its self-authorising routes (before it). */
  constructor(
    private readonly express: Router,
    private readonly selfAuthorizing: Router,
  ) {}

  get(template: string, handler: Handler, options: FastRouteOptions = {}): this {
    return this.#add('GET', template, handler, options);
  }

  post(template: string, handler: Handler, options: FastRouteOptions = {}): this {
    return this.#add('POST', template, handler, options);
  }

  /** The route a request goes to, with its decoded parameters; undefined when none (or a parameter is not decodable: express answers that). */
  match(method: string | undefined, path: string): Match | undefined {
    for (const route of this.#routes) {
      if (route.method !== method) continue;
      const found = route.pattern.exec(path);
      if (!found) continue;
      const params: Record<string, string> = {};
      for (let i = 0; i < route.paramNames.length; i++) {
        const raw = found[i + 1] ?? '';
        try {
          params[route.paramNames[i] as string] = raw.includes('%') ? decodeURIComponent(raw) : raw;
        } catch {
          return undefined;
        }
      }
      return { route, params };
    }
    return undefined;
  }

  #add(method: 'GET' | 'POST', template: string, handler: Handler, options: FastRouteOptions): this {
    const paramNames: string[] = [];
    const source = template.replace(
      /([:*])(\w+)|[^:*]+/g,
      (part, kind: string | undefined, name: string | undefined) => {
        if (name === undefined) return part.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
        paramNames.push(name);
        return kind === '*' ? '(.+?)' : '([^/]+)';
      },
    );
    // Case-sensitive with an optional trailing slash: how the kit's express routes match.
    const signed = options.signed ?? false;
    this.#routes.push({ method, template, pattern: new RegExp(`^${source}/?$`), paramNames, handler, signed });
    const viaExpress = expressHandlerOf(handler, false);
    const router = signed ? this.selfAuthorizing : this.express;
    if (method === 'GET') router.get(template, viaExpress);
    else router.post(template, viaExpress);
    return this;
  }
}

/**
 * A handler behind an express route. `etags` (the kit's express routes): the answer goes out through express's
 * `res.send`, with its ETag and a 304 for a fresh conditional GET, as express routes always answered; without
 * (a fast route that express must answer, a signed request): exactly as the fast path writes it.
 */
export function expressHandlerOf(handler: Handler, etags = true): RequestHandler {
  return async (req: Request, res: Response) => {
    const request = new KitRequest(
      {
        method: req.method,
        path: req.path,
        url: req.originalUrl,
        params: flatParams(req.params as Record<string, string | string[]>),
        search: searchOf(req.originalUrl),
        body: req.rawBody,
        // The body parsers' JSON value or text (their bytes, other types, are `body` already); a fast route's
        // body is never parsed, on either path.
        parsedBody: !etags || Buffer.isBuffer(req.body) ? undefined : (req.body as unknown),
        parsedJson: etags && req.body !== undefined && isJsonMediaType(req.headers['content-type']),
        headers: req.headers,
        principal: req.principal,
        authorized: req.authorized,
      },
      res,
    );
    const answer = await handler(request);
    if (etags) sendAnswer(res, answer);
    else writeAnswer(res, answer, []);
  };
}

/** Express 5 gives a `*name` tail as its segments; handlers get it as the fast path does, joined by `/`. */
function flatParams(params: Record<string, string | string[]>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(params).map(([name, value]) => [name, Array.isArray(value) ? value.join('/') : value]),
  );
}

/**
 * The express side of fast routes: their bodies are read as exact bytes (`req.rawBody`) before the kit's
 * body parsers run, so a JSON body is not parsed for a handler that parses it itself, and malformed or
 * oversized input gets the same answer on both paths.
 */
export function fastRouteBodies(routes: FastRoutes, limit: number): RequestHandler {
  return (req, _res, next) => {
    if (routes.match(req.method, req.path) === undefined) {
      next();
      return;
    }
    readRawBody(req, limit)
      .then((body) => {
        if (body !== undefined) checkJsonCharset(req.headers['content-type']);
        req.rawBody = body;
      })
      .then(() => next(), next);
  };
}

export interface FastPathOptions {
  routes: FastRoutes;
  /** The express app: everything the fast path does not take. */
  app: RequestListener;
  rules: TokenRules;
  /** The kit's signature verifier, if any: signed routes use it; other routes leave signed requests to express. */
  signatureAuthenticator: SignatureAuthenticator | undefined;
  bodyLimit: number;
  /** The helmet headers every kit response carries (`securityHeaders`). */
  securityHeaders: ReadonlyArray<readonly [string, string]>;
  observe: RequestObserver;
  log: Logger;
}

/**
 * The request listener in front of express. A request for a fast route is answered here exactly as the
 * kit's middleware and the express route would answer it: the token rules (a defined token must be
 * presented and match: 401 otherwise, with the kit's messages), the body limit (413), the handler, the one
 * error body `{"message"}` through the kit's error mapping and logging, the security headers, and the
 * `http_request_duration_seconds` series and debug request log. On a signed route the signature is verified
 * here after the body is read (the kit's `authenticate`, in the same order); on other routes a request
 * without a matching token that carries an HTTP signature goes to express when the kit verifies signatures,
 * as does everything else.
 */
export function fastPath(options: FastPathOptions): RequestListener {
  const { routes, app, rules, signatureAuthenticator, bodyLimit, securityHeaders, observe, log } = options;

  return (req, res) => {
    const url = req.url ?? '/';
    const queryAt = url.indexOf('?');
    const path = queryAt < 0 ? url : url.slice(0, queryAt);
    const match = routes.match(req.method, path);
    if (match === undefined) {
      app(req, res);
      return;
    }
    const method = match.route.method;
    const tokens = rules.tokensFor(path, method);
    const presented = tokens.length > 0 ? bearerToken(req.headers.authorization) : undefined;
    if (
      !match.route.signed &&
      presented === undefined &&
      signatureAuthenticator !== undefined &&
      req.headers.signature !== undefined
    ) {
      app(req, res);
      return;
    }
    observe(req, res, path, () => match.route.template);
    serve(req, res, match, url, path, queryAt < 0 ? '' : url.slice(queryAt + 1), tokens, presented).then(
      (answer) => writeAnswer(res, answer, securityHeaders),
      (error: unknown) => writeError(res, error, method, path),
    );
  };

  async function serve(
    req: IncomingMessage,
    res: ServerResponse,
    { route, params }: Match,
    url: string,
    path: string,
    search: string,
    tokens: readonly CompiledToken[],
    presented: string | undefined,
  ): Promise<Answer> {
    checkQuery(search);
    let principal: Principal = ANONYMOUS;
    let tokenMatched = false;
    if (tokens.length > 0 && (presented !== undefined || !route.signed)) {
      if (presented === undefined) throw credentialsRequired();
      const matched = rules.match(tokens, presented);
      if (!matched) throw invalidBearerToken();
      principal = matched.name === undefined ? { kind: 'token' } : { kind: 'token', name: matched.name };
      tokenMatched = true;
    }
    const bodyless = req.headers['content-length'] === undefined && req.headers['transfer-encoding'] === undefined;
    const body = bodyless ? undefined : await readRawBody(req, bodyLimit);
    if (body !== undefined) checkJsonCharset(req.headers['content-type']);
    if (route.signed && !tokenMatched && signatureAuthenticator !== undefined) {
      const signer = await signatureAuthenticator({
        method: route.method,
        originalUrl: url,
        headers: req.headers,
        ...(body ? { rawBody: body } : {}),
      });
      if (signer) principal = { kind: 'signature', actor: signer.actor, keyId: signer.keyId };
    }
    const authorized = tokens.length === 0 || tokenMatched;
    return route.handler(
      new KitRequest(
        { method: route.method, path, url, params, search, body, headers: req.headers, principal, authorized },
        res,
      ),
    );
  }

  function writeError(res: ServerResponse, error: unknown, method: string, path: string): void {
    if (res.headersSent) {
      log.error('request failed after its response started', { method, path, err: error });
      res.destroy();
      return;
    }
    const response = errorResponse(error);
    logErrorResponse(log, response, error, { method, path });
    res.statusCode = response.status;
    for (const [name, value] of securityHeaders) res.setHeader(name, value);
    if (response.headers) for (const [name, value] of Object.entries(response.headers)) res.setHeader(name, value);
    const body = JSON.stringify(response.body);
    res.setHeader('Content-Type', 'application/json; charset=utf-8');
    res.setHeader('Content-Length', Buffer.byteLength(body));
    res.end(body);
  }
}
