import http from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { AppError, conflict } from '../errors/index.js';
import { currentLogSpec, setLogLevels } from '../log/index.js';
import { createMetrics } from '../metrics/index.js';
import { parsePrometheusText } from '../metrics/prometheus-text.test-helpers.js';
import { call, captureLogs, serve } from './http.test-helpers.js';
import { createHttpApp, jsonBody, type HttpAppOptions } from './index.js';

afterEach(() => setLogLevels('info'));

async function startApp(options: HttpAppOptions = {}) {
  const app = createHttpApp({ metrics: createMetrics({ prefix: 'node_', processMetrics: false }), ...options });
  app.routes.post('/echo', (req, res) => {
    res.json({
      body: req.body as unknown,
      type: Buffer.isBuffer(req.body) ? 'buffer' : typeof req.body,
      raw: req.rawBody?.toString('base64') ?? null,
    });
  });
  const server = await serve(app.app);
  return { app, url: server.url };
}

/** Sends a body in chunks without Content-Length, so only the parser's running count can enforce the limit. */
function postChunked(url: string, chunks: string[], contentType: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const request = http.request(
      `${url}/echo`,
      { method: 'POST', headers: { 'content-type': contentType, 'transfer-encoding': 'chunked' } },
      (response) => {
        let body = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (body += chunk));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
      },
    );
    request.on('error', reject);
    for (const chunk of chunks) request.write(chunk);
    request.end();
  });
}

