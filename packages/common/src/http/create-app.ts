import express, { Router } from 'express';
import helmet, { type HelmetOptions } from 'helmet';
import { getLogger } from '../log/index.js';
import { createMetrics, type Metrics } from '../metrics/index.js';
import { authenticate, requireCredentials, type AuthOptions } from './authentication.js';
import { bodyParsers, parseByteSize } from './body-parsing.js';
import { builtinRoutes, type BuiltinRoutes } from './builtin-routes.js';
import { errorHandler, notFoundHandler } from './error-mapping.js';
import { fastPath, fastRouteBodies, FastRoutes } from './fast-routes.js';
import { queryRule } from './query-rule.js';
import type { HttpApp } from './http-app.js';
import { mountRoute } from './route-table.js';
import { RouteBodyLimits } from './route-body-limits.js';
import { HealthChecks, type HealthOptions } from './health.js';
import { requestLogging, requestObserver } from './request-logging.js';
import { securityHeaders } from './security-headers.js';
import { TokenRules } from './token-rules.js';

export interface HttpAppOptions {
  /** Largest accepted request body (bytes, or a string like `2mb`); larger ones get 413. Default `2mb`. */
  bodyLimit?: number | string;
  auth?: AuthOptions;
  /** The service's registry; default a fresh one without a prefix. */
  metrics?: Metrics;
  health?: HealthOptions;
  builtins?: BuiltinRoutes;
  helmet?: HelmetOptions;
  /** Express `trust proxy` setting, for deployments behind a load balancer. */
  trustProxy?: boolean | number | string;
}

/**
 * The express 5 app every service serves. Order of work on a request:
 * request log + duration histogram, helmet, the query rule (a repeated parameter is a 400), body parsing (raw bytes kept; fast routes' bodies only read; a route with a `bodyLimit` of its own reads its body after the token check), authentication (token rules,
 * signatures), self-authorising routes, the credentials check, built-in routes (`/healthcheck`,
 * `/metrics`, `/loglevels`), service routes, 404, and the one error mapper. Handlers may be async and
 * throw AppErrors; none writes an error body itself.
 *
 *   const http = createHttpApp({ metrics, bodyLimit: '1mb', auth: { rules, signatureAuthenticator } });
 *   http.health.register('dbStatus', () => store.ping());
 *   mountRoutes(http, [...http.builtinRoutes, { method: 'POST', path: '/things', auth: 'write', fast: true, tag: 'a',
 *     summary: 'adds a thing', responses: { 200: 'added' },
 *     handler: async (req) => answer({ json: await things.add(jsonBody(req, THING)) }) }]);
 *   const server = await startHttpServer(http.listener, { host: '0.0.0.0', port: 8080 });
 */
export function createHttpApp(options: HttpAppOptions = {}): HttpApp {
  const log = getLogger('http');
  const metrics = options.metrics ?? createMetrics();
  const health = new HealthChecks(options.health);
  const app = express();
  // Token rules match paths case-insensitively; routing must not be looser than them.
  app.set('case sensitive routing', true);
  app.disable('x-powered-by');
  if (options.trustProxy !== undefined) app.set('trust proxy', options.trustProxy);

  const routes = Router({ caseSensitive: true });
  const selfAuthorizingRoutes = Router({ caseSensitive: true });
  const fastRoutes = new FastRoutes(routes, selfAuthorizingRoutes);
  const bodyLimit = parseByteSize(options.bodyLimit ?? '2mb');
  const observe = requestObserver(log, metrics);
  const routeBodyLimits = new RouteBodyLimits();

  app.use(requestLogging(observe));
  app.use(helmet(options.helmet));
  app.use(queryRule);
  app.use(fastRouteBodies(fastRoutes, bodyLimit));
  app.use(routeBodyLimits.passOver(bodyParsers(bodyLimit)));
  app.use(authenticate(options.auth ?? {}));
  app.use(selfAuthorizingRoutes);
  app.use(requireCredentials);
  const builtins = Router({ caseSensitive: true });
  const builtinTable = builtinRoutes(options.builtins ?? {}, health, metrics);
  for (const route of builtinTable)
    mountRoute(
      { routes: builtins, selfAuthorizing: selfAuthorizingRoutes, fast: fastRoutes, bodyLimits: routeBodyLimits },
      route,
    );
  app.use(builtins);
  app.use(routes);
  app.use(notFoundHandler);
  app.use(errorHandler(log));
  const listener = fastPath({
    routes: fastRoutes,
    app,
    rules: new TokenRules(options.auth?.rules),
    signatureAuthenticator: options.auth?.signatureAuthenticator,
    bodyLimit,
    securityHeaders: securityHeaders(options.helmet),
    observe,
    log,
  });
  return {
    listener,
    app,
    routes,
    selfAuthorizingRoutes,
    fastRoutes,
    health,
    metrics,
    builtinRoutes: builtinTable,
    routeBodyLimits,
  };
}
