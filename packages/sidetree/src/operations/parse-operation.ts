import { describeJsonDefect, findJsonDefect } from '@anchor/common/encoding';
import { badRequest } from '@anchor/common/errors';
import { isJsonObject } from '../json.js';
import { DID_NODE_PROTOCOL, type ProtocolParameters } from '../protocol.js';
import type { ParseContext } from './parse-context.js';
import { parseCreate } from './parse-create.js';
import { parseDeactivate } from './parse-deactivate.js';
import type { ParseMode } from './parse-mode.js';
import { parseRecover } from './parse-recover.js';
import { parseUpdate } from './parse-update.js';
import type { ParsedOperation } from './types.js';

export interface ParseOptions {
  /** Defaults to the did:node profile. */
  protocol?: ProtocolParameters;
  /** Defaults to `ingest` (strict). See `ParseMode`. */
  mode?: ParseMode;
  /** Current Unix time in seconds for the ingest anchor-window check; defaults to the system clock. */
  now?: number;
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * Parses an operation request from its raw bytes (or text), e.g. the body of `POST /operations`. At ingest
 * the raw size limit applies and the bytes must be UTF-8; every rejection is an AppError bad_request.
 *
 * ```ts
 * const op = parseOperation(body, { protocol: DID_NODE_PROTOCOL, now: Math.floor(Date.now() / 1000) });
 * op.type; op.didSuffix; op.anchorOrigin; op.canonicalRequest; // store, queue, answer the client
 * ```
 */
export function parseOperation(request: Uint8Array | string, options: ParseOptions = {}): ParsedOperation {
  const context = contextOf(options);
  const bytes = typeof request === 'string' ? Buffer.from(request, 'utf8') : request;
  if (context.mode === 'ingest' && bytes.length > context.protocol.maxOperationSize) {
    throw badRequest(
      `operation request is too large: ${bytes.length} bytes exceeds the maximum of ${context.protocol.maxOperationSize}`,
    );
  }
  let text: string;
  try {
    text = context.mode === 'ingest' || typeof request !== 'string' ? utf8.decode(bytes) : request;
  } catch {
    throw badRequest('operation request is not valid UTF-8');
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw badRequest(`operation request is not valid JSON: ${(error as Error).message}`);
  }
  // Duplicate members would let two parsers read two operations from one request, and a lone surrogate
  // has no canonical form to hash: refused at ingest, before anything canonicalises the request.
  if (context.mode === 'ingest') {
    const defect = findJsonDefect(text);
    if (defect) throw badRequest(describeJsonDefect(defect, 'operation request'));
  }
  return parseRequestWith(json, context);
}

/** Parses an operation request that is already a JSON value (batch assembly, long-form DIDs, tests). */
export function parseOperationRequest(request: unknown, options: ParseOptions = {}): ParsedOperation {
  return parseRequestWith(request, contextOf(options));
}

function contextOf(options: ParseOptions): ParseContext {
  return {
    protocol: options.protocol ?? DID_NODE_PROTOCOL,
    mode: options.mode ?? 'ingest',
    now: options.now ?? Math.floor(Date.now() / 1000),
  };
}

function parseRequestWith(request: unknown, context: ParseContext): ParsedOperation {
  if (!isJsonObject(request)) throw badRequest('operation request must be a JSON object');
  const { type } = request;
  if (type === undefined) throw badRequest('operation type is missing');
  switch (type) {
    case 'create':
      return parseCreate(request, context);
    case 'update':
      return parseUpdate(request, context);
    case 'recover':
      return parseRecover(request, context);
    case 'deactivate':
      return parseDeactivate(request, context);
    default:
      throw badRequest(
        `operation type '${String(type)}' is not supported (expected create, update, recover or deactivate)`,
      );
  }
}
