import { readFileSync } from 'node:fs';
import {
  documentedRoutes,
  mountedRoutes,
  routeTableOf,
  routeTableTags,
  withRouteTables,
  type OpenApiDocument,
  type RouteSpec,
} from '@anchor/common/http';
import { makeTempDir, type TempDir } from '@anchor/testing/process';
import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KMS_API_INFO } from './routes.js';
import { createServer, type KmsServer } from './server.js';

const README = new URL('../README.md', import.meta.url);

/** A bare kms: defaults only, in memory. `npm run docs` rewrites openapi.json and the README's tables from it. */
describe('the route table of a bare kms', () => {
  let server: KmsServer;
  let dir: TempDir;
  let document: OpenApiDocument;

  beforeAll(async () => {
    dir = await makeTempDir('kms-routes-');
    server = createServer({ dataDir: dir.path, storage: { type: 'mem' }, devMode: true, bbsWorkers: 0 });
    await server.start();
    const response = await fetch(`${server.url}/openapi.json`);
    expect(response.status).toBe(200);
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

  it('lists every route the kms serves, and nothing else', () => {
    expect(mountedRoutes(server.http).sort()).toEqual(documentedRoutes(document).sort());
    expect(documentedRoutes(document)).toEqual(
      expect.arrayContaining([
        'POST /v1/keystores',
        'PUT /v1/keystores/:keystoreId/keys',
        'POST /v1/keystores/:keystoreId/keys/:keyId/sign',
        'GET /healthcheck',
        'GET /openapi.json',
      ]),
    );
  });

  it('matches the committed openapi.json', async () => {
    await expect(`${JSON.stringify(document, null, 2)}\n`).toMatchFileSnapshot('../openapi.json');
  });

  it("gives the README's endpoint tables, one per tag", async () => {
    const readme = readFileSync(README, 'utf8');
    const table: readonly RouteSpec[] = routeTableOf(server.http);
    expect(routeTableTags(readme).sort()).toEqual([...new Set(table.map((route) => route.tag))].sort());
    await expect(withRouteTables(readme, KMS_API_INFO, table)).toMatchFileSnapshot('../README.md');
  });
});
