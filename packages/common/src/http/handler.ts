import type { IncomingHttpHeaders, ServerResponse } from 'node:http';
import type { Readable } from 'node:stream';
import { AppError } from '../errors/index.js';
import type { Principal } from './principal.js';

/**
 * What every route's handler gets, on the fast path and through express alike (`Handler`). Read the body
 * with `jsonBody(req, schema)` or `textBody(req)`, never by hand.
 */
export interface RouteRequest {
  readonly method: string;
  /** The path as sent (percent-encoding kept), without the query. */
  readonly path: string;
  /** Path and query as sent on the request line. */
  readonly url: string;
  /** The route's `:name` segments and its `*name` tail (segments joined by `/`), percent-decoded. */
  readonly params: Readonly<Record<string, string>>;
  /** The query; the kit has refused a parameter given twice already. */
  readonly query: URLSearchParams;
  readonly headers: IncomingHttpHeaders;
  /** The exact body bytes (undefined when empty): for a protocol that reads them itself (a signature, a tile). */
  readonly body: Buffer | undefined;
  /**
   * What the express path's body parsers made of the body: a JSON value for the JSON types, a string for
   * text/plain; undefined on the fast path and for other types. `jsonBody` and `textBody` read it first.
   */
  readonly parsedBody?: unknown;
  /** Who sent it: a matched bearer token, a verified HTTP signer, or anonymous. */
  readonly principal: Principal;
  /** Whether the token rules are satisfied (no token defined for the path and method, or one matched). */
  readonly authorized: boolean;
  /** Aborted when the client goes away before the answer is written to its end (a stream's end). */
  readonly signal: AbortSignal;
}

/**
 * What a handler answers, built by `answer`. A string body is sent with `; charset=utf-8` on its media type,
 * bytes as they are; a stream is piped (no Content-Length), and stopped when the client goes away.
 */
export interface Answer {
  /** The media type; default none (an empty body). */
  contentType?: string;
  body?: string | Buffer | Readable;
  /** Default 200. */
  status?: number;
  /** Further response headers, e.g. `Location`; a Content-Type here gives way to `contentType`. */
  headers?: Readonly<Record<string, string>>;
  /** A stream that lasts as long as the client listens (events): sent at once, and ended when the server closes. */
  longLived?: boolean;
}

/** The one handler shape of every route of every service. */
export type Handler = (req: RouteRequest) => Answer | Promise<Answer>;

type AnswerBody =
  | { json: unknown; text?: never; bytes?: never; stream?: never }
  | { text: string; json?: never; bytes?: never; stream?: never }
  | { bytes: Buffer; json?: never; text?: never; stream?: never }
  | { stream: Readable; json?: never; text?: never; bytes?: never }
  | { json?: never; text?: never; bytes?: never; stream?: never };

export type AnswerSpec = AnswerBody & {
  /** The media type; default `application/json` for `json`, `text/plain` for `text`, `application/octet-stream` else. */
  type?: string;
  status?: number;
  headers?: Readonly<Record<string, string>>;
  longLived?: boolean;
};

/**
 * The one answer helper: `answer({ json: doc })`, `answer({ text, type: 'text/plain' })`,
 * `answer({ bytes, type })`, `answer({ stream, type, longLived: true })`, `answer({ status: 204 })`; with
 * `status` and `headers` as needed. Errors are thrown as AppErrors, never answered.
 */
export function answer(spec: AnswerSpec): Answer {
  const result: { -readonly [K in keyof Answer]: Answer[K] } = {};
  if (spec.json !== undefined) {
    result.body = JSON.stringify(spec.json);
    result.contentType = spec.type ?? 'application/json';
  } else if (spec.text !== undefined) {
    result.body = spec.text;
    result.contentType = spec.type ?? 'text/plain';
  } else if (spec.bytes !== undefined || spec.stream !== undefined) {
    result.body = spec.bytes ?? spec.stream;
    result.contentType = spec.type ?? 'application/octet-stream';
  } else if (spec.type !== undefined) result.contentType = spec.type;
  if (spec.status !== undefined) result.status = spec.status;
  if (spec.headers !== undefined) result.headers = spec.headers;
  if (spec.longLived === true) result.longLived = true;
  return result;
}

