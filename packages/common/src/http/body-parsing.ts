import type { IncomingMessage } from 'node:http';
import express, { type RequestHandler } from 'express';
import { parseStrictJson } from '../encoding/strict-json.js';
import { AppError, badRequest } from '../errors/index.js';
import { validate, type Schema } from '../schemas/index.js';
import { checkJsonCharset, KitRequest, type RouteRequest } from './handler.js';
import './request.js';

/** Media types parsed as JSON: plain JSON, JSON-LD, ActivityStreams, and any other `+json` type. */
export const JSON_MEDIA_TYPES = [
  'application/json',
  'application/ld+json',
  'application/activity+json',
  'application/*+json',
];

const keepRawBody = (req: IncomingMessage, _res: unknown, body: Buffer): void => {
  (req as express.Request).rawBody = body;
};

/**
 * Body parsers sharing one size limit. Every body's exact bytes land in `req.rawBody` (Digest checks of
 * HTTP signatures need them); `req.body` is parsed JSON (any JSON value, not only objects) for the JSON
 * types, read by the one strict reader (`parseStrictJson`: duplicate members, lone surrogates and
 * `__proto__`-like names are 400s), a string for text/plain, and a Buffer for anything else, including a
 * body without a Content-Type or with an empty one; an empty body leaves both undefined. Handlers read
 * JSON through `jsonBody`, which applies the same reader whatever the type. Their errors (malformed
 * JSON, too large, bad charset or encoding) are turned into JSON responses by the error mapper.
 */
export function bodyParsers(limit: number): RequestHandler[] {
  return [
    express.raw({ type: JSON_MEDIA_TYPES, limit, verify: keepRawBody }),
    readJsonTypes,
    express.text({ type: 'text/plain', limit, verify: keepRawBody }),
    express.raw({ type: () => true, limit, verify: keepRawBody }),
    forgetEmptyBody,
  ];
}

/** The JSON types' bytes (read raw above, so only one JSON reader exists) parsed strictly. */
const readJsonTypes: RequestHandler = (req, _res, next) => {
  if (!Buffer.isBuffer(req.body) || req.body.length === 0 || !req.is(JSON_MEDIA_TYPES)) {
    next();
    return;
  }
  try {
    checkJsonCharset(req.headers['content-type']);
    req.body = parseStrictJson(req.body, 'request body');
    next();
  } catch (error) {
    next(error);
  }
};

/** An express request of the kit's raw routers (`http.routes`, which no service route uses; tests do). */
export interface RequestWithBody {
  readonly body?: unknown;
}

/** Each request's JSON value, parsed once however many times its handler reads it. */
const parsedJson = new WeakMap<RouteRequest, unknown>();

/**
 * A request's JSON body, read by the one rule every route of every service follows: the body is JSON
 * whatever its Content-Type (none, an empty one as Go's `http.Post(url, "", body)` sends, text/plain,
 * form-urlencoded from `curl -d`: the Go services never looked at it), read by the strict reader; the kit's
 * express path has parsed the JSON types already (as strictly), and that value is the one read. No body is a
 * 400 naming `what`; with a schema, a body it does not satisfy is a 400 naming the first problem.
 */
export function jsonBody(req: RouteRequest | RequestWithBody, what?: string): unknown;
export function jsonBody<T>(req: RouteRequest | RequestWithBody, schema: Schema<T>, what?: string): T;
export function jsonBody(
  req: RouteRequest | RequestWithBody,
  schemaOrWhat?: Schema<unknown> | string,
  named?: string,
): unknown {
  const schema = typeof schemaOrWhat === 'string' ? undefined : schemaOrWhat;
  const what = typeof schemaOrWhat === 'string' ? schemaOrWhat : named;
  const body =
    req instanceof KitRequest ? routeJson(req, what ?? 'request body') : parsedBody(req.body, what ?? 'request body');
  return schema === undefined ? body : validate(schema, body, what === undefined ? {} : { what });
}

function routeJson(req: KitRequest, what: string): unknown {
  if (req.parsedJson) return req.parsedBody;
  if (parsedJson.has(req)) return parsedJson.get(req);
  const value = parsedBody(req.parsedBody ?? req.body, what);
  parsedJson.set(req, value);
  return value;
}

function parsedBody(body: unknown, what: string): unknown {
  if (body === undefined) throw badRequest(`${what}: a JSON body is required`);
  if (typeof body === 'string' || Buffer.isBuffer(body)) {
    if (body.length === 0) throw badRequest(`${what}: a JSON body is required`);
    return parseStrictJson(body, what);
  }
  return body;
}

