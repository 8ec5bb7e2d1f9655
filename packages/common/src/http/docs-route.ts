import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { notFound } from '../errors/index.js';
import { answer } from './handler.js';
import type { RouteSpec } from './route-spec.js';

/**
 * `GET /docs`: the service's API documentation, rendered in the browser by Swagger UI from the service's own
 * `/openapi.json`. Everything the page loads is served here from the bundled swagger-ui-dist package (nothing
 * from a CDN, no validator badge), by relative URLs, so it works behind a path prefix and offline.
 */
const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>API documentation</title>
<link rel="stylesheet" href="docs/swagger-ui.css">
</head>
<body>
<div id="swagger-ui"></div>
<script src="docs/swagger-ui-bundle.js"></script>
<script src="docs/init.js"></script>
</body>
</html>
`;

// A file of its own, not an inline script: the kit's Content-Security-Policy allows scripts from 'self' only.
const INIT = `window.ui = SwaggerUIBundle({
  url: new URL('openapi.json', window.location.href.replace(/\\/docs\\/?$/, '/')).href,
  dom_id: '#swagger-ui',
  validatorUrl: null,
  deepLinking: true,
});
`;

const ASSETS: Readonly<Record<string, string>> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
};

let distDir: string | undefined;
const cache = new Map<string, Buffer>();

function asset(name: string): Buffer {
  let bytes = cache.get(name);
  if (bytes === undefined) {
    distDir ??= dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
    bytes = readFileSync(join(distDir, name));
    cache.set(name, bytes);
  }
  return bytes;
}

export function docsRoutes(): RouteSpec[] {
  return [
    {
      method: 'GET',
      path: '/docs',
      auth: 'open',
      tag: 'operations',
      summary: 'the API documentation of this service (Swagger UI over `/openapi.json`, served from here)',
      responses: { 200: { description: 'the page', mediaType: 'text/html' } },
      handler: () => answer({ text: PAGE, type: 'text/html' }),
    },
    {
      method: 'GET',
      path: '/docs/:asset',
      params: { asset: 'a file of the documentation page' },
      auth: 'open',
      tag: 'operations',
      summary: "the documentation page's scripts and style (`swagger-ui-bundle.js`, `swagger-ui.css`, `init.js`)",
      responses: {
        200: { description: 'the file', mediaType: 'text/javascript' },
        404: 'no such file of the documentation page',
      },
      handler: (req) => {
        const name = String(req.params['asset']);
        if (name === 'init.js') return answer({ text: INIT, type: 'text/javascript' });
        const type = ASSETS[name];
        if (type === undefined) throw notFound(`no documentation file ${name}`);
        return answer({ bytes: asset(name), type, headers: { 'Cache-Control': 'public, max-age=86400' } });
      },
    },
  ];
}
