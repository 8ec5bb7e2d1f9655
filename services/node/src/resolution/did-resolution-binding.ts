import { AppError, errorMessage, statusOf } from '@anchor/common/errors';
import { answer, type Answer } from '@anchor/common/http';
import { parseDidUrl, resourceOf, type DidUrl } from './did-url.js';
import {
  DEREFERENCING_MEDIA_TYPE,
  type DocumentMediaType,
  type ResolutionRepresentation,
} from './resolution-media-types.js';

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
  invalidDidUrl: { type: 'INVALID_DID_URL', status: 400, title: 'The DID URL is not a valid DID URL' },
  featureNotSupported: { type: 'FEATURE_NOT_SUPPORTED', status: 501, title: 'The feature is not supported' },
} as const;

export type DereferencingErrorCode = keyof typeof ERRORS;
export type ResolutionErrorCode = Exclude<DereferencingErrorCode, 'invalidDidUrl' | 'featureNotSupported'>;

/** The media type of the node's DID documents in the DID Core 1.0 `ld` profile form (JSON-LD). */
const LD_DOCUMENT_CONTENT_TYPE = 'application/did+ld+json';
/**
 * The media type of the node's DID documents in the W3C DID Resolution forms: the DID media type, of which a
 * JSON-LD document with its `@context` is a representation.
 */
const DID_CONTENT_TYPE = 'application/did';
const RESOLUTION_CONTEXT = 'https://w3id.org/did-resolution/v1';

/** Version options (resolution options, or the DID parameters of a DID URL). */
export interface VersionParams {
  versionId?: string | undefined;
  versionTime?: string | undefined;
}

/** Orb's answer to a resolution request: a resolution result as JSON text (DID URL parameters override the request's). */
export type SeedResolution = (did: string, versions?: VersionParams) => Promise<{ body: string }>;

interface SeedResult {
  didDocument?: Record<string, unknown> | null;
  didDocumentMetadata?: Record<string, unknown>;
}

type BindingRepresentation = Exclude<ResolutionRepresentation, { kind: 'seed' }>;

/**
 * The W3C DID Resolution HTTP(S) binding of the node's resolution endpoints, for a request that asked for
 * it (`negotiateResolution`): Orb's resolution, re-shaped. A resolution result carries
 * `didResolutionMetadata` (`contentType`, the media type of its document, or `error`), and errors are
 * results too, with the binding's status: 400 `invalidDid` / `invalidOptions`, 404 `notFound`, 410 for a
 * deactivated DID (with its document, Orb's `{@context, id}`, and `deactivated: true`), 501
 * `methodNotSupported`, 500 `internalError`. The bare document answers the document media types, its
 * Content-Type the one asked for. A DID URL (a fragment, `versionId` / `versionTime` parameters), or any
 * input asked for as `application/did-url-dereferencing`, is dereferenced (`dereference`). The DID document
 * metadata holds no numbers (DID Core §7.3): each number Orb writes there (the `transactionTime`,
 * `transactionNumber` and `protocolVersion` of `method.publishedOperations`) is written as its decimal
 * string. Maintenance mode stays the kit's 503.
 */
