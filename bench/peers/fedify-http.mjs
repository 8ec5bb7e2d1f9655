/**
 * The Fedify sender's serving half (`npm run bench -- peers`): a Fedify federation served by node:http on
 * loopback (Fedify speaks the Fetch API's Request and Response; node:http is the server both our node and
 * these peers run on), a few routes of the bench's own (`/count`, `/cpu`), and a context loader that serves the
 * JSON-LD contexts the bench hands it (`--context URL=FILE`: our node's activities name the ActivityAnchors
 * context, which a real receiver would have cached) before Fedify's own preloaded ones.
 */
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { fetchDocumentLoader } from '@fedify/fedify';

export function args() {
  const [portText, ...rest] = process.argv.slice(2);
  const port = Number(portText);
  if (!Number.isInteger(port) || port <= 0) throw new Error('the first argument is the port');
  const contexts = new Map();
  const options = {};
  for (let i = 0; i < rest.length; i += 2) {
    const [flag, value] = [rest[i], rest[i + 1] ?? ''];
    if (flag === '--context') {
      const at = value.indexOf('=');
      contexts.set(value.slice(0, at), JSON.parse(readFileSync(value.slice(at + 1), 'utf8')));
    } else options[flag.replace(/^--/, '')] = value;
  }
  return { port, origin: `http://127.0.0.1:${port}`, contexts, options };
}

export function contextLoader(contexts) {
  return async (url) =>
    contexts.has(url)
      ? { contextUrl: null, documentUrl: url, document: contexts.get(url) }
      : fetchDocumentLoader(url, true);
}

export const cpuMicros = () => {
  const { user, system } = process.cpuUsage();
  return user + system;
};

/**
 * Serves `federation` on 127.0.0.1:`port`. `routes` answers the bench's own GETs first (path ->
 * (query) => text or a promise of it); `statuses` counts Fedify's answers to POSTs by status code.
 */
export function serve(federation, port, routes, statuses = new Map()) {
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', `http://${req.headers.host}`);
    const own = req.method === 'GET' ? routes[url.pathname] : undefined;
    if (own) {
      Promise.resolve(own(url.searchParams)).then(
        (text) => res.writeHead(200, { 'content-type': 'text/plain' }).end(String(text)),
        (error) => res.writeHead(500, { 'content-type': 'text/plain' }).end(String(error)),
      );
      return;
    }
    const chunks = [];
    req.on('data', (chunk) => chunks.push(chunk));
    req.on('end', async () => {
      try {
        const headers = new Headers();
        for (const [name, value] of Object.entries(req.headers))
          if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(', ') : value);
        const body = chunks.length > 0 ? Buffer.concat(chunks) : undefined;
        const request = new Request(url, {
          method: req.method,
          headers,
          ...(body && req.method !== 'GET' && req.method !== 'HEAD' ? { body } : {}),
        });
        const response = await federation.fetch(request, { contextData: undefined });
        if (req.method === 'POST') statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
        res.writeHead(response.status, Object.fromEntries(response.headers));
        res.end(Buffer.from(await response.arrayBuffer()));
      } catch (error) {
        res.writeHead(500, { 'content-type': 'text/plain' }).end(String(error));
      }
    });
  });
  server.keepAliveTimeout = 60_000;
  return new Promise((resolve) => server.listen(port, '127.0.0.1', () => resolve(server)));
}
