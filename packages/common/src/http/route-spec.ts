import type { Handler } from './handler.js';

/**
 * Who may call a route, and so where the kit mounts it:
 *   - `open`: anyone, whatever the token rules say (mounted before the credentials check);
 *   - `read` / `write`: the token rules' read tokens (GET) or write tokens (POST, ...), or a valid HTTP
 *     signature where the service verifies them; open where the rules define no token;
 *   - `admin`: the token rules only, a signature is not enough (`requireToken`);
 *   - `signed`: the handler decides from the principal (a signer, a token, anonymous) and `authorized`;
 *     its fast variant verifies signatures on the fast path too (an ActivityPub inbox).
 */
export type AuthClass = 'open' | 'read' | 'write' | 'admin' | 'signed';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'DELETE';

/** A JSON Schema (the ajv schemas of `@anchor/common/schemas` are these). */
export type JsonSchema = Readonly<Record<string, unknown>>;

export interface RequestBodySpec {
  /** Media types accepted, first the usual one. */
  mediaTypes: readonly string[];
  /** The ajv schema the handler validates with; a schema with a `$id` becomes a named component. */
  schema?: JsonSchema;
  description?: string;
  /** Default true: a request without a body is refused. */
  required?: boolean;
}

export interface QueryParameterSpec {
  name: string;
  description: string;
  required?: boolean;
  /** Default `{ type: 'string' }`. */
  schema?: JsonSchema;
}

export interface ResponseSpec {
  description: string;
  /** The answer's media type; an error answer without one is the kit's `{"message"}` JSON body. */
  mediaType?: string;
}

interface RouteBase {
  method: HttpMethod;
  /** Express style: `/cas/:hash`; the document shows it as `/cas/{hash}`. */
  path: string;
  auth: AuthClass;
  /** One line: what the route does (the README's "What" column, the document's summary). */
  summary: string;
  /** Groups routes into a README table and an OpenAPI tag. */
  tag: string;
  /** Who may call a `signed` route, in words (its handler decides); other classes are described by their class. */
  access?: string;
  /** Descriptions of the path's `:name` parameters, by name. */
  params?: Readonly<Record<string, string>>;
  query?: readonly QueryParameterSpec[];
  body?: RequestBodySpec;
  /**
   * Largest body this route takes, in place of the app's (bytes, or `64mb`), read after the token check: a
   * token-ruled (`read`, `write`, `admin`) express route without `:name` parameters (an import of export pages).
   */
  bodyLimit?: number | string;
  /** The answers by status: a description, or a description with the media type. */
  responses: Readonly<Record<number, string | ResponseSpec>>;
}

/** A route of a service's table: its handler is of the one shape, served through express or, `fast`, in front of it. */
export interface RouteSpec extends RouteBase {
  /**
   * Served by the kit's fast path in front of express (see `FastRoutes`): for the hottest GET and POST routes,
   * answered without ETags; default false (through express, with ETags and 304s).
   */
  fast?: boolean;
  handler: Handler;
}
