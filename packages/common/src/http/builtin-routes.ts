import { badRequest } from '../errors/index.js';
import { currentLogSpec, setLogLevels } from '../log/index.js';
import type { Metrics } from '../metrics/index.js';
import { docsRoutes } from './docs-route.js';
import type { HealthChecks } from './health.js';
import { textBody } from './body-parsing.js';
import { answer, type RouteRequest } from './handler.js';
import type { RouteSpec } from './route-spec.js';

/**
 * Which built-in routes a service serves. `'open'` serves one to anyone whatever the token rules (the
 * vct-log's, as trustbloc/vct); `true` puts it behind the token rules like the service's read routes.
 */
export interface BuiltinRoutes {
  /** `GET /healthcheck`. Default true. */
  health?: boolean | 'open';
  /**
   * `GET /healthcheck` answers with `Access-Control-Allow-Origin: *`, so a page of another origin may read it
   * (the node's, for other nodes' explorers). Default false: a health body carries the error texts of its
   * checks (a database or kms address among them), not for any page a browser on the service's network opens.
   */
  healthAnyOrigin?: boolean;
  /** `GET /metrics`. Default true; services that expose metrics on a separate listener turn it off. */
  metrics?: boolean | 'open';
  /** `GET /loglevels`, `POST /loglevels`. Default true. */
  logLevels?: boolean;
  /** `GET /docs` (the API documentation over the service's `/openapi.json`) and its files. Default true. */
  docs?: boolean;
}

/** The level spec sent, whatever its content type (a spec sent by `curl -d` arrives form-encoded). */
function levelSpec(req: RouteRequest): string {
  const text = textBody(req);
  if (text === undefined)
    throw badRequest('expected a text/plain body with a log level spec such as "anchor-writer=debug:info"');
  return text;
}

/** The routes every service serves, as route-table entries (`createHttpApp` mounts them; `http.builtinRoutes`). */
export function builtinRoutes(enabled: BuiltinRoutes, health: HealthChecks, metrics: Metrics): RouteSpec[] {
  const routes: RouteSpec[] = [];
  const healthRoute = enabled.health ?? true;
  if (healthRoute !== false) {
    routes.push({
      method: 'GET',
      path: '/healthcheck',
      auth: healthRoute === 'open' ? 'open' : 'read',
      tag: 'operations',
      summary: 'the health of the service and of what it depends on (database, queue, keys, ...), as JSON',
      responses: {
        200: { description: 'healthy (or in maintenance)', mediaType: 'application/json' },
        503: { description: 'starting, or a dependency is unhealthy: the same report', mediaType: 'application/json' },
      },
      handler: async () => {
        const report = await health.evaluate();
        return answer({
          json: report.body,
          status: report.healthy ? 200 : 503,
          headers: {
            ...(enabled.healthAnyOrigin === true ? { 'Access-Control-Allow-Origin': '*' } : {}),
            'Cache-Control': 'no-store',
          },
        });
      },
    });
  }
  const metricsRoute = enabled.metrics ?? true;
  if (metricsRoute !== false) {
    routes.push({
      method: 'GET',
      path: '/metrics',
      auth: metricsRoute === 'open' ? 'open' : 'read',
      tag: 'operations',
      summary: 'Prometheus text exposition format 0.0.4',
      responses: { 200: { description: 'the metrics', mediaType: 'text/plain' } },
      handler: async () => {
        const { contentType, body } = await metrics.exposition();
        return answer({ text: body, type: contentType });
      },
    });
  }
  if (enabled.logLevels ?? true) {
    routes.push(
      {
        method: 'GET',
        path: '/loglevels',
        auth: 'read',
        tag: 'operations',
        summary: 'the current log level spec as text, `module=level:...:default`',
        responses: { 200: { description: 'the level spec', mediaType: 'text/plain' } },
        handler: () => answer({ text: currentLogSpec() }),
      },
      {
        method: 'POST',
        path: '/loglevels',
        auth: 'write',
        tag: 'operations',
        summary:
          'sets the log levels from a text/plain spec `module1=level1:module2=level2:default` (levels error, warning, info, debug; any case); answers the new spec',
        body: {
          mediaTypes: ['text/plain'],
          schema: { type: 'string' },
          description: 'a level spec, e.g. `anchor-writer=debug:info`',
        },
        responses: {
          200: { description: 'the new level spec', mediaType: 'text/plain' },
          400: 'an unknown level, a spec without the default last, an empty spec or a module named twice; no level changes',
        },
        handler: (req) => {
          setLogLevels(levelSpec(req));
          return answer({ text: currentLogSpec() });
        },
      },
    );
  }
  if (enabled.docs ?? true) routes.push(...docsRoutes());
  return routes;
}
