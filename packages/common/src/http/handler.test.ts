import { request } from 'node:http';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createMetrics } from '../metrics/index.js';
import { defineSchema } from '../schemas/index.js';
import { call, serve } from './http.test-helpers.js';
import {
  answer,
  createHttpApp,
  isAuthorized,
  jsonBody,
  mountRoutes,
  parseTokenRules,
  requireAuthorization,
  textBody,
  type RouteSpec,
  type HttpApp,
  type RouteRequest,
} from './index.js';

const NOTE = defineSchema<{ text: string }>({
  $id: 'urn:anchor:schema:test:handler-note',
  type: 'object',
  required: ['text'],
  properties: { text: { type: 'string' } },
  additionalProperties: false,
});

const route = (spec: Omit<RouteSpec, 'tag' | 'summary' | 'responses'>): RouteSpec => ({
  tag: 'test',
  summary: 'a test route',
  responses: { 200: 'ok' },
  ...spec,
});

/** Both paths' routes of the one shape, on one app; `fast` serves its listener, `viaExpress` the express app alone. */
async function start(routes: (http: HttpApp) => RouteSpec[]) {
  const http = createHttpApp({ metrics: createMetrics({ prefix: 'test_', processMetrics: false }), bodyLimit: '1kb' });
  mountRoutes(http, [...http.builtinRoutes, ...routes(http)]);
  return { http, fast: (await serve(http.listener)).url, viaExpress: (await serve(http.app)).url };
}

const post = (url: string, body: string, contentType = 'application/json') =>
  call(url, { method: 'POST', body, headers: { 'content-type': contentType } });

