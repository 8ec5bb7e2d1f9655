import type { RequestHandler, Router } from 'express';
import { requireToken } from './authentication.js';
import { bodyParsers, parseByteSize } from './body-parsing.js';
import { expressHandlerOf, type FastRoutes } from './fast-routes.js';
import type { RouteBodyLimits } from './route-body-limits.js';
import type { HttpApp } from './http-app.js';
import type { HttpMethod, RouteSpec } from './route-spec.js';

const READ_METHODS = new Set<HttpMethod>(['GET']);

/** The routers a route can land on: the kit's token-ruled routes, its self-authorising routes, its fast routes. */
export interface RouteTargets {
  routes: Router;
  selfAuthorizing: Router;
  fast: FastRoutes;
  bodyLimits: RouteBodyLimits;
}

/**
 * Mounts a service's route table on the HTTP kit: each route where its auth class puts it (see
 * `AuthClass`), fast routes on the fast path. The kit's built-in routes (`http.builtinRoutes`) belong in
 * every table; `createHttpApp` has mounted them already, in their place before the service's routes, so
 * they are passed over here. A route the kit cannot serve as declared (a `read` POST, a fast `admin` or
 * `open` route) or a method and path given twice is an error at start-up.
 */
export function mountRoutes(http: HttpApp, routes: readonly RouteSpec[]): void {
  checkTable(routes);
  if (tables.has(http)) throw new Error('this HTTP app has a route table already: a service has one');
  tables.set(http, routes);
  const targets: RouteTargets = {
    routes: http.routes,
    selfAuthorizing: http.selfAuthorizingRoutes,
    fast: http.fastRoutes,
    bodyLimits: http.routeBodyLimits,
  };
  for (const route of routes) {
    if (http.builtinRoutes.includes(route)) continue;
    mountRoute(targets, route);
  }
}

const tables = new WeakMap<HttpApp, readonly RouteSpec[]>();

/** The table mounted on an HTTP app (empty before `mountRoutes`): what its README tables are rendered from. */
export function routeTableOf(http: HttpApp): readonly RouteSpec[] {
  return tables.get(http) ?? [];
}

/** Mounts one route on the given routers (`mountRoutes` for a table; the kit for its built-in routes). */
export function mountRoute(targets: RouteTargets, route: RouteSpec): void {
  checkRoute(route);
  if (route.fast === true) {
    // Fast routes apply the token rules themselves; `signed` ones also verify signatures on the fast path.
    const options = { signed: route.auth === 'signed' };
    if (route.method === 'GET') targets.fast.get(route.path, route.handler, options);
    else targets.fast.post(route.path, route.handler, options);
    return;
  }
  const router = route.auth === 'open' || route.auth === 'signed' ? targets.selfAuthorizing : targets.routes;
  const handlers: RequestHandler[] = route.auth === 'admin' ? [requireToken] : [];
  if (route.bodyLimit !== undefined) {
    // Read here, after the token check, in place of the app-wide parsers (which pass this route over).
    targets.bodyLimits.add(route.method, route.path);
    handlers.push(...bodyParsers(parseByteSize(route.bodyLimit)));
  }
  handlers.push(expressHandlerOf(route.handler));
  switch (route.method) {
    case 'GET':
      router.get(route.path, ...handlers);
      break;
    case 'POST':
      router.post(route.path, ...handlers);
      break;
    case 'PUT':
      router.put(route.path, ...handlers);
      break;
    case 'DELETE':
      router.delete(route.path, ...handlers);
      break;
  }
}

function checkRoute(route: RouteSpec): void {
  const where = `route ${route.method} ${route.path}`;
  if (route.auth === 'read' && !READ_METHODS.has(route.method))
    throw new Error(`${where}: a read route is a GET (writes need the write class)`);
  if (route.auth === 'write' && READ_METHODS.has(route.method))
    throw new Error(`${where}: a write route is not a GET (reads need the read class)`);
  if (
    route.bodyLimit !== undefined &&
    (route.fast || route.auth === 'open' || route.auth === 'signed' || route.path.includes(':'))
  )
    throw new Error(`${where}: a body limit of its own is for a token-ruled express route without parameters`);
  if (route.fast && (route.auth === 'open' || route.auth === 'admin'))
    throw new Error(`${where}: fast routes are read, write or signed`);
  if (route.fast && route.method !== 'GET' && route.method !== 'POST')
    throw new Error(`${where}: fast routes are GET or POST`);
  if (route.auth === 'signed' && route.access === undefined)
    throw new Error(`${where}: a signed route says who its handler admits (access)`);
  for (const name of pathParameters(route.path)) {
    if (route.params?.[name] === undefined) throw new Error(`${where}: the path parameter ${name} has no description`);
  }
}

function checkTable(routes: readonly RouteSpec[]): void {
  const seen = new Set<string>();
  for (const route of routes) {
    const key = `${route.method} ${route.path}`;
    if (seen.has(key)) throw new Error(`route ${key} is in the table twice`);
    seen.add(key);
    checkRoute(route);
  }
}

/** The `:name` parameters (and a `*name` tail) of an express path, in order. */
export function pathParameters(path: string): string[] {
  return [...path.matchAll(/[:*](\w+)/g)].map((match) => match[1] as string);
}

/**
 * The path in OpenAPI form: `/cas/:hash` → `/cas/{hash}`. OpenAPI has no multi-segment parameter, so a
 * `*name` tail is `{name}` too (its description says it spans segments).
 */
export function openApiPath(path: string): string {
  return path.replace(/[:*](\w+)/g, '{$1}');
}

/** The token a route's class asks for: read tokens for GET, write tokens otherwise (the token rules' split). */
export function tokenKind(method: HttpMethod): 'read' | 'write' {
  return READ_METHODS.has(method) ? 'read' : 'write';
}

interface ExpressLayer {
  route?: { path: string; methods: Record<string, boolean> };
  handle?: { stack?: ExpressLayer[] };
}

/**
 * Every method and path the kit's express app routes (fast routes are routed there too), as
 * `GET /cas/:hash`: what a table is checked against, so that a route mounted outside the table shows.
 */
export function mountedRoutes(http: HttpApp): string[] {
  const found: string[] = [];
  const walk = (stack: readonly ExpressLayer[]): void => {
    for (const layer of stack) {
      if (layer.route) {
        for (const [method, on] of Object.entries(layer.route.methods))
          // A `*name` tail as `:name`: the form `documentedRoutes` reads `{name}` back in.
          if (on && method !== '_all')
            found.push(`${method.toUpperCase()} ${layer.route.path.replace(/\*(\w+)/g, ':$1')}`);
      } else if (layer.handle?.stack) {
        walk(layer.handle.stack);
      }
    }
  };
  walk((http.app as unknown as { router: { stack: ExpressLayer[] } }).router.stack);
  return found;
}