describe('body parsing', () => {
  it.each([
    'application/json',
    'application/ld+json',
    'application/activity+json',
    'application/did+ld+json',
    'application/jrd+json; charset=utf-8',
    'application/ld+json; profile="https://www.w3.org/ns/activitystreams"',
  ])('parses %s as JSON and keeps the raw bytes', async (contentType) => {
    const { url } = await startApp();
    const text = '{ "a" : [1, 2],\n "b": "é" }';
    const reply = await call(`${url}/echo`, { method: 'POST', headers: { 'content-type': contentType }, body: text });
    expect(reply.status).toBe(200);
    expect(reply.json).toEqual({
      body: { a: [1, 2], b: 'é' },
      type: 'object',
      raw: Buffer.from(text).toString('base64'),
    });
  });

  it('accepts any JSON value, not only objects', async () => {
    const { url } = await startApp();
    const reply = await call(`${url}/echo`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '"https://a.example"',
    });
    expect(reply.json).toMatchObject({ body: 'https://a.example', type: 'string' });
  });

  it('gives text/plain bodies as strings and other types as buffers', async () => {
    const { url } = await startApp();
    const text = await call(`${url}/echo`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain' },
      body: 'all=debug:info',
    });
    expect(text.json).toMatchObject({ body: 'all=debug:info', type: 'string' });
    const bytes = Buffer.from([0, 1, 2, 255]);
    const binary = await call(`${url}/echo`, {
      method: 'POST',
      headers: { 'content-type': 'application/octet-stream' },
      body: bytes,
    });
    expect(binary.json).toMatchObject({ type: 'buffer', raw: bytes.toString('base64') });
  });

  it('leaves body-less and empty-bodied requests without a body', async () => {
    const { url } = await startApp();
    expect((await call(`${url}/echo`, { method: 'POST' })).json).toEqual({ type: 'undefined', raw: null });
    const emptyJson = await call(`${url}/echo`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '',
    });
    expect(emptyJson.json).toEqual({ type: 'undefined', raw: null });
    const emptyChunked = await postChunked(url, [], 'text/plain');
    expect(JSON.parse(emptyChunked.body)).toEqual({ type: 'undefined', raw: null });
  });

  it('answers malformed JSON with 400 and a reason', async () => {
    const { url } = await startApp();
    const reply = await call(`${url}/echo`, {
      method: 'POST',
      headers: { 'content-type': 'application/ld+json' },
      body: '{"a": ',
    });
    expect(reply.status).toBe(400);
    expect(reply.headers.get('content-type')).toMatch(/^application\/json/);
    expect((reply.json as { message: string }).message).toMatch(/^malformed JSON: .+/);
  });

  it('answers bodies past the limit with 413 and a JSON body, declared or streamed', async () => {
    const { url } = await startApp({ bodyLimit: 1024 });
    const within = await call(`${url}/echo`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify('x'.repeat(1000)),
    });
    expect(within.status).toBe(200);
    const declared = await call(`${url}/echo`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify('x'.repeat(1100)),
    });
    expect(declared.status).toBe(413);
    expect(declared.json).toEqual({ message: 'request body exceeds the limit of 1024 bytes' });
    const streamed = await postChunked(url, ['"', 'y'.repeat(700), 'y'.repeat(700), '"'], 'text/plain');
    expect(streamed.status).toBe(413);
    expect(JSON.parse(streamed.body)).toEqual({ message: 'request body exceeds the limit of 1024 bytes' });
  });

  it('reads JSON bodies strictly: a lone surrogate, a __proto__ member or a repeated member is a 400 naming it', async () => {
    const { url } = await startApp();
    const post = (body: string) =>
      call(`${url}/echo`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    expect(await post('{"issuer":"did:example:\\ud800"}')).toMatchObject({
      status: 400,
      json: { message: 'request body member issuer contains a lone UTF-16 surrogate escape, which has no UTF-8 form' },
    });
    expect(await post('{"claims":{"__proto__":{"admin":true}}}')).toMatchObject({
      status: 400,
      json: { message: expect.stringMatching(/member named claims\.__proto__/) },
    });
    expect((await post('{"a":1,"a":2}')).json).toEqual({
      message: 'request body has the member a more than once; duplicate member names are refused',
    });
  });

  it('gives handlers one JSON rule whatever the Content-Type (none, empty, text/plain): jsonBody', async () => {
    const app = createHttpApp({ metrics: createMetrics({ processMetrics: false }) });
    app.routes.post('/json', (req, res) => {
      res.json({ value: jsonBody(req, 'thing') });
    });
    const { url } = await serve(app.app);
    const send = (headers: Record<string, string>, body: string) =>
      new Promise<{ status: number; body: string }>((resolve, reject) => {
        const request = http.request(`${url}/json`, { method: 'POST', headers }, (response) => {
          let text = '';
          response.setEncoding('utf8');
          response.on('data', (chunk: string) => (text += chunk));
          response.on('end', () => resolve({ status: response.statusCode ?? 0, body: text }));
        });
        request.on('error', reject);
        request.end(body);
      });
    for (const headers of [
      { 'content-type': '' },
      {} as Record<string, string>,
      { 'content-type': 'text/plain' },
      { 'content-type': 'application/json' },
    ]) {
      expect(await send(headers, '{"name":"p"}')).toEqual({ status: 200, body: '{"value":{"name":"p"}}' });
      const refused = await send(headers, '{"name":"\\udc00"}');
      expect(refused.status).toBe(400);
      expect(refused.body).toMatch(/member name contains a lone UTF-16 surrogate/);
    }
    expect(await send({ 'content-type': '' }, '')).toEqual({
      status: 400,
      body: '{"message":"thing: a JSON body is required"}',
    });
  });

  it('refuses a repeated query parameter with 400, through express and on the fast path', async () => {
    const app = createHttpApp({ metrics: createMetrics({ processMetrics: false }) });
    app.routes.get('/slow', (req, res) => {
      res.json(req.query);
    });
    app.fastRoutes.get('/fast', (req) => ({ contentType: 'application/json', body: JSON.stringify([...req.query]) }));
    const { url } = await serve(app.listener);
    for (const path of ['/slow', '/fast']) {
      expect((await call(`${url}${path}?keyVersion=1&other=2`)).status).toBe(200);
      const repeated = await call(`${url}${path}?keyVersion=1&keyVersion=2`);
      expect(repeated).toMatchObject({
        status: 400,
        json: { message: "query parameter 'keyVersion' is given more than once" },
      });
      expect((await call(`${url}${path}?a=1&b=2&%61=3`)).json).toEqual({
        message: "query parameter 'a' is given more than once",
      });
    }
  });

  it('answers an unsupported charset with 415', async () => {
    const { url } = await startApp();
    const reply = await call(`${url}/echo`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain; charset=klingon' },
      body: 'x',
    });
    expect(reply.status).toBe(415);
    expect(reply.json).toEqual({ message: 'unsupported charset "KLINGON"' });
  });
});

