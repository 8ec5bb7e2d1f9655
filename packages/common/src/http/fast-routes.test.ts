import { describe, expect, it } from 'vitest';
import { badRequest, unauthorized } from '../errors/index.js';
import { createMetrics } from '../metrics/index.js';
import { bearer, call, serve, type Reply } from './http.test-helpers.js';
import { createHttpApp, formatByteSize, parseByteSize, type HttpAppOptions } from './index.js';
import type { RouteRequest } from './handler.js';
import type { SignatureAuthenticator } from './principal.js';

/** One app with a GET and a POST fast route; `fast` serves its listener, `viaExpress` the express app alone. */
async function startBoth(options: HttpAppOptions = {}) {
  const http = createHttpApp({
    metrics: createMetrics({ prefix: 'test_', processMetrics: false }),
    bodyLimit: '1kb',
    ...options,
  });
  http.fastRoutes
    .get('/:alias/v1/items/:id', (req) => ({
      contentType: 'application/json',
      body: JSON.stringify({ alias: req.params.alias, id: req.params.id, path: req.path, q: req.query.getAll('q') }),
    }))
    // Headers of its own: one new, one replacing a security header, one the kit always sets itself.
    .get('/:alias/v1/varied', () => ({
      contentType: 'application/json',
      body: '{}',
      headers: { Vary: 'Accept', 'x-frame-options': 'DENY', 'Content-Type': 'text/plain' },
    }))
    // A `*name` tail and a binary answer (a tlog tile): bytes as they are, no charset.
    .get('/:alias/tile/*tile', (req) => ({
      contentType: 'application/octet-stream',
      body: Buffer.from([0, 255, 0xc3, 0x28, req.params.tile?.split('/').length ?? 0]),
      headers: { 'X-Tile': req.params.tile ?? '' },
    }))
    .post('/:alias/v1/add', (req) => {
      if (req.body === undefined) throw badRequest('a body is required');
      let parsed: unknown;
      try {
        parsed = JSON.parse(req.body.toString('utf8'));
      } catch {
        throw badRequest('not JSON');
      }
      return { contentType: 'application/did+ld+json', body: JSON.stringify({ got: parsed }), status: 201 };
    });
  const fast = await serve(http.listener);
  const viaExpress = await serve(http.app);
  return { http, fast: fast.url, viaExpress: viaExpress.url };
}

/** What a client sees of an answer, without the headers that vary per response. */
function visible(reply: Reply) {
  const headers = Object.fromEntries(
    [...reply.headers].filter(([name]) => !['date', 'etag', 'keep-alive', 'connection'].includes(name)),
  );
  return { status: reply.status, text: reply.text, headers };
}

