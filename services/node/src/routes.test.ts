import { readFileSync } from 'node:fs';
import { loadConfig } from '@anchor/common/config';
import {
  documentedRoutes,
  mountedRoutes,
  routeTableOf,
  routeTableTags,
  withRouteTables,
  type OpenApiDocument,
} from '@anchor/common/http';
import { freePort, makeTempDir, type TempDir } from '@anchor/testing/process';
import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nodeConfigSpec } from './config.js';
import { nodeApiInfo } from './routes.js';
import { createServer, type NodeServer } from './server.js';

const README = new URL('../README.md', import.meta.url);

/** A bare node: defaults only, in memory. `npm run docs` rewrites openapi.json and the README's tables from it. */
describe('the route table of a bare node', () => {
  let server: NodeServer;
  let dir: TempDir;
  let document: OpenApiDocument;

  beforeAll(async () => {
    const port = await freePort();
    dir = await makeTempDir('node-routes-');
    const config = loadConfig(nodeConfigSpec, {
      argv: [
        '--host-url',
        `127.0.0.1:${port}`,
        '--external-endpoint',
        `http://127.0.0.1:${port}`,
        '--data-dir',
        dir.path,
        '--database-type',
        'mem',
        '--log-level',
        'error',
      ],
      env: {},
    });
    server = await createServer(config);
    await server.start();
    const response = await fetch(`${server.url}/openapi.json`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
    document = (await response.json()) as OpenApiDocument;
  });

  afterAll(async () => {
    await server?.stop();
    await dir?.remove();
  });

  it('is served at /openapi.json as a valid OpenAPI 3.1 document', async () => {
    const validator = new Validator();
    const result = await validator.validate(document as unknown as Record<string, unknown>);
    expect(result.errors).toBeUndefined();
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');
  });

  it('lists every route the node serves, and nothing else', () => {
    expect(mountedRoutes(server.context.http).sort()).toEqual(documentedRoutes(document).sort());
    expect(documentedRoutes(document)).toEqual(
      expect.arrayContaining([
        'GET /healthcheck',
        'POST /sidetree/v1/operations',
        'POST /services/node/inbox',
        'GET /openapi.json',
      ]),
    );
  });

  it('matches the committed openapi.json', async () => {
    await expect(`${JSON.stringify(document, null, 2)}\n`).toMatchFileSnapshot('../openapi.json');
  });

  it("gives the README's endpoint tables, one per tag", async () => {
    const readme = readFileSync(README, 'utf8');
    const table = routeTableOf(server.context.http);
    expect(routeTableTags(readme).sort()).toEqual([...new Set(table.map((route) => route.tag))].sort());
    await expect(withRouteTables(readme, nodeApiInfo(server.context), table)).toMatchFileSnapshot('../README.md');
  });
});
