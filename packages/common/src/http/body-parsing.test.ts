import { describe, expect, it } from 'vitest';
import { createMetrics } from '../metrics/index.js';
import { call, serve } from './http.test-helpers.js';
import { answer, createHttpApp, mountRoutes, plainTextBody, type PlainTextOptions, type RouteSpec } from './index.js';

/** An express route that echoes what `plainTextBody` read, as JSON (`null` for no body). */
const echo = (path: string, options?: PlainTextOptions): RouteSpec => ({
  method: 'POST',
  path,
  auth: 'write',
  tag: 'test',
  summary: 'a test route',
  responses: { 200: 'ok' },
  handler: (req) => answer({ json: plainTextBody(req, 'takes a text/plain body', options) ?? null }),
});

async function start(): Promise<string> {
  const http = createHttpApp({ metrics: createMetrics({ prefix: 'test_', processMetrics: false }), bodyLimit: '1kb' });
  mountRoutes(http, [...http.builtinRoutes, echo('/strict'), echo('/lenient', { jsonStringAsText: true })]);
  return (await serve(http.listener)).url;
}

const post = (url: string, body: string | Buffer | undefined, contentType?: string) =>
  call(url, {
    method: 'POST',
    ...(body === undefined ? {} : { body }),
    headers: contentType === undefined ? {} : { 'content-type': contentType },
  });

const REFUSED = { status: 400, json: { message: 'takes a text/plain body' } };

describe('plainTextBody', () => {
  it('reads text/plain by its charset, and no body or an empty one as undefined, with or without the option', async () => {
    const url = await start();
    for (const path of ['/strict', '/lenient']) {
      expect(await post(`${url}${path}`, 'https://a.example/b', 'text/plain')).toMatchObject({
        status: 200,
        json: 'https://a.example/b',
      });
      expect(
        await post(`${url}${path}`, Buffer.from('caf\u00e9', 'latin1'), 'text/plain; charset=latin1'),
      ).toMatchObject({ status: 200, json: 'caf\u00e9' });
      // A text body that happens to look like JSON is still text, quotes and all.
      expect(await post(`${url}${path}`, '"x"', 'text/plain')).toMatchObject({ status: 200, json: '"x"' });
      expect(await post(`${url}${path}`, '', 'text/plain')).toMatchObject({ status: 200, json: null });
      expect(await post(`${url}${path}`, undefined)).toMatchObject({ status: 200, json: null });
    }
  });

  it('refuses a JSON string body by default, and with jsonStringAsText reads its bytes as sent', async () => {
    const url = await start();
    for (const type of ['application/json', 'application/ld+json']) {
      expect(await post(`${url}/strict`, '"https://a.example/b"', type)).toMatchObject(REFUSED);
      expect(await post(`${url}/lenient`, '"https://a.example/b"', type)).toMatchObject({
        status: 200,
        json: '"https://a.example/b"',
      });
    }
    expect(await post(`${url}/lenient`, '""', 'application/json')).toMatchObject({ status: 200, json: '""' });
  });

  it('refuses other JSON values, bytes and forms, with or without the option', async () => {
    const url = await start();
    for (const path of ['/strict', '/lenient']) {
      expect(await post(`${url}${path}`, '{"a":1}', 'application/json')).toMatchObject(REFUSED);
      expect(await post(`${url}${path}`, '1', 'application/json')).toMatchObject(REFUSED);
      expect(await post(`${url}${path}`, 'abc', 'application/octet-stream')).toMatchObject(REFUSED);
      expect(await post(`${url}${path}`, 'a=b', 'application/x-www-form-urlencoded')).toMatchObject(REFUSED);
    }
    // Malformed JSON is the strict reader's 400, before the handler runs.
    expect((await post(`${url}/lenient`, '"unterminated', 'application/json')).status).toBe(400);
  });
});
