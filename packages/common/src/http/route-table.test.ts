import { Validator } from '@seriousme/openapi-schema-validator';
import { describe, expect, it } from 'vitest';
import { createMetrics } from '../metrics/index.js';
import { defineSchema } from '../schemas/index.js';
import { bearer, call, serve } from './http.test-helpers.js';
import {
  answer,
  createHttpApp,
  jsonBody,
  documentedRoutes,
  mountedRoutes,
  mountRoutes,
  routeTableOf,
  openApiDocument,
  openApiRoute,
  renderRoutesMarkdown,
  routeTableTags,
  withRouteTables,
  type ApiInfo,
  type RouteRequest,
  type RouteSpec,
} from './index.js';
import type { SignatureAuthenticator } from './principal.js';

const NOTE = defineSchema<{ text: string }>({
  $id: 'urn:anchor:schema:test:note',
  type: 'object',
  required: ['text'],
  properties: { text: { type: 'string' } },
});
const INFO: ApiInfo = { title: 'test service', version: '1.0.0', httpSignatures: true };

/** One route of each class, express and fast; each answers who it saw. */
function table(http: ReturnType<typeof createHttpApp>): RouteSpec[] {
  const seen = (req: { principal: unknown; authorized: boolean }) =>
    JSON.stringify({ principal: req.principal, authorized: req.authorized });
  const routes: RouteSpec[] = [
    ...http.builtinRoutes,
    {
      method: 'GET',
      path: '/open',
      auth: 'open',
      tag: 'a',
      summary: 'open',
      responses: { 200: 'ok' },
      handler: (req) => answer({ text: seen(req), type: 'application/json' }),
    },
    {
      method: 'GET',
      path: '/items/:id',
      auth: 'read',
      tag: 'a',
      summary: 'an item',
      params: { id: 'the item' },
      responses: { 200: 'ok', 404: 'no such item' },
      handler: (req) => answer({ text: seen(req), type: 'application/json' }),
    },
    {
      method: 'POST',
      path: '/items',
      auth: 'write',
      tag: 'a',
      summary: 'adds an item',
      body: { mediaTypes: ['application/json'], schema: NOTE },
      responses: { 200: { description: 'ok', mediaType: 'application/json' }, 400: 'not a note' },
      handler: (req) => answer({ text: seen(req), type: 'application/json' }),
    },
    {
      method: 'POST',
      path: '/admin',
      auth: 'admin',
      tag: 'b',
      summary: 'admin only',
      responses: { 200: 'ok' },
      handler: (req) => answer({ text: seen(req), type: 'application/json' }),
    },
    {
      method: 'GET',
      path: '/collection',
      auth: 'signed',
      tag: 'b',
      access: 'a token, or a signed follower',
      summary: 'decides itself',
      query: [{ name: 'page', description: 'a page' }],
      responses: { 200: 'ok' },
      handler: (req) => answer({ text: seen(req), type: 'application/json' }),
    },
    {
      method: 'GET',
      path: '/fast/:alias',
      auth: 'read',
      fast: true,
      tag: 'b',
      summary: 'fast',
      params: { alias: 'a log' },
      responses: { 200: 'ok' },
      handler: (req) => answer({ text: seen(req), type: 'application/json' }),
    },
    {
      method: 'POST',
      path: '/fast-inbox',
      auth: 'signed',
      fast: true,
      tag: 'b',
      access: 'a signer',
      summary: 'fast signed',
      responses: { 200: 'ok' },
      handler: (req) => answer({ text: seen(req), type: 'application/json' }),
    },
  ];
  routes.push(openApiRoute(INFO, routes));
  return routes;
}

const signatures: SignatureAuthenticator = async (req) =>
  req.headers.signature === 'good' ? { actor: 'https://peer.example/services/node', keyId: 'k' } : undefined;

async function startApp() {
  const http = createHttpApp({
    metrics: createMetrics({ prefix: 'test_', processMetrics: false }),
    auth: { rules: [{ path: '/.*', read: ['R'], write: ['W'] }], signatureAuthenticator: signatures },
  });
  const routes = table(http);
  mountRoutes(http, routes);
  const server = await serve(http.listener);
  return { http, routes, url: server.url };
}