/**
 * A request's body as text, whatever its Content-Type (a spec sent by `curl -d` arrives form-encoded):
 * text/plain as the express path decoded it (by its charset), other bytes as UTF-8; undefined without a body.
 */
export function textBody(req: RouteRequest): string | undefined {
  if (typeof req.parsedBody === 'string' && !(req instanceof KitRequest && req.parsedJson)) return req.parsedBody;
  return req.body?.toString('utf8');
}

/** How `plainTextBody` reads a body that is not text/plain. */
export interface PlainTextOptions {
  /**
   * Take a JSON-typed body whose value is a string as text: its bytes as sent, quotes kept, so the handler's
   * own check names it (the node's `POST /log` and `POST /policy` have always answered so). Default false:
   * the 400 `refusal`, as for any other JSON value.
   */
  readonly jsonStringAsText?: boolean;
}

/**
 * A text/plain body as the express path decoded it (by its charset); undefined without a body; a body of any
 * other type is a 400 saying `refusal`. For express routes (the fast path leaves bodies unparsed).
 */
export function plainTextBody(req: RouteRequest, refusal: string, options: PlainTextOptions = {}): string | undefined {
  if (req.body === undefined) return undefined;
  if (typeof req.parsedBody === 'string') {
    if (!(req instanceof KitRequest && req.parsedJson)) return req.parsedBody;
    if (options.jsonStringAsText === true) return req.body.toString('utf8');
  }
  throw badRequest(refusal);
}

/**
 * A zero-length body is no body: left alone, the JSON parser would turn it into `{}` and the raw parser
 * into an empty Buffer, and handlers would validate something the client never sent.
 */
const forgetEmptyBody: RequestHandler = (req, _res, next) => {
  if (req.rawBody?.length === 0) {
    req.body = undefined;
    req.rawBody = undefined;
  }
  next();
};

const UNITS: Readonly<Record<string, number>> = { b: 1, kb: 1024, mb: 1024 ** 2, gb: 1024 ** 3, tb: 1024 ** 4 };

/** `2mb`, `100kb`, `1.5kb`, `512b` or a byte count, read as express's body limits are (powers of 1024). */
export function parseByteSize(size: string | number): number {
  if (typeof size === 'number') return size;
  const match = /^\s*(\d+(?:\.\d+)?)\s*(b|kb|mb|gb|tb)?\s*$/i.exec(size);
  if (!match) throw new RangeError(`'${size}' is not a size such as 2mb, 100kb or 512`);
  return Math.floor(Number(match[1]) * (UNITS[(match[2] ?? 'b').toLowerCase()] ?? 1));
}

/** A byte count the way `parseByteSize` reads it back: the largest unit that divides it (`64mb`, `1536kb`, `100`). */
export function formatByteSize(bytes: number): string {
  for (const unit of ['tb', 'gb', 'mb', 'kb'] as const) {
    const size = UNITS[unit] as number;
    if (bytes >= size && bytes % size === 0) return `${bytes / size}${unit}`;
  }
  return String(bytes);
}

/** The 413 every body over the limit gets (the connection is closed rather than read to its end). */
export function payloadTooLarge(limit: number): AppError {
  return new AppError('payload_too_large', `request body exceeds the limit of ${limit} bytes`, {
    headers: { Connection: 'close' },
  });
}

/**
 * A body's exact bytes, unparsed (undefined when empty), refused with 413 beyond `limit` — at once when
 * Content-Length says so, else as soon as the running count passes it. For handlers that read the body as
 * their protocol says (a parser with its own rules, a worker thread), so it is never parsed twice. Encoded
 * bodies (gzip, ...) are refused with 415: these handlers take the bytes as sent.
 */
export function readRawBody(req: IncomingMessage, limit: number): Promise<Buffer | undefined> {
  const encoding = req.headers['content-encoding']?.trim().toLowerCase();
  if (encoding !== undefined && encoding !== '' && encoding !== 'identity') {
    return Promise.reject(new AppError('unsupported_media_type', `unsupported content encoding "${encoding}"`));
  }
  if (Number(req.headers['content-length']) > limit) return Promise.reject(payloadTooLarge(limit));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let received = 0;
    req.on('data', (chunk: Buffer) => {
      received += chunk.length;
      if (received > limit) {
        req.removeAllListeners('data');
        req.pause();
        reject(payloadTooLarge(limit));
      } else chunks.push(chunk);
    });
    req.once('end', () =>
      resolve(received === 0 ? undefined : chunks.length === 1 ? chunks[0] : Buffer.concat(chunks)),
    );
    req.once('error', reject);
  });
}