export async function resolveWithBinding(
  representation: BindingRepresentation,
  input: string,
  supportedMethods: ReadonlySet<string>,
  seed: SeedResolution,
): Promise<Answer> {
  const didUrl = parseDidUrl(input);
  const plainDid =
    didUrl !== undefined && didUrl.path === '' && didUrl.query === undefined && didUrl.fragment === undefined;
  if (
    representation.kind === 'dereferencing' ||
    (didUrl !== undefined && !plainDid && representation.kind === 'document')
  )
    return dereference(representation, input, didUrl, supportedMethods, seed);
  if (!plainDid || didUrl === undefined)
    return failure(representation, 'invalidDid', `'${input}' is not a DID (did:<method>:<method-specific-id>)`);
  const { did, method } = didUrl;
  if (!supportedMethods.has(method))
    return failure(representation, 'methodNotSupported', unsupported(supportedMethods, method));

  const resolved = await resolveSeed(seed, did, method);
  if ('failure' in resolved) return failure(representation, resolved.failure.code, resolved.failure.detail);
  const { document, metadata, deactivated } = resolved;
  const status = deactivated ? 410 : 200;
  if (representation.kind === 'document') return documentAnswer(representation.mediaType, status, document);
  return resultAnswer(representation, status, {
    didDocument: document,
    didResolutionMetadata: {
      contentType: representation.form === 'ld' ? LD_DOCUMENT_CONTENT_TYPE : DID_CONTENT_TYPE,
    },
    didDocumentMetadata: metadata,
  });
}

/**
 * DID URL dereferencing (W3C DID Resolution §5) over the binding: the DID document (a DID alone, or with
 * `versionId` / `versionTime`), or the verification method or service its fragment names. Asked for as
 * `application/did-url-dereferencing`, the answer is the dereferencing result (`dereferencingMetadata` with
 * the `contentType` of the `contentStream`, and `contentMetadata`: the document's metadata); asked for as a
 * document media type, the resource alone with that Content-Type. Not found: 404 `notFound`; other DID
 * parameters, a path: 501 `featureNotSupported`; not a DID URL: 400 `invalidDidUrl`; deactivated: 410.
 */
async function dereference(
  representation: Extract<BindingRepresentation, { kind: 'dereferencing' | 'document' }>,
  input: string,
  didUrl: DidUrl | undefined,
  supportedMethods: ReadonlySet<string>,
  seed: SeedResolution,
): Promise<Answer> {
  const fail = (code: DereferencingErrorCode, detail: string) => dereferencingFailure(representation, code, detail);
  if (didUrl === undefined)
    return fail('invalidDidUrl', `'${input}' is not a DID URL (did:<method>:<id>[?query][#fragment])`);
  if (!supportedMethods.has(didUrl.method))
    return fail('methodNotSupported', unsupported(supportedMethods, didUrl.method));
  if (didUrl.path !== '')
    return fail('featureNotSupported', `this node dereferences no DID URL paths ('${didUrl.path}')`);
  const versions: VersionParams = {};
  for (const [name, value] of didUrl.query ?? []) {
    if (name !== 'versionId' && name !== 'versionTime')
      return fail(
        'featureNotSupported',
        `this node dereferences the DID parameters versionId and versionTime, not ${name}`,
      );
    versions[name] = value;
  }
  const resolved = await resolveSeed(
    seed,
    didUrl.did,
    didUrl.method,
    didUrl.query === undefined ? undefined : versions,
  );
  if ('failure' in resolved) return fail(resolved.failure.code, resolved.failure.detail);
  const { document, metadata, deactivated } = resolved;
  let content: Record<string, unknown> = document;
  if (didUrl.fragment !== undefined) {
    const resource = deactivated ? undefined : resourceOf(document, didUrl.did, didUrl.fragment);
    if (!resource) return fail('notFound', `${didUrl.did} has no verification method or service #${didUrl.fragment}`);
    content = document['@context'] === undefined ? resource : { '@context': document['@context'], ...resource };
  }
  const status = deactivated ? 410 : 200;
  if (representation.kind === 'document') return documentAnswer(representation.mediaType, status, content);
  return dereferencingAnswer(status, {
    dereferencingMetadata: { contentType: DID_CONTENT_TYPE },
    contentStream: content,
    contentMetadata: metadata,
  });
}

type Resolved =
  | { document: Record<string, unknown>; metadata: Record<string, unknown>; deactivated: boolean }
  | { failure: { code: ResolutionErrorCode; detail: string } };