describe('error mapping', () => {
  it('maps AppErrors to their status, headers and body with details', async () => {
    const { app, url } = await startApp();
    app.routes.get('/taken', async () => {
      await Promise.resolve();
      throw conflict('suffix already anchored', {
        details: { suffix: 'EiA', message: 'ignored' },
        headers: { 'Retry-After': '5' },
      });
    });
    const reply = await call(`${url}/taken`);
    expect(reply.status).toBe(409);
    expect(reply.headers.get('retry-after')).toBe('5');
    expect(reply.json).toEqual({ message: 'suffix already anchored', suffix: 'EiA' });
  });

  it('hides other errors behind a 500 and logs their stack', async () => {
    const logs = captureLogs();
    const { app, url } = await startApp();
    app.routes.get('/boom', () => {
      throw new TypeError('secret internals');
    });
    const reply = await call(`${url}/boom`);
    expect(reply.status).toBe(500);
    expect(reply.json).toEqual({ message: 'internal error' });
    const entry = logs.entries().find((e) => e.message === 'unhandled error');
    expect(entry).toMatchObject({ level: 'error', module: 'http', method: 'GET', path: '/boom' });
    expect((entry?.err as { stack: string }).stack).toMatch(/TypeError: secret internals\n\s+at /);
  });

  it('maps 5xx AppErrors with their own message', async () => {
    const { app, url } = await startApp();
    app.routes.get('/down', () => {
      throw new AppError('unavailable', 'database unavailable');
    });
    const reply = await call(`${url}/down`);
    expect(reply.status).toBe(503);
    expect(reply.json).toEqual({ message: 'database unavailable' });
  });

  it('answers unknown routes with a JSON 404', async () => {
    const { url } = await startApp();
    const reply = await call(`${url}/nowhere?x=1`, { method: 'DELETE' });
    expect(reply.status).toBe(404);
    expect(reply.json).toEqual({ message: 'no route for DELETE /nowhere' });
  });

  it('sets security headers', async () => {
    const { url } = await startApp();
    const reply = await call(`${url}/nowhere`);
    expect(reply.headers.get('x-content-type-options')).toBe('nosniff');
    expect(reply.headers.get('x-powered-by')).toBeNull();
  });
});

