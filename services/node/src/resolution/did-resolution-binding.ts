import { AppError, errorMessage, statusOf } from '@anchor/common/errors';
import type { FastAnswer } from '@anchor/common/http';
import type { ResolutionRepresentation } from './resolution-media-types.js';

/**
 * The errors a resolution answers with, by their DID Core 1.0 / DID Spec Registries code, with the W3C DID
 * Resolution error type (`https://www.w3.org/ns/did#<TYPE>`) and the HTTP status its binding gives them.
 */
const ERRORS = {
  invalidDid: { type: 'INVALID_DID', status: 400, title: 'The DID is not a valid DID' },
  invalidOptions: { type: 'INVALID_OPTIONS', status: 400, title: 'The resolution options are invalid' },
  notFound: { type: 'NOT_FOUND', status: 404, title: 'The DID was not found' },
  methodNotSupported: { type: 'METHOD_NOT_SUPPORTED', status: 501, title: 'The DID method is not supported' },
  internalError: { type: 'INTERNAL_ERROR', status: 500, title: 'The resolution failed' },
} as const;

export type ResolutionErrorCode = keyof typeof ERRORS;

/** The media type of the node's DID documents (JSON-LD, DID Core 1.0 context). */
const DOCUMENT_CONTENT_TYPE = 'application/did+ld+json';
const RESOLUTION_CONTEXT = 'https://w3id.org/did-resolution/v1';
const DID_SYNTAX = /^did:([a-z0-9]+):((?:[A-Za-z0-9._:-]|%[0-9A-Fa-f]{2})*(?:[A-Za-z0-9._-]|%[0-9A-Fa-f]{2}))$/;

/** The original's answer to a resolution request: a resolution result as JSON text. */
export type SeedResolution = () => Promise<{ body: string }>;

interface SeedResult {
  didDocument?: Record<string, unknown> | null;
  didDocumentMetadata?: Record<string, unknown>;
}

/**
 * The W3C DID Resolution HTTP(S) binding of the node's resolution endpoints, for a request that asked for
 * it (`negotiateResolution`): the original's resolution, re-shaped. A resolution result carries
 * `didResolutionMetadata` (`contentType`, or `error`), and errors are results too, with the binding's
 * status: 400 `invalidDid` / `invalidOptions`, 404 `notFound`, 410 for a deactivated DID (no document in
 * the `did-resolution` form, the original's `{@context, id}` in the DID Core 1.0 `ld` form), 501
 * `methodNotSupported`, 500 `internalError`. The bare document answers the document media types. The
 * DID document metadata holds no numbers (DID Core §7.3): each number the original writes there (the
 * `transactionTime`, `transactionNumber` and `protocolVersion` of `method.publishedOperations`) is written as
 * its decimal string. Maintenance mode stays the kit's 503.
 */
export async function resolveWithBinding(
  representation: Exclude<ResolutionRepresentation, { kind: 'seed' }>,
  did: string,
  supportedMethods: ReadonlySet<string>,
  seed: SeedResolution,
): Promise<FastAnswer> {
  const syntax = DID_SYNTAX.exec(did);
  if (!syntax)
    return failure(representation, 'invalidDid', `'${did}' is not a DID (did:<method>:<method-specific-id>)`);
  const method = syntax[1] as string;
  if (!supportedMethods.has(method))
    return failure(
      representation,
      'methodNotSupported',
      `this node resolves ${[...supportedMethods].map((m) => `did:${m}`).join(', ')}, not did:${method}`,
    );

  let result: SeedResult;
  try {
    result = JSON.parse((await seed()).body) as SeedResult;
  } catch (error) {
    const status = statusOf(error);
    if (status === 503 && error instanceof AppError) throw error;
    return failure(representation, errorCodeOf(status, method, error), errorMessage(error));
  }

  const metadata = withoutNumbers(result.didDocumentMetadata ?? {}) as Record<string, unknown>;
  const deactivated = metadata.deactivated === true;
  if (representation.kind === 'document') {
    if (deactivated) return message(410, `${did} is deactivated`);
    const document = { ...(result.didDocument ?? {}) };
    if (representation.mediaType === 'application/did+json') delete document['@context'];
    return { status: 200, contentType: representation.mediaType, body: JSON.stringify(document), headers: VARY };
  }
  return resultAnswer(representation, deactivated ? 410 : 200, {
    // DID Resolution's algorithm answers a deactivated DID without a document; DID Core 1.0 keeps it.
    didDocument: deactivated && representation.form === 'did-resolution' ? null : (result.didDocument ?? null),
    didResolutionMetadata: { contentType: DOCUMENT_CONTENT_TYPE },
    didDocumentMetadata: metadata,
  });
}

/** Answers differ by `Accept`: caches must keep them apart. */
export const VARY: Readonly<Record<string, string>> = { Vary: 'Accept' };

/**
 * The resolution error of the original's refusal: a malformed DID is `invalidDid`, a versionId / versionTime
 * problem `invalidOptions`; a did:web the node does not serve (another host, not a `scid` form) `notFound`.
 */
function errorCodeOf(status: number, method: string, error: unknown): ResolutionErrorCode {
  if (status === 404) return 'notFound';
  if (status !== 400) return 'internalError';
  if (/version ?(id|time)/i.test(errorMessage(error))) return 'invalidOptions';
  return method === 'web' ? 'notFound' : 'invalidDid';
}

function failure(
  representation: Exclude<ResolutionRepresentation, { kind: 'seed' }>,
  code: ResolutionErrorCode,
  detail: string,
): FastAnswer {
  const { type, status, title } = ERRORS[code];
  if (representation.kind === 'document') return message(status, detail);
  const error =
    representation.form === 'ld'
      ? { error: code, errorMessage: detail }
      : { error: { type: `https://www.w3.org/ns/did#${type}`, title, detail } };
  return resultAnswer(representation, status, {
    didDocument: null,
    didResolutionMetadata: error,
    didDocumentMetadata: {},
  });
}

function resultAnswer(
  representation: Extract<ResolutionRepresentation, { kind: 'result' }>,
  status: number,
  result: { didDocument: unknown; didResolutionMetadata: unknown; didDocumentMetadata: unknown },
): FastAnswer {
  const body = representation.form === 'ld' ? { '@context': RESOLUTION_CONTEXT, ...result } : result;
  return { status, contentType: representation.mediaType, body: JSON.stringify(body), headers: VARY };
}

function message(status: number, text: string): FastAnswer {
  return { status, contentType: 'application/json', body: JSON.stringify({ message: text }), headers: VARY };
}

/** Every number in a metadata structure as its decimal string (DID Core §7.3 allows no numbers there). */
export function withoutNumbers(value: unknown): unknown {
  if (typeof value === 'number') return JSON.stringify(value);
  if (Array.isArray(value)) return value.map(withoutNumbers);
  if (typeof value === 'object' && value !== null)
    return Object.fromEntries(Object.entries(value).map(([key, member]) => [key, withoutNumbers(member)]));
  return value;
}