describe('route tables', () => {
  it('mount each auth class where the kit serves it: open before the token rules, admin token-only, signed routes deciding themselves', async () => {
    const { url } = await startApp();
    expect((await call(`${url}/open`)).status).toBe(200);
    expect((await call(`${url}/items/1`)).status).toBe(401);
    expect((await call(`${url}/items/1`, { headers: bearer('R') })).status).toBe(200);
    expect((await call(`${url}/items/1`, { headers: { signature: 'good' } })).status).toBe(200);
    expect((await call(`${url}/items`, { method: 'POST', headers: bearer('R') })).status).toBe(401);
    expect((await call(`${url}/items`, { method: 'POST', headers: bearer('W') })).status).toBe(200);
    expect((await call(`${url}/admin`, { method: 'POST', headers: { signature: 'good' } })).status).toBe(401);
    expect((await call(`${url}/admin`, { method: 'POST', headers: bearer('W') })).status).toBe(200);
    expect((await call(`${url}/collection`)).json).toEqual({ principal: { kind: 'anonymous' }, authorized: false });
    expect((await call(`${url}/fast/main`)).status).toBe(401);
    expect((await call(`${url}/fast/main`, { headers: bearer('R') })).status).toBe(200);
    expect(
      (await call(`${url}/fast-inbox`, { method: 'POST', body: '{}', headers: { signature: 'good' } })).json,
    ).toEqual({
      principal: { kind: 'signature', actor: 'https://peer.example/services/node', keyId: 'k' },
      authorized: false,
    });
    expect((await call(`${url}/healthcheck`, { headers: bearer('R') })).status).toBe(200);
    expect((await call(`${url}/openapi.json`)).status).toBe(200);
  });

  it('serve an OpenAPI 3.1 document that validates and lists every mounted route', async () => {
    const { http, url } = await startApp();
    const document = (await call(`${url}/openapi.json`)).json as ReturnType<typeof openApiDocument>;
    const validator = new Validator();
    const result = await validator.validate(document as unknown as Record<string, unknown>);
    expect(result.errors).toBeUndefined();
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');

    expect(mountedRoutes(http).sort()).toEqual(documentedRoutes(document).sort());
    expect(routeTableOf(http)).toHaveLength(documentedRoutes(document).length);

    expect(document.paths['/items/{id}']?.get).toMatchObject({
      parameters: [{ name: 'id', in: 'path', required: true, description: 'the item' }],
      security: [{ bearerToken: ['read'] }, { httpSignature: [] }],
      responses: {
        200: { description: 'ok' },
        401: {},
        404: { content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } },
      },
      'x-auth': 'read',
    });
    expect(document.paths['/items']?.post).toMatchObject({
      requestBody: {
        required: true,
        content: { 'application/json': { schema: { $ref: '#/components/schemas/note' } } },
      },
    });
    expect((document.components as { schemas: Record<string, unknown> }).schemas.note).toEqual({
      type: 'object',
      required: ['text'],
      properties: { text: { type: 'string' } },
    });
    expect(document.paths['/admin']?.post).toMatchObject({ security: [{ bearerToken: ['write'] }] });
    expect(document.paths['/open']?.get).toMatchObject({ security: [] });
    expect(document.paths['/collection']?.get).toMatchObject({
      description: 'Access: a token, or a signed follower.',
      parameters: [{ name: 'page', in: 'query', required: false }],
    });
  });

  it('show a route mounted outside the table', async () => {
    const { http, routes } = await startApp();
    http.routes.get('/secret', (_req, res) => void res.send('x'));
    const documented = new Set(documentedRoutes(openApiDocument(INFO, routes)));
    expect(mountedRoutes(http).filter((route) => !documented.has(route))).toEqual(['GET /secret']);
  });

  it('read a body limit of its own for its route only, after the token check', async () => {
    const http = createHttpApp({
      metrics: createMetrics({ prefix: 'test_', processMetrics: false }),
      bodyLimit: 1024,
      auth: { rules: [{ path: '/.*', read: ['R'], write: ['W'] }] },
    });
    const echo = (req: RouteRequest) => answer({ json: { length: String(jsonBody(req)).length } });
    mountRoutes(http, [
      {
        method: 'POST',
        path: '/import',
        auth: 'admin',
        tag: 'a',
        summary: 'x',
        responses: {},
        bodyLimit: 4096,
        handler: echo,
      },
      { method: 'POST', path: '/other', auth: 'write', tag: 'a', summary: 'x', responses: {}, handler: echo },
    ]);
    const { url } = await serve(http.listener);
    const post = (path: string, length: number, headers: Record<string, string> = bearer('W')) =>
      call(`${url}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify('x'.repeat(length)),
      });
    expect(await post('/import', 3000)).toMatchObject({ status: 200, json: { length: 3000 } });
    expect(await post('/other', 3000)).toMatchObject({
      status: 413,
      json: { message: 'request body exceeds the limit of 1024 bytes' },
    });
    expect(await post('/import?page=2', 3000)).toMatchObject({ status: 200 });
    expect(await post('/import', 5000)).toMatchObject({
      status: 413,
      json: { message: 'request body exceeds the limit of 4096 bytes' },
    });
    // Without the token: 401 (the route's own parsers come after the check).
    expect((await post('/import', 3000, {})).status).toBe(401);
    expect(() =>
      mountRoutes(createHttpApp({ metrics: createMetrics({ prefix: 'test_', processMetrics: false }) }), [
        {
          method: 'POST',
          path: '/x/:id',
          auth: 'write',
          tag: 'a',
          summary: 'x',
          params: { id: 'it' },
          responses: {},
          bodyLimit: '1mb',
          handler: echo,
        },
      ]),
    ).toThrow('a body limit of its own is for a token-ruled express route without parameters');
  });

  it('refuse routes the kit cannot serve as declared, and a route given twice', () => {
    const http = createHttpApp({ metrics: createMetrics({ prefix: 'test_', processMetrics: false }) });
    const handler = () => answer({});
    expect(() =>
      mountRoutes(http, [{ method: 'POST', path: '/x', auth: 'read', tag: 'a', summary: 'x', responses: {}, handler }]),
    ).toThrow('a read route is a GET');
    expect(() =>
      mountRoutes(http, [
        { method: 'GET', path: '/x/:id', auth: 'read', tag: 'a', summary: 'x', responses: {}, handler },
      ]),
    ).toThrow('the path parameter id has no description');
    expect(() =>
      mountRoutes(http, [
        {
          method: 'GET',
          path: '/x',
          auth: 'open',
          fast: true,
          tag: 'a',
          summary: 'x',
          responses: {},
          handler: () => answer({ text: '' }),
        },
      ]),
    ).toThrow('fast routes are read, write or signed');
    expect(() =>
      mountRoutes(http, [
        { method: 'GET', path: '/x', auth: 'signed', tag: 'a', summary: 'x', responses: {}, handler },
      ]),
    ).toThrow('says who its handler admits');
    const route: RouteSpec = {
      method: 'GET',
      path: '/x',
      auth: 'read',
      tag: 'a',
      summary: 'x',
      responses: {},
      handler,
    };
    expect(() => mountRoutes(http, [route, { ...route }])).toThrow('route GET /x is in the table twice');
    mountRoutes(http, [route]);
    expect(() => mountRoutes(http, [{ ...route, path: '/y' }])).toThrow('has a route table already');
  });

  it('render README tables by tag and rewrite the marked blocks of a README', () => {
    const http = createHttpApp({ metrics: createMetrics({ prefix: 'test_', processMetrics: false }) });
    const routes = table(http);
    const markdown = renderRoutesMarkdown(INFO, routes, 'a');
    expect(markdown.split('\n').slice(0, 5)).toEqual([
      '| Method | Path | Who | What | Errors |',
      '|---|---|---|---|---|',
      '| GET | `/open` | anyone | open |  |',
      '| GET | `/items/{id}` | read token where defined, or a signature | an item | 404 no such item |',
      '| POST | `/items` | write token where defined, or a signature | adds an item | 400 not a note |',
    ]);
    const readme =
      '# x\n\n<!-- routes: a -->\nold table\n<!-- /routes -->\n\ntext\n\n<!-- routes: b -->\n<!-- /routes -->\n';
    const updated = withRouteTables(readme, INFO, routes);
    expect(updated).toContain(`<!-- routes: a -->\n${markdown}<!-- /routes -->\n\ntext`);
    expect(updated).toContain('| POST | `/fast-inbox` | a signer | fast signed |  |');
    expect(withRouteTables(updated, INFO, routes)).toBe(updated);
    expect(routeTableTags(updated)).toEqual(['a', 'b']);
  });
});