describe('/healthcheck', () => {
  it('is 200 with every status, the time and extra fields when all checks pass', async () => {
    const { app, url } = await startApp();
    app.health.register('dbStatus', async () => 'success');
    app.health.register('mqStatus', () => undefined);
    app.health.addFields(() => ({ version: '0.1.0', dbStatus: 'must not override' }));
    const reply = await call(`${url}/healthcheck`);
    expect(reply.status).toBe(200);
    const body = reply.json as Record<string, string>;
    expect(body).toMatchObject({ dbStatus: 'success', mqStatus: 'success', status: 'OK', version: '0.1.0' });
    expect(new Date(body.currentTime as string).toISOString()).toBe(body.currentTime);
    expect(reply.headers.get('cache-control')).toBe('no-store');
    // Not for other origins unless the service says so: its statuses may name internal addresses.
    expect(reply.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('answers any origin, healthy or not, only with healthAnyOrigin', async () => {
    const { app, url } = await startApp({ builtins: { healthAnyOrigin: true } });
    app.health.register('dbStatus', () => 'down');
    const reply = await call(`${url}/healthcheck`);
    expect(reply.status).toBe(503);
    expect(reply.headers.get('access-control-allow-origin')).toBe('*');
    // The header is the health route's only: the other built-ins stay same-origin.
    expect((await call(`${url}/metrics`)).headers.get('access-control-allow-origin')).toBeNull();
  });

  it('is 503 with the failing statuses when a check fails or throws', async () => {
    const { app, url } = await startApp();
    app.health.register('dbStatus', async () => 'success');
    app.health.register('mqStatus', () => 'not connected');
    app.health.register('kmsStatus', async () => {
      throw new Error('connect ECONNREFUSED 127.0.0.1:1');
    });
    const reply = await call(`${url}/healthcheck`);
    expect(reply.status).toBe(503);
    expect(reply.json).toMatchObject({
      dbStatus: 'success',
      mqStatus: 'not connected',
      kmsStatus: 'connect ECONNREFUSED 127.0.0.1:1',
      status: 'Unavailable',
    });
  });

  it('accepts declared non-success values as healthy', async () => {
    const { app, url } = await startApp();
    app.health.register('vctStatus', () => 'log endpoint not configured', {
      acceptable: ['disabled', 'log endpoint not configured'],
    });
    const reply = await call(`${url}/healthcheck`);
    expect(reply.status).toBe(200);
    expect(reply.json).toMatchObject({ vctStatus: 'log endpoint not configured' });
  });

  it('fails a check that hangs past its timeout without waiting for it', async () => {
    const { app, url } = await startApp({ health: { timeoutMs: 150 } });
    app.health.register('dbStatus', () => new Promise<string>(() => undefined));
    const started = Date.now();
    const reply = await call(`${url}/healthcheck`);
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(reply.status).toBe(503);
    expect(reply.json).toMatchObject({ dbStatus: 'health check timed out after 150 ms' });
  });

  it('stays 200 and reports maintenance in maintenance mode', async () => {
    const { app, url } = await startApp();
    app.health.register('dbStatus', () => 'down');
    app.health.setMaintenance(true);
    const reply = await call(`${url}/healthcheck`);
    expect(reply.status).toBe(200);
    expect(reply.json).toMatchObject({ dbStatus: 'down', status: 'Maintenance' });
  });

  it('is 503 "Starting" until the service says it has started, whatever its checks say', async () => {
    const { app, url } = await startApp();
    app.health.register('dbStatus', () => 'success');
    app.health.setStarting(true);
    expect(await call(`${url}/healthcheck`)).toMatchObject({
      status: 503,
      json: { dbStatus: 'success', status: 'Starting' },
    });
    app.health.setStarting(false);
    expect(await call(`${url}/healthcheck`)).toMatchObject({ status: 200, json: { status: 'OK' } });
  });

  it('supports the log service naming (current_time, no status field) and rejects duplicate names', async () => {
    const { app, url } = await startApp({ health: { timeField: 'current_time', statusField: null } });
    app.health.register('db', () => 'success');
    expect(() => app.health.register('db', () => 'success')).toThrow(/already in use/);
    const body = (await call(`${url}/healthcheck`)).json as Record<string, unknown>;
    expect(Object.keys(body)).toEqual(['db', 'current_time']);
  });
});

describe('/docs', () => {
  it('serves the API documentation page and every file it loads from here, with nothing from elsewhere', async () => {
    const { url } = await startApp();
    const page = await call(`${url}/docs`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    const loaded = [...page.text.matchAll(/(?:src|href)="([^"]+)"/g)].map((match) => match[1]!);
    expect(loaded.sort()).toEqual(['docs/init.js', 'docs/swagger-ui-bundle.js', 'docs/swagger-ui.css']);
    for (const file of loaded) {
      const reply = await call(`${url}/${file}`);
      expect(reply.status, file).toBe(200);
      expect(reply.headers.get('content-type'), file).toMatch(file.endsWith('.css') ? /^text\/css/ : /javascript/);
    }
    expect((await call(`${url}/docs/swagger-ui-bundle.js`)).text).toContain('SwaggerUIBundle');
    const init = (await call(`${url}/docs/init.js`)).text;
    expect(init).toContain("'openapi.json'");
    expect(init).toContain('validatorUrl: null');
    // The kit's policy lets the page run: scripts from this origin only, none inline.
    expect(page.headers.get('content-security-policy')).toMatch(/script-src 'self'/);
    expect(page.text).not.toMatch(/<script>[^<]/);
    expect((await call(`${url}/docs/..%2Fpackage.json`)).status).toBe(404);
    expect((await call(`${url}/docs/index.html`)).status).toBe(404);
  });

  it('is off when the service turns it off', async () => {
    const { url } = await startApp({ builtins: { docs: false } });
    expect((await call(`${url}/docs`)).status).toBe(404);
  });
});

describe('/loglevels', () => {
  it('returns the current spec as text', async () => {
    const { url } = await startApp();
    setLogLevels('anchor-writer=debug:warning');
    const reply = await call(`${url}/loglevels`);
    expect(reply.status).toBe(200);
    expect(reply.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(reply.text).toBe('anchor-writer=debug:warning');
  });

  it('applies a posted spec', async () => {
    const { url } = await startApp();
    const reply = await call(`${url}/loglevels`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain' },
      body: 'observer=DEBUG:WARN',
    });
    expect(reply.status).toBe(200);
    expect(currentLogSpec()).toBe('observer=debug:warning');
    expect((await call(`${url}/loglevels`)).text).toBe('observer=debug:warning');
    // curl -d sends form-encoded bodies; the spec is still plain text.
    await call(`${url}/loglevels`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'error',
    });
    expect(currentLogSpec()).toBe('error');
  });

  it.each([['observer=debug'], ['observer=loud:info'], [''], ['a=debug::info']])(
    'rejects %j with 400 and changes nothing',
    async (spec) => {
      const { url } = await startApp();
      setLogLevels('x=debug:info');
      const reply = await call(`${url}/loglevels`, {
        method: 'POST',
        headers: { 'content-type': 'text/plain' },
        body: spec,
      });
      expect(reply.status).toBe(400);
      expect((reply.json as { message: string }).message).toMatch(/log level/);
      expect(currentLogSpec()).toBe('x=debug:info');
    },
  );

  it('rejects a JSON object body', async () => {
    const { url } = await startApp();
    const reply = await call(`${url}/loglevels`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"level":"debug"}',
    });
    expect(reply.status).toBe(400);
    expect(currentLogSpec()).toBe('info');
  });
});

describe('/metrics and request observation', () => {
  it('serves Prometheus text including the request duration histogram', async () => {
    const { url } = await startApp();
    await call(`${url}/echo`, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'x' });
    await call(`${url}/nowhere`);
    const reply = await call(`${url}/metrics`);
    expect(reply.status).toBe(200);
    expect(reply.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    const text = parsePrometheusText(reply.text);
    expect(text.types.get('node_http_request_duration_seconds')).toBe('histogram');
    expect(
      text.value('node_http_request_duration_seconds_count', { method: 'POST', route: '/echo', status: '200' }),
    ).toBe(1);
    expect(
      text.value('node_http_request_duration_seconds_count', { method: 'GET', route: 'unmatched', status: '404' }),
    ).toBe(1);
  });

  it('logs each request at debug', async () => {
    const logs = captureLogs('http=debug:info');
    const { url } = await startApp();
    await call(`${url}/echo?secret=1`, { method: 'POST' });
    const entry = logs.entries().find((e) => e.message === 'request');
    expect(entry).toMatchObject({ level: 'debug', module: 'http', method: 'POST', path: '/echo', status: '200' });
    expect(typeof entry?.durationMs).toBe('number');
  });

  it('can leave built-in routes out', async () => {
    const { url } = await startApp({ builtins: { metrics: false, logLevels: false } });
    expect((await call(`${url}/metrics`)).status).toBe(404);
    expect((await call(`${url}/loglevels`)).status).toBe(404);
    expect((await call(`${url}/healthcheck`)).status).toBe(200);
  });
});