describe('fast routes', () => {
  it('answer on the fast path exactly as through express: bodies, statuses, errors, headers', async () => {
    const { fast, viaExpress } = await startBoth();
    const requests: Array<[string, RequestInit]> = [
      ['/main/v1/items/a%3Ab?q=1&r=2', {}],
      ['/main/v1/items/a%3Ab?q=1&q=2', {}],
      ['/main/v1/varied', {}],
      ['/main/v1/items/x/', {}],
      ['/main/v1/add', { method: 'POST', body: '{"a":1}', headers: { 'content-type': 'application/json' } }],
      ['/main/v1/add', { method: 'POST', body: '{"a":', headers: { 'content-type': 'application/json' } }],
      ['/main/v1/add', { method: 'POST' }],
      ['/main/v1/add', { method: 'POST', body: 'x'.repeat(2000), headers: { 'content-type': 'application/json' } }],
      [
        '/main/v1/add',
        { method: 'POST', body: '{}', headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' } },
      ],
      ['/main/v1/nothing', {}],
    ];
    for (const [path, init] of requests) {
      const a = visible(await call(`${fast}${path}`, init));
      const b = visible(await call(`${viaExpress}${path}`, init));
      expect(a, path).toEqual(b);
    }
    const item = await call(`${fast}/main/v1/items/a%3Ab?q=1&r=2`);
    expect(item.json).toEqual({ alias: 'main', id: 'a:b', path: '/main/v1/items/a%3Ab', q: ['1'] });
    expect(item.headers.get('x-frame-options')).toBe('SAMEORIGIN');
    const varied = await call(`${fast}/main/v1/varied`);
    expect([...varied.headers].filter(([name]) => name === 'x-frame-options' || name === 'vary')).toEqual([
      ['vary', 'Accept'],
      ['x-frame-options', 'DENY'],
    ]);
    expect(varied.headers.get('content-type')).toBe('application/json; charset=utf-8');
    const malformed = await call(`${fast}/main/v1/add`, {
      method: 'POST',
      body: '{"a":',
      headers: { 'content-type': 'application/json' },
    });
    expect(malformed).toMatchObject({ status: 400, json: { message: 'not JSON' } });
    const tooLarge = await call(`${fast}/main/v1/add`, { method: 'POST', body: 'x'.repeat(2000) });
    expect(tooLarge).toMatchObject({ status: 413, json: { message: 'request body exceeds the limit of 1024 bytes' } });
  });

  it('answer bytes as they are, and a `*name` tail as its segments joined, on both paths', async () => {
    const { fast, viaExpress } = await startBoth();
    for (const base of [fast, viaExpress]) {
      const response = await fetch(`${base}/main/tile/entries/x001/234.p/5`);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('application/octet-stream');
      expect(response.headers.get('x-tile')).toBe('entries/x001/234.p/5');
      expect(Buffer.from(await response.arrayBuffer())).toEqual(Buffer.from([0, 255, 0xc3, 0x28, 4]));
      expect(response.headers.get('content-length')).toBe('5');
      expect((await fetch(`${base}/main/tile`)).status).toBe(404);
    }
  });

  it("apply the token rules with the kit's 401s", async () => {
    const { fast, viaExpress } = await startBoth({ auth: { rules: [{ path: '/main', read: ['r'], write: ['w'] }] } });
    for (const base of [fast, viaExpress]) {
      expect(await call(`${base}/main/v1/items/1`)).toMatchObject({
        status: 401,
        json: { message: 'credentials required: a bearer token or an HTTP signature' },
      });
      const wrong = await call(`${base}/main/v1/items/1`, { headers: bearer('w') });
      expect(wrong).toMatchObject({ status: 401, json: { message: 'invalid bearer token' } });
      expect(wrong.headers.get('www-authenticate')).toBe('Bearer error="invalid_token"');
      expect((await call(`${base}/main/v1/items/1`, { headers: bearer('r') })).status).toBe(200);
      expect((await call(`${base}/main/v1/add`, { method: 'POST', body: '{}', headers: bearer('w') })).status).toBe(
        201,
      );
      expect((await call(`${base}/open/v1/items/1`)).status).toBe(200);
    }
  });

  it('leave signed requests to express when the kit verifies signatures', async () => {
    const seen: string[] = [];
    const signatureAuthenticator: SignatureAuthenticator = async (req) => {
      seen.push(req.originalUrl);
      return { actor: 'https://peer.example/actor', keyId: 'https://peer.example/actor#key' };
    };
    const { fast } = await startBoth({ auth: { rules: [{ path: '/main', read: ['r'] }], signatureAuthenticator } });
    expect((await call(`${fast}/main/v1/items/1`, { headers: { signature: 'keyId="k"' } })).status).toBe(200);
    expect((await call(`${fast}/open/v1/items/1`)).status).toBe(200);
    expect(seen).toEqual(['/main/v1/items/1']);
  });

  it('verify signatures on a signed route themselves, on the fast path as through express', async () => {
    const verified: Array<{ url: string; body: string | undefined }> = [];
    const signatureAuthenticator: SignatureAuthenticator = async (req) => {
      if (req.headers.signature === undefined) return undefined;
      if (req.headers.signature !== 'good') throw unauthorized('the signature does not verify');
      verified.push({ url: req.originalUrl, body: req.rawBody?.toString('utf8') });
      return { actor: 'https://peer.example/actor', keyId: 'https://peer.example/actor#key' };
    };
    const http = createHttpApp({
      metrics: createMetrics({ prefix: 'test_', processMetrics: false }),
      bodyLimit: '1kb',
      auth: { rules: [{ path: '/guarded', write: ['w'] }], signatureAuthenticator },
    });
    // Answers with what the kit told the handler.
    const who = (req: RouteRequest) => ({
      contentType: 'application/json',
      body: JSON.stringify({ principal: req.principal, authorized: req.authorized, body: req.body?.toString('utf8') }),
    });
    http.fastRoutes.post('/open/inbox', who, { signed: true }).post('/guarded/inbox', who, { signed: true });
    const fast = (await serve(http.listener)).url;
    const viaExpress = (await serve(http.app)).url;
    const post = (base: string, path: string, headers: Record<string, string>, body = '{"a":1}') =>
      call(`${base}${path}`, { method: 'POST', body, headers: { 'content-type': 'application/json', ...headers } });
    const signer = { kind: 'signature', actor: 'https://peer.example/actor', keyId: 'https://peer.example/actor#key' };

    for (const base of [fast, viaExpress]) {
      // A valid signature: the signer, checked over the exact bytes received.
      expect((await post(base, '/open/inbox?x=1', { signature: 'good' })).json).toEqual({
        principal: signer,
        authorized: true,
        body: '{"a":1}',
      });
      expect((await post(base, '/guarded/inbox', { signature: 'good' })).json).toEqual({
        principal: signer,
        authorized: false,
        body: '{"a":1}',
      });
      // None: the kit does not refuse, the handler decides.
      expect((await post(base, '/open/inbox', {})).json).toEqual({
        principal: { kind: 'anonymous' },
        authorized: true,
        body: '{"a":1}',
      });
      expect((await post(base, '/guarded/inbox', {})).json).toEqual({
        principal: { kind: 'anonymous' },
        authorized: false,
        body: '{"a":1}',
      });
      // A bad one: the authenticator's 401.
      expect(await post(base, '/open/inbox', { signature: 'forged' })).toMatchObject({
        status: 401,
        json: { message: 'the signature does not verify' },
      });
      // A token the rules define must match; a matching one stands instead of a signature.
      expect((await post(base, '/guarded/inbox', { ...bearer('w'), signature: 'forged' })).json).toEqual({
        principal: { kind: 'token' },
        authorized: true,
        body: '{"a":1}',
      });
      expect(await post(base, '/guarded/inbox', { ...bearer('nope'), signature: 'good' })).toMatchObject({
        status: 401,
        json: { message: 'invalid bearer token' },
      });
      // An oversized body is refused before any signature work.
      expect(await post(base, '/open/inbox', { signature: 'good' }, 'x'.repeat(2000))).toMatchObject({ status: 413 });
    }
    expect(verified.map((entry) => entry.url)).toEqual([
      '/open/inbox?x=1',
      '/guarded/inbox',
      '/open/inbox?x=1',
      '/guarded/inbox',
    ]);
    expect(verified.every((entry) => entry.body === '{"a":1}')).toBe(true);
  });

  it('record requests in http_request_duration_seconds under the route template', async () => {
    const { http, fast } = await startBoth();
    await call(`${fast}/main/v1/items/7`);
    await call(`${fast}/main/v1/add`, { method: 'POST' });
    const text = (await http.metrics.exposition()).body;
    expect(text).toMatch(
      /test_http_request_duration_seconds_count\{method="GET",route="\/:alias\/v1\/items\/:id",status="200"\} 1/,
    );
    expect(text).toMatch(
      /test_http_request_duration_seconds_count\{method="POST",route="\/:alias\/v1\/add",status="400"\} 1/,
    );
  });

  it('read body limits as express does', () => {
    expect(parseByteSize('2mb')).toBe(2 * 1024 * 1024);
    expect(parseByteSize('100kb')).toBe(102_400);
    expect(parseByteSize('1.5KB')).toBe(1536);
    expect(parseByteSize('512')).toBe(512);
    expect(() => parseByteSize('lots')).toThrow(/not a size/);
    for (const [bytes, text] of [
      [64 * 1024 ** 2, '64mb'],
      [1536, '1536'],
      [1536 * 1024, '1536kb'],
      [0, '0'],
    ] as const) {
      expect(formatByteSize(bytes)).toBe(text);
      expect(parseByteSize(formatByteSize(bytes))).toBe(bytes);
    }
  });
});