describe('the one handler shape', () => {
  it('answers JSON through express with an ETag, and a fresh conditional GET with 304', async () => {
    const { fast } = await start(() => [
      route({
        method: 'GET',
        path: '/doc/:id',
        auth: 'read',
        params: { id: 'an id' },
        handler: (req) => answer({ json: { id: req.params['id'] } }),
      }),
    ]);
    const first = await call(`${fast}/doc/a%3Ab`);
    expect(first).toMatchObject({ status: 200, json: { id: 'a:b' } });
    expect(first.headers.get('content-type')).toBe('application/json; charset=utf-8');
    const etag = first.headers.get('etag');
    expect(etag).toMatch(/^W\/"/);
    // node:http, not fetch: fetch sends `Cache-Control: no-cache` with a conditional request, which is never fresh.
    const again = await new Promise<{ status: number; text: string }>((resolve, reject) => {
      request(`${fast}/doc/a%3Ab`, { headers: { 'if-none-match': etag as string } }, (res) => {
        let text = '';
        res.on('data', (chunk: Buffer) => (text += chunk.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
      })
        .on('error', reject)
        .end();
    });
    expect(again).toEqual({ status: 304, text: '' });
  });

  it('answers a fast route without an ETag, the same on the fast path and through express', async () => {
    const { fast, viaExpress } = await start(() => [
      route({
        method: 'GET',
        path: '/fast/:id',
        auth: 'read',
        fast: true,
        params: { id: 'an id' },
        handler: (req) =>
          answer({ json: { id: req.params['id'], q: req.query.get('q') }, headers: { Vary: 'Accept' } }),
      }),
    ]);
    for (const base of [fast, viaExpress]) {
      const reply = await call(`${base}/fast/7?q=x`);
      expect(reply).toMatchObject({ status: 200, json: { id: '7', q: 'x' } });
      expect(reply.headers.get('etag')).toBeNull();
      expect(reply.headers.get('vary')).toBe('Accept');
      expect(reply.headers.get('content-type')).toBe('application/json; charset=utf-8');
    }
  });

  it('reads a JSON body with jsonBody(req, schema): the value once parsed, 400s naming the problem', async () => {
    const seen: unknown[] = [];
    const handler = (req: RouteRequest) => {
      const note = jsonBody(req, NOTE, 'a note');
      // A second read is the same value, not a second parse.
      seen.push(jsonBody(req) === note);
      return answer({ json: { got: note.text }, status: 201 });
    };
    const { fast, viaExpress } = await start(() => [
      route({ method: 'POST', path: '/notes', auth: 'write', handler }),
      route({ method: 'POST', path: '/fast-notes', auth: 'write', fast: true, handler }),
    ]);
    for (const url of [`${fast}/notes`, `${fast}/fast-notes`, `${viaExpress}/fast-notes`]) {
      expect(await post(url, '{"text":"hi"}')).toMatchObject({ status: 201, json: { got: 'hi' } });
      // Whatever the Content-Type, the body is JSON.
      expect(await post(url, '{"text":"plain"}', 'text/plain')).toMatchObject({ status: 201, json: { got: 'plain' } });
      const wrong = await post(url, '{"text":1}');
      expect(wrong.status, url).toBe(400);
      expect((wrong.json as { message: string }).message).toBe('invalid a note: /text must be a string');
      expect(await post(url, '{"text":"a","x":1}')).toMatchObject({ status: 400 });
      expect(await post(url, '{"text":')).toMatchObject({ status: 400 });
      expect(await post(url, '{"text":"a","text":"b"}')).toMatchObject({ status: 400 });
      expect(await call(url, { method: 'POST' })).toMatchObject({
        status: 400,
        json: { message: 'a note: a JSON body is required' },
      });
    }
    expect(seen).toEqual([true, true, true, true, true, true]);
  });

  it('refuses a JSON body in another charset than UTF-8 with 415 on every path', async () => {
    const handler = (req: RouteRequest) => answer({ json: jsonBody(req) });
    const { fast, viaExpress } = await start(() => [
      route({ method: 'POST', path: '/express', auth: 'write', handler }),
      route({ method: 'POST', path: '/fast', auth: 'write', fast: true, handler }),
    ]);
    for (const url of [`${fast}/express`, `${fast}/fast`, `${viaExpress}/fast`]) {
      for (const type of ['application/json; charset=latin1', 'application/ld+json;charset="ISO-8859-1"']) {
        expect(await post(url, '{"a":1}', type), `${url} ${type}`).toMatchObject({
          status: 415,
          json: { message: expect.stringMatching(/^unsupported charset "(LATIN1|ISO-8859-1)"$/) },
        });
      }
      expect(await post(url, '{"a":1}', 'application/json; charset=UTF-8')).toMatchObject({
        status: 200,
        json: { a: 1 },
      });
    }
  });

  it('answers text, bytes, headers, an empty body and a stream', async () => {
    const { fast } = await start(() => [
      route({
        method: 'POST',
        path: '/echo',
        auth: 'write',
        handler: (req) => answer({ text: textBody(req) ?? '(none)' }),
      }),
      route({
        method: 'GET',
        path: '/bytes',
        auth: 'read',
        handler: () =>
          answer({ bytes: Buffer.from([0, 255]), type: 'application/octet-stream', headers: { 'X-A': 'b' } }),
      }),
      route({ method: 'DELETE', path: '/nothing', auth: 'write', handler: () => answer({ status: 204 }) }),
      route({
        method: 'GET',
        path: '/stream',
        auth: 'read',
        fast: true,
        handler: () => answer({ stream: Readable.from(['a', 'b', 'c']), type: 'text/event-stream' }),
      }),
      route({
        method: 'GET',
        path: '/located',
        auth: 'read',
        handler: () => answer({ json: 'id-1', headers: { Location: '/items/id-1', 'Content-Type': 'text/plain' } }),
      }),
    ]);
    const echo = await post(`${fast}/echo`, 'caf\u00e9', 'text/plain; charset=utf-8');
    expect(echo).toMatchObject({ status: 200, text: 'caf\u00e9' });
    expect(echo.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    expect((await call(`${fast}/echo`, { method: 'POST' })).text).toBe('(none)');
    const bytes = await fetch(`${fast}/bytes`);
    expect(Buffer.from(await bytes.arrayBuffer())).toEqual(Buffer.from([0, 255]));
    expect(bytes.headers.get('content-type')).toBe('application/octet-stream');
    expect(bytes.headers.get('x-a')).toBe('b');
    const nothing = await call(`${fast}/nothing`, { method: 'DELETE' });
    expect(nothing).toMatchObject({ status: 204, text: '' });
    const stream = await call(`${fast}/stream`);
    expect(stream).toMatchObject({ status: 200, text: 'abc' });
    expect(stream.headers.get('content-type')).toBe('text/event-stream');
    // The answer's own media type wins over a Content-Type among its headers.
    const located = await call(`${fast}/located`);
    expect(located).toMatchObject({ status: 200, json: 'id-1' });
    expect(located.headers.get('location')).toBe('/items/id-1');
    expect(located.headers.get('content-type')).toBe('application/json; charset=utf-8');
  });

  it('stops a long-lived stream and aborts the signal when the client goes away', async () => {
    let closed!: () => void;
    const streamClosed = new Promise<void>((resolve) => (closed = resolve));
    let aborted!: () => void;
    const signalAborted = new Promise<void>((resolve) => (aborted = resolve));
    const { fast } = await start(() => [
      route({
        method: 'GET',
        path: '/events',
        auth: 'read',
        handler: (req) => {
          req.signal.addEventListener('abort', () => aborted());
          const events = new Readable({ read() {} });
          events.push(': hello\n\n');
          events.once('close', () => closed());
          return answer({ stream: events, type: 'text/event-stream', longLived: true });
        },
      }),
    ]);
    const client = new AbortController();
    const response = await fetch(`${fast}/events`, { signal: client.signal });
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    expect(Buffer.from((await reader.read()).value as Uint8Array).toString()).toBe(': hello\n\n');
    client.abort();
    await streamClosed;
    await signalAborted;
  });

  it('keeps the errors to the error mapper: a throwing handler gets the kit body', async () => {
    const { fast } = await start(() => [
      route({
        method: 'GET',
        path: '/boom',
        auth: 'read',
        handler: () => {
          throw new Error('secret detail');
        },
      }),
    ]);
    expect(await call(`${fast}/boom`)).toMatchObject({ status: 500, json: { message: 'internal error' } });
  });

  it('decides a signed route from the RouteRequest: requireAuthorization and isAuthorized take it', async () => {
    const http = createHttpApp({
      metrics: createMetrics({ prefix: 'test_', processMetrics: false }),
      auth: { rules: parseTokenRules(['/private|read|read'], { read: 'READ_TOKEN' }) },
    });
    mountRoutes(http, [
      ...http.builtinRoutes,
      route({
        method: 'GET',
        path: '/private',
        auth: 'signed',
        access: 'a token',
        handler: async (req) => {
          await requireAuthorization(req, (principal) => principal.kind === 'signature');
          return answer({ json: { authorized: await isAuthorized(req) } });
        },
      }),
    ]);
    const { url } = await serve(http.listener);
    expect(await call(`${url}/private`, { headers: { authorization: 'Bearer READ_TOKEN' } })).toMatchObject({
      status: 200,
      json: { authorized: true },
    });
    const refused = await call(`${url}/private`);
    expect(refused.status).toBe(401);
    expect(refused.headers.get('www-authenticate')).toBe('Bearer');
  });
});
