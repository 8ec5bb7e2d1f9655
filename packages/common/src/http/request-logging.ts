import type { Request, RequestHandler } from 'express';
import type { Logger } from '../log/index.js';
import type { Metrics } from '../metrics/index.js';

/** The route template a request matched (bounded label values), or `unmatched`. */
function routeOf(req: Request): string {
  const route = (req as { route?: { path?: unknown } }).route;
  return route?.path === undefined ? 'unmatched' : `${req.baseUrl}${String(route.path)}`;
}

/**
 * Logs each request at debug (method, path, status, duration) and observes
 * `<prefix>http_request_duration_seconds{method, route, status}`. Requests the client abandons are
 * recorded with status `aborted`.
 */
export function requestLogging(log: Logger, metrics: Metrics): RequestHandler {
  const seconds = metrics.histogram({
    name: 'http_request_duration_seconds',
    help: 'Seconds to serve an HTTP request',
    labelNames: ['method', 'route', 'status'],
  });
  return (req, res, next) => {
    const started = process.hrtime.bigint();
    const path = req.path;
    res.once('close', () => {
      const elapsed = Number(process.hrtime.bigint() - started) / 1e9;
      const status = res.writableFinished ? String(res.statusCode) : 'aborted';
      seconds.observe({ method: req.method, route: routeOf(req), status }, elapsed);
      log.debug('request', () => ({ method: req.method, path, status, durationMs: Math.round(elapsed * 1e4) / 10 }));
    });
    next();
  };
}
