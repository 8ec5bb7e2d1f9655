import type { RequestListener } from 'node:http';
import type { Express, Router } from 'express';
import type { Metrics } from '../metrics/index.js';
import type { FastRoutes } from './fast-routes.js';
import type { HealthChecks } from './health.js';
import type { RouteBodyLimits } from './route-body-limits.js';
import type { RouteSpec } from './route-spec.js';

export interface HttpApp {
  /** Give this to `startHttpServer`: the fast routes answered in front of express, everything else by `app`. */
  readonly listener: RequestListener;
  /** The express app (serving it alone serves the fast routes through express); add routes through the routers below. */
  readonly app: Express;
  /** Routes behind the token rules: requests without valid credentials where tokens are defined get 401. */
  readonly routes: Router;
  /**
   * Routes whose handlers decide about requests that lack credentials (an outbox showing anonymous readers
   * only public activities, a collection readable by signed followers). Invalid credentials are still 401
   * before the handler runs; handlers use `isAuthorized` / `requireAuthorization`.
   */
  readonly selfAuthorizingRoutes: Router;
  /**
   * A service's hottest endpoints (see `FastRoutes`): behind the token rules like `routes`, with the body as
   * exact bytes, and answered without express whenever no HTTP signature has to be verified.
   */
  readonly fastRoutes: FastRoutes;
  readonly health: HealthChecks;
  readonly metrics: Metrics;
  /** `/healthcheck`, `/metrics`, `/loglevels` as enabled, already mounted: the part of every route table the kit brings. */
  readonly builtinRoutes: readonly RouteSpec[];
  /** The routes with a body limit of their own (`RouteSpec.bodyLimit`), which the app-wide parsers pass over. */
  readonly routeBodyLimits: RouteBodyLimits;
}
