import { answer } from './handler.js';
import type { AuthClass, JsonSchema, ResponseSpec, RouteSpec } from './route-spec.js';
import { openApiPath, pathParameters, tokenKind } from './route-table.js';

/** What a service says about itself in its OpenAPI document. */
export interface ApiInfo {
  title: string;
  version: string;
  description?: string;
  /** Whether the service verifies HTTP signatures, which then stand in for tokens on read and write routes. */
  httpSignatures?: boolean;
}

export type OpenApiDocument = Record<string, unknown> & {
  openapi: string;
  paths: Record<string, Record<string, unknown>>;
};

const BEARER = 'bearerToken';
const SIGNATURE = 'httpSignature';

/** The kit's one error body (ADR 0002). */
const ERROR_SCHEMA = {
  type: 'object',
  required: ['message'],
  properties: { message: { type: 'string' }, details: { type: 'object' } },
} as const;

/**
 * The OpenAPI 3.1 document of a route table: one operation per route with its path and query
 * parameters, its request body (the route's ajv schema, JSON Schema 2020-12 as OpenAPI 3.1 takes it; a
 * schema with a `$id` becomes a named component), its answers by status (errors with the kit's
 * `{"message"}` body; 401 on every route that is not open) and the security its auth class stands for:
 * bearer tokens (role `read` or `write`, the token rules' split) and, where the service verifies them,
 * HTTP signatures. Each operation also carries its class as `x-auth`.
 */
export function openApiDocument(info: ApiInfo, routes: readonly RouteSpec[]): OpenApiDocument {
  const schemas: Record<string, unknown> = { Error: ERROR_SCHEMA };
  const paths: Record<string, Record<string, unknown>> = {};
  let signaturesUsed = false;
  const tags = new Set<string>();

  const schemaRef = (schema: JsonSchema): unknown => {
    const id = schema.$id;
    if (typeof id !== 'string') return schema;
    const name = componentName(id);
    const { $id: _id, ...rest } = schema;
    schemas[name] = rest;
    return { $ref: `#/components/schemas/${name}` };
  };

  for (const route of routes) {
    tags.add(route.tag);
    const security = securityOf(route.auth, tokenKind(route.method), info.httpSignatures ?? false);
    if (security.some((requirement) => SIGNATURE in requirement)) signaturesUsed = true;
    const parameters = [
      ...pathParameters(route.path).map((name) => ({
        name,
        in: 'path',
        required: true,
        description: route.params?.[name] ?? name,
        schema: { type: 'string' },
      })),
      ...(route.query ?? []).map((query) => ({
        name: query.name,
        in: 'query',
        required: query.required ?? false,
        description: query.description,
        schema: query.schema ?? { type: 'string' },
      })),
    ];
    const operation: Record<string, unknown> = {
      summary: route.summary,
      ...(route.access !== undefined ? { description: `Access: ${route.access}.` } : {}),
      tags: [route.tag],
      ...(parameters.length > 0 ? { parameters } : {}),
      ...(route.body
        ? {
            requestBody: {
              required: route.body.required ?? true,
              ...(route.body.description !== undefined ? { description: route.body.description } : {}),
              content: Object.fromEntries(
                route.body.mediaTypes.map((type) => [
                  type,
                  route.body?.schema ? { schema: schemaRef(route.body.schema) } : {},
                ]),
              ),
            },
          }
        : {}),
      responses: responsesOf(route),
      security,
      'x-auth': route.auth,
    };
    const path = openApiPath(route.path);
    paths[path] ??= {};
    paths[path][route.method.toLowerCase()] = operation;
  }

  const securitySchemes: Record<string, unknown> = {
    [BEARER]: {
      type: 'http',
      scheme: 'bearer',
      description:
        "A token of the service's token rules (first matching path rule): read tokens for GET, write tokens for other methods; where a rule defines none, nothing is checked.",
    },
  };
  if (signaturesUsed) {
    securitySchemes[SIGNATURE] = {
      type: 'apiKey',
      in: 'header',
      name: 'Signature',
      description:
        'An HTTP signature by a key its signer publishes: draft-cavage (`Signature`; a recent Date, a body with its Digest) or RFC 9421 (`Signature-Input` and `Signature`, covering @method and the target; a recent `created`, a body with its Content-Digest).',
    };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: info.title,
      version: info.version,
      ...(info.description !== undefined ? { description: info.description } : {}),
    },
    tags: [...tags].map((name) => ({ name })),
    paths,
    components: { schemas, securitySchemes },
  };
}

function componentName(id: string): string {
  const last =
    id
      .split(/[:/#]/)
      .filter((part) => part !== '')
      .pop() ?? id;
  return last.replace(/[^A-Za-z0-9._-]/g, '-');
}

function securityOf(auth: AuthClass, token: 'read' | 'write', signatures: boolean): Record<string, string[]>[] {
  const bearer = { [BEARER]: [token] };
  switch (auth) {
    case 'open':
      return [];
    case 'admin':
      return [bearer];
    case 'signed':
      return [{ [SIGNATURE]: [] }, bearer];
    case 'read':
    case 'write':
      return signatures ? [bearer, { [SIGNATURE]: [] }] : [bearer];
  }
}

function responsesOf(route: RouteSpec): Record<string, unknown> {
  const responses: Record<string, unknown> = {};
  const entries = Object.entries(route.responses).map(
    ([status, spec]) =>
      [Number(status), typeof spec === 'string' ? { description: spec } : spec] as [number, ResponseSpec],
  );
  if (route.auth !== 'open' && !entries.some(([status]) => status === 401)) {
    entries.push([401, { description: 'credentials required, or a wrong token or signature' }]);
  }
  for (const [status, spec] of entries.sort(([a], [b]) => a - b)) {
    if (status >= 400 && spec.mediaType === undefined) {
      responses[String(status)] = {
        description: spec.description,
        content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
      };
    } else {
      responses[String(status)] = {
        description: spec.description,
        ...(spec.mediaType !== undefined ? { content: { [spec.mediaType]: {} } } : {}),
      };
    }
  }
  return responses;
}

/**
 * `GET /openapi.json` (open): the document of the table it is part of, built on first request (the table
 * is complete by then, this route included).
 */
export function openApiRoute(info: ApiInfo, routes: readonly RouteSpec[]): RouteSpec {
  let document: string | undefined;
  return {
    method: 'GET',
    path: '/openapi.json',
    auth: 'open',
    tag: 'operations',
    summary: "this OpenAPI 3.1 document: every route of the service's table",
    responses: { 200: { description: 'the document', mediaType: 'application/json' } },
    handler: () => {
      document ??= JSON.stringify(openApiDocument(info, routes));
      return answer({ text: document, type: 'application/json' });
    },
  };
}

/** The document's operations as `GET /cas/:hash` (express form), to compare with `mountedRoutes`. */
export function documentedRoutes(document: OpenApiDocument): string[] {
  return Object.entries(document.paths).flatMap(([path, operations]) =>
    Object.keys(operations).map((method) => `${method.toUpperCase()} ${path.replace(/\{(\w+)\}/g, ':$1')}`),
  );
}
