import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { answer, type RouteSpec } from '@anchor/common/http';
import { notFound } from '@anchor/common/errors';

/** Where the explorer's page is served. */
export const EXPLORER_PATH = '/explorer/';

/**
 * Stricter than the kit's helmet default for the explorer's pages: scripts and styles from this node only,
 * nothing inline, no frames, no plugins; `connect-src` also allows other nodes, since `?node=<url>` points
 * the page at any node (reads of public endpoints only).
 */
export const EXPLORER_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self' http: https:",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

const ASSETS: Readonly<Record<string, string>> = {
  'explorer.js': 'text/javascript; charset=utf-8',
  'explorer.js.map': 'application/json; charset=utf-8',
  'explorer.css': 'text/css; charset=utf-8',
  // The in-page verifier, imported on the first "Verify".
  'verifier.js': 'text/javascript; charset=utf-8',
  'verifier.js.map': 'application/json; charset=utf-8',
  // The federation graph (cytoscape), imported by the federation page.
  'graph.js': 'text/javascript; charset=utf-8',
  'graph.js.map': 'application/json; charset=utf-8',
};

const PAGE_HEADERS = { 'Content-Security-Policy': EXPLORER_CSP, 'Cache-Control': 'no-cache' };

/** A URL for a Location header as express's `res.location` writes it (encodeurl): what is not allowed there percent-encoded, `%XX` kept. */
function encodeUrl(url: string): string {
  return url
    .replace(/(^|[^\uD800-\uDBFF])[\uDC00-\uDFFF]|[\uD800-\uDBFF]([^\uDC00-\uDFFF]|$)/g, '$1\uFFFD$2')
    .replace(
      /(?:[^\x21\x23-\x3B\x3D\x3F-\x5F\x61-\x7A\x7C\x7E]|%(?:[^0-9A-Fa-f]|[0-9A-Fa-f][^0-9A-Fa-f]|$))+/g,
      encodeURI,
    );
}

let distDir: string | undefined;
const cache = new Map<string, Buffer>();

// Read once, on first request: the built files do not change while the node runs.
function file(name: string): Buffer {
  let bytes = cache.get(name);
  if (bytes === undefined) {
    distDir ??= join(dirname(createRequire(import.meta.url).resolve('@anchor/explorer/package.json')), 'dist');
    bytes = readFileSync(join(distDir, name));
    cache.set(name, bytes);
  }
  return bytes;
}

/** `GET /explorer/` and its files, open to anyone: the page reads only public endpoints. */
export function explorerRoutes(): RouteSpec[] {
  return [
    {
      method: 'GET',
      path: EXPLORER_PATH,
      auth: 'open',
      tag: 'explorer',
      summary:
        "the explorer: a web page over this node's public endpoints (`?did=<any form>` opens a DID, `?node=<url>` reads another node)",
      responses: { 200: { description: 'the page', mediaType: 'text/html' } },
      handler: (req) => {
        // Relative asset URLs need the trailing slash (express matches `/explorer` here too).
        if (!req.path.endsWith('/')) {
          const at = req.url.indexOf('?');
          const location = encodeUrl(`${EXPLORER_PATH}${at < 0 ? '' : req.url.slice(at)}`);
          return answer({
            status: 301,
            text: `Moved Permanently. Redirecting to ${location}`,
            headers: { Location: location },
          });
        }
        return answer({ bytes: file('index.html'), type: 'text/html; charset=utf-8', headers: PAGE_HEADERS });
      },
    },
    {
      method: 'GET',
      path: `${EXPLORER_PATH}:asset`,
      params: {
        asset: 'a file of the explorer (`explorer.js`, `explorer.css`, `verifier.js`, `graph.js`, their source maps)',
      },
      auth: 'open',
      tag: 'explorer',
      summary: "the explorer's script, style sheet and source map",
      responses: {
        200: { description: 'the file', mediaType: 'text/javascript' },
        404: 'no such file of the explorer',
      },
      handler: (req) => {
        const name = String(req.params['asset']);
        const type = Object.hasOwn(ASSETS, name) ? ASSETS[name] : undefined;
        if (type === undefined) throw notFound(`no explorer file ${name}`);
        return answer({ bytes: file(name), type, headers: PAGE_HEADERS });
      },
    },
  ];
}
