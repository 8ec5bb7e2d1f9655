import { describe, expect, it } from 'vitest';
import { createMetrics } from '../metrics/index.js';
import { call, captureLogs, serve } from './http.test-helpers.js';
import { createHttpApp } from './index.js';

/**
 * Malformed percent-escapes in a path parameter (`%zz`, a lone `%`, invalid UTF-8 such as `%ff%fe` or the
 * overlong `%c0%ae`) are the client's mistake: 400 with one short message on express and on the fast path,
 * and no ERROR line with a stack trace (which let anyone flood the logs).
 */
const BAD = ['%zz', '%', '%ff%fe', '%c0%ae', 'a%2', '%E0%A4%A'];

async function start() {
  const http = createHttpApp({ metrics: createMetrics({ prefix: 'test_', processMetrics: false }) });
  http.routes.get('/cas/:hash', (req, res) => {
    res.json({ hash: req.params.hash });
  });
  http.fastRoutes.get('/sidetree/v1/identifiers/:did', (req) => ({
    contentType: 'application/json',
    body: JSON.stringify({ did: req.params.did }),
  }));
  // A handler decoding part of the URL itself fails the same way.
  http.routes.get('/scid/:id/did.json', (req, res) => {
    res.json({ id: decodeURIComponent(req.url.split('/')[2] ?? '') });
  });
  return (await serve(http.listener)).url;
}

describe('malformed percent-escapes in the URL', () => {
  it('answer 400 with one line on express routes, fast routes and handlers that decode', async () => {
    const logs = captureLogs('debug');
    const url = await start();
    for (const bad of BAD) {
      for (const path of [`/cas/${bad}`, `/sidetree/v1/identifiers/${bad}`, `/scid/${bad}/did.json`]) {
        const reply = await call(`${url}${path}`);
        expect(reply.status, path).toBe(400);
        expect(reply.json, path).toEqual({ message: 'malformed percent-encoding in the request URL' });
      }
    }
    const errors = logs.entries().filter((entry) => entry.level === 'error');
    expect(errors).toEqual([]);
    // Well-formed escapes still decode.
    expect((await call(`${url}/cas/a%3Ab`)).json).toEqual({ hash: 'a:b' });
    expect((await call(`${url}/sidetree/v1/identifiers/did%3Anode%3Ax`)).json).toEqual({ did: 'did:node:x' });
  });
});