async function resolveSeed(
  seed: SeedResolution,
  did: string,
  method: string,
  versions?: VersionParams,
): Promise<Resolved> {
  let result: SeedResult;
  try {
    result = JSON.parse((await seed(did, versions)).body) as SeedResult;
  } catch (error) {
    const status = statusOf(error);
    if (status === 503 && error instanceof AppError) throw error;
    return { failure: { code: errorCodeOf(status, method, error), detail: errorMessage(error) } };
  }
  const metadata = withoutNumbers(result.didDocumentMetadata ?? {}) as Record<string, unknown>;
  // A deactivated DID keeps Orb's `{@context, id}` document beside `deactivated: true`.
  const document = result.didDocument ?? { id: did };
  return { document, metadata, deactivated: metadata.deactivated === true };
}

function unsupported(supportedMethods: ReadonlySet<string>, method: string): string {
  return `this node resolves ${[...supportedMethods].map((m) => `did:${m}`).join(', ')}, not did:${method}`;
}

/** The document (or resource) alone: `application/did+json` without its `@context`. */
function documentAnswer(mediaType: DocumentMediaType, status: number, document: Record<string, unknown>): Answer {
  const body = { ...document };
  if (mediaType === 'application/did+json') delete body['@context'];
  return answer({ json: body, type: mediaType, status, headers: VARY });
}

/** Answers differ by `Accept`: caches must keep them apart. */
export const VARY: Readonly<Record<string, string>> = { Vary: 'Accept' };

/**
 * The resolution error of Orb's refusal: a malformed DID is `invalidDid`, a versionId / versionTime
 * problem `invalidOptions`; a did:web the node does not serve (another host, not a `scid` form) `notFound`.
 */
function errorCodeOf(status: number, method: string, error: unknown): ResolutionErrorCode {
  if (status === 404) return 'notFound';
  if (status !== 400) return 'internalError';
  if (/version ?(id|time)/i.test(errorMessage(error))) return 'invalidOptions';
  return method === 'web' ? 'notFound' : 'invalidDid';
}

function failure(representation: BindingRepresentation, code: ResolutionErrorCode, detail: string): Answer {
  if (representation.kind === 'dereferencing') return dereferencingFailure(representation, code, detail);
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

function dereferencingFailure(
  representation: Extract<BindingRepresentation, { kind: 'dereferencing' | 'document' }>,
  code: DereferencingErrorCode,
  detail: string,
): Answer {
  const { type, status, title } = ERRORS[code];
  if (representation.kind === 'document') return message(status, detail);
  return dereferencingAnswer(status, {
    dereferencingMetadata: { error: { type: `https://www.w3.org/ns/did#${type}`, title, detail } },
    contentStream: null,
    contentMetadata: {},
  });
}

function dereferencingAnswer(
  status: number,
  result: { dereferencingMetadata: unknown; contentStream: unknown; contentMetadata: unknown },
): Answer {
  return answer({ json: result, type: DEREFERENCING_MEDIA_TYPE, status, headers: VARY });
}

function resultAnswer(
  representation: Extract<BindingRepresentation, { kind: 'result' }>,
  status: number,
  result: { didDocument: unknown; didResolutionMetadata: unknown; didDocumentMetadata: unknown },
): Answer {
  const body = representation.form === 'ld' ? { '@context': RESOLUTION_CONTEXT, ...result } : result;
  return answer({ json: body, type: representation.mediaType, status, headers: VARY });
}

function message(status: number, text: string): Answer {
  return answer({ json: { message: text }, status, headers: VARY });
}

/** Every number in a metadata structure as its decimal string (DID Core §7.3 allows no numbers there). */
export function withoutNumbers(value: unknown): unknown {
  if (typeof value === 'number') return JSON.stringify(value);
  if (Array.isArray(value)) return value.map(withoutNumbers);
  if (typeof value === 'object' && value !== null)
    return Object.fromEntries(Object.entries(value).map(([key, member]) => [key, withoutNumbers(member)]));
  return value;
}
