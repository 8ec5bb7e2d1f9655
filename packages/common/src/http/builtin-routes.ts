import { Router, type Request } from 'express';
import { badRequest } from '../errors/index.js';
import { currentLogSpec, setLogLevels } from '../log/index.js';
import type { Metrics } from '../metrics/index.js';
import type { HealthChecks } from './health.js';
import './request.js';

export interface BuiltinRoutes {
  /** `GET /healthcheck`. Default true. */
  health?: boolean;
  /** `GET /metrics`. Default true; services that expose metrics on a separate listener turn it off. */
  metrics?: boolean;
  /** `GET /loglevels`, `POST /loglevels`. Default true. */
  logLevels?: boolean;
}

/** A text body whatever its content type (a spec sent by `curl -d` arrives form-encoded). */
function textBody(req: Request): string {
  if (typeof req.body === 'string') return req.body;
  if (Buffer.isBuffer(req.body)) return req.body.toString('utf8');
  throw badRequest('expected a text/plain body with a log level spec such as "anchor-writer=debug:info"');
}

export function builtinRoutes(enabled: BuiltinRoutes, health: HealthChecks, metrics: Metrics): Router {
  const router = Router({ caseSensitive: true });
  if (enabled.health ?? true) {
    router.get('/healthcheck', async (_req, res) => {
      const report = await health.evaluate();
      res.status(report.healthy ? 200 : 503).set('Cache-Control', 'no-store').json(report.body);
    });
  }
  if (enabled.metrics ?? true) {
    router.get('/metrics', async (_req, res) => {
      const { contentType, body } = await metrics.exposition();
      res.set('Content-Type', contentType).send(body);
    });
  }
  if (enabled.logLevels ?? true) {
    router.get('/loglevels', (_req, res) => {
      res.type('text/plain').send(currentLogSpec());
    });
    router.post('/loglevels', (req, res) => {
      setLogLevels(textBody(req));
      res.type('text/plain').send(currentLogSpec());
    });
  }
  return router;
}
