/**
 * The route-table suite every service runs on a bare instance of itself: `/openapi.json` is a valid OpenAPI
 * 3.1 document, it lists exactly the routes express mounts, it matches the committed `openapi.json`, and the
 * README's endpoint tables are the ones the table renders (`npm run docs` in a service rewrites both files).
 *
 *   describeRouteTable({ service: 'kms', start: async () => ..., readme, openapi, mustList: ['POST /v1/keystores'] });
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import {
  documentedRoutes,
  mountedRoutes,
  routeTableOf,
  routeTableTags,
  withRouteTables,
  type ApiInfo,
  type HttpApp,
  type OpenApiDocument,
} from '@anchor/common/http';
import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

export interface RunningForRoutes {
  /** The service's listener, `http://127.0.0.1:<port>`. */
  url: string;
  http: HttpApp;
  /** What the README's tables are rendered with (title, version, base URL). */
  apiInfo: ApiInfo;
  stop(): Promise<void>;
}

export interface RouteTableSuite {
  /** For the suite's title: "the route table of a bare <service>". */
  service: string;
  /** Starts a bare instance (defaults only, in memory). */
  start(): Promise<RunningForRoutes>;
  /** The service's README and committed openapi.json. */
  readme: URL;
  openapi: URL;
  /** Routes that must be there whatever else changes (`METHOD /path`). */
  mustList: readonly string[];
}

export function describeRouteTable(suite: RouteTableSuite): void {
  describe(`the route table of a bare ${suite.service}`, () => {
    let running: RunningForRoutes;
    let document: OpenApiDocument;

    beforeAll(async () => {
      running = await suite.start();
      const response = await fetch(`${running.url}/openapi.json`);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
      document = (await response.json()) as OpenApiDocument;
    });

    afterAll(async () => {
      await running?.stop();
    });

    it('is served at /openapi.json as a valid OpenAPI 3.1 document', async () => {
      const validator = new Validator();
      const result = await validator.validate(document as unknown as Record<string, unknown>);
      expect(result.errors).toBeUndefined();
      expect(result.valid).toBe(true);
      expect(validator.version).toBe('3.1');
    });

    it(`lists every route the ${suite.service} serves, and nothing else`, () => {
      expect(mountedRoutes(running.http).sort()).toEqual(documentedRoutes(document).sort());
      expect(documentedRoutes(document)).toEqual(
        expect.arrayContaining(['GET /healthcheck', 'GET /openapi.json', ...suite.mustList]),
      );
    });

    it('matches the committed openapi.json', async () => {
      await expect(`${JSON.stringify(document, null, 2)}\n`).toMatchFileSnapshot(fileURLToPath(suite.openapi));
    });

    it("gives the README's endpoint tables, one per tag", async () => {
      const readme = readFileSync(suite.readme, 'utf8');
      const table = routeTableOf(running.http);
      expect(routeTableTags(readme).sort()).toEqual([...new Set(table.map((route) => route.tag))].sort());
      await expect(withRouteTables(readme, running.apiInfo, table)).toMatchFileSnapshot(fileURLToPath(suite.readme));
    });
  });
}