/** A string body's media type: its charset set to UTF-8 (added, or in place of another). */
export function withUtf8(contentType: string): string {
  return /;\s*charset\s*=/i.test(contentType)
    ? contentType.replace(/(;\s*charset\s*=\s*)("[^"]*"|[^;\s]*)/i, '$1utf-8')
    : `${contentType}; charset=utf-8`;
}

/** Whether a Content-Type is one of the JSON types (`JSON_MEDIA_TYPES`: plain JSON, JSON-LD, ActivityStreams, any `+json`). */
export function isJsonMediaType(contentType: string | undefined): boolean {
  if (contentType === undefined) return false;
  const type = (contentType.split(';', 1)[0] as string).trim().toLowerCase();
  return type === 'application/json' || (type.startsWith('application/') && type.endsWith('+json'));
}

/**
 * The 415 for a JSON body in another charset than UTF-8 (JSON is UTF-8, RFC 8259): the express path's body
 * parsers and the fast path both refuse it, before any handler runs.
 */
export function checkJsonCharset(contentType: string | undefined): void {
  if (!isJsonMediaType(contentType)) return;
  const charset = /;\s*charset\s*=\s*"?([^";\s]+)/i.exec(contentType ?? '')?.[1]?.toLowerCase();
  if (charset !== undefined && charset !== 'utf-8' && charset !== 'utf8') {
    throw new AppError('unsupported_media_type', `unsupported charset "${charset.toUpperCase()}"`);
  }
}

export interface RequestParts {
  method: string;
  path: string;
  url: string;
  params: Readonly<Record<string, string>>;
  search: string;
  headers: IncomingHttpHeaders;
  body: Buffer | undefined;
  parsedBody?: unknown;
  /** `parsedBody` is a JSON value (the JSON types), not text: a JSON string body is not text to parse again. */
  parsedJson?: boolean;
  principal: Principal;
  authorized: boolean;
}

/** A `RouteRequest` over the response it is answered on (its `signal` follows the response). */
export class KitRequest implements RouteRequest {
  readonly method: string;
  readonly path: string;
  readonly url: string;
  readonly params: Readonly<Record<string, string>>;
  readonly headers: IncomingHttpHeaders;
  readonly body: Buffer | undefined;
  readonly parsedBody: unknown;
  /** Whether `parsedBody` is the JSON value the express path parsed (rather than text). */
  readonly parsedJson: boolean;
  readonly principal: Principal;
  readonly authorized: boolean;
  readonly #search: string;
  readonly #res: ServerResponse;
  #query: URLSearchParams | undefined;
  #signal: AbortSignal | undefined;

  constructor(parts: RequestParts, res: ServerResponse) {
    this.method = parts.method;
    this.path = parts.path;
    this.url = parts.url;
    this.params = parts.params;
    this.headers = parts.headers;
    this.body = parts.body;
    this.parsedBody = parts.parsedBody;
    this.parsedJson = parts.parsedJson ?? false;
    this.principal = parts.principal;
    this.authorized = parts.authorized;
    this.#search = parts.search;
    this.#res = res;
  }

  // Both made on first use: most handlers read neither, and the fast path counts every allocation.
  get query(): URLSearchParams {
    this.#query ??= new URLSearchParams(this.#search);
    return this.#query;
  }

  get signal(): AbortSignal {
    if (this.#signal === undefined) {
      const controller = new AbortController();
      this.#signal = controller.signal;
      if (this.#res.closed) controller.abort();
      else this.#res.once('close', () => controller.abort());
    }
    return this.#signal;
  }
}
