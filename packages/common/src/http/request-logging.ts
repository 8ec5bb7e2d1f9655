import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Request, RequestHandler } from 'express';
import type { Logger } from '../log/index.js';
import type { Metrics } from '../metrics/index.js';

/**
 * Watches one request until its response closes: logs it at debug (method, path, status, duration) and
 * observes `<prefix>http_request_duration_seconds{method, route, status}`. Requests the client abandons are
 * recorded with status `aborted`. `route` is asked at the end (express knows it only after routing).
 */
export type RequestObserver = (req: IncomingMessage, res: ServerResponse, path: string, route: () => string) => void;

export function requestObserver(log: Logger, metrics: Metrics): RequestObserver {
  const seconds = metrics.histogram({
    name: 'http_request_duration_seconds',
    help: 'Seconds to serve an HTTP request',
    labelNames: ['method', 'route', 'status'],
  });
  return (req, res, path, route) => {
    const started = process.hrtime.bigint();
    res.once('close', () => {
      const elapsed = Number(process.hrtime.bigint() - started) / 1e9;
      const status = res.writableFinished ? String(res.statusCode) : 'aborted';
      seconds.observe({ method: req.method ?? 'GET', route: route(), status }, elapsed);
      log.debug('request', () => ({ method: req.method, path, status, durationMs: Math.round(elapsed * 1e4) / 10 }));
    });
  };
}

/** The route template a request matched (bounded label values), or `unmatched`. */
function routeOf(req: Request): string {
  const route = (req as { route?: { path?: unknown } }).route;
  return route?.path === undefined ? 'unmatched' : `${req.baseUrl}${String(route.path)}`;
}

/** The express side of `RequestObserver`: every request the app serves. */
export function requestLogging(observe: RequestObserver): RequestHandler {
  return (req, res, next) => {
    observe(req, res, req.path, () => routeOf(req));
    next();
  };
}
