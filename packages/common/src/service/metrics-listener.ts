import type { HostPort } from '../config/index.js';
import { startHttpServer, type RunningHttpServer } from '../http/index.js';
import type { Metrics } from '../metrics/index.js';

/** `/metrics` alone on a listener of its own (trustbloc/vct's `--metrics-host`); everything else is 404. */
export async function startMetricsListener(metrics: Metrics, where: HostPort): Promise<RunningHttpServer> {
  return startHttpServer(
    (req, res) => {
      if (req.method === 'GET' && (req.url ?? '').split('?')[0] === '/metrics') {
        void metrics
          .exposition()
          .then(({ contentType, body }) => res.writeHead(200, { 'content-type': contentType }).end(body));
      } else {
        res
          .writeHead(404, { 'content-type': 'application/json' })
          .end(JSON.stringify({ message: `no route for ${req.method ?? 'GET'} ${req.url ?? '/'}` }));
      }
    },
    { host: where.host, port: where.port },
  );
}
