import { AppError, badRequest } from '../errors/index.js';
import { bundledDocumentLoader, type DocumentLoader } from './document-loader.js';
import { jsonld, rdfCanonize, type JsonLdEventHandler, type RdfQuad } from './jsonld-engine.js';
import { canonizeUniqueFirstDegree } from './rdfc-unique.js';

export interface CanonicalizeOptions {
  /** Defaults to the bundled, network-free loader. */
  documentLoader?: DocumentLoader;
  /**
   * Terms (property names, or type names) the document's contexts leave undefined and that may be dropped
   * instead of failing safe mode. Dropped terms are NOT covered by the canonical form, hence by no
   * signature: use only to interoperate with documents Orb produces that way (the anchor
   * credential's subject; see ANCHOR_CREDENTIAL_UNDEFINED_TERMS). `'any'` drops whatever does not map to
   * RDF, silently, as aries' JSON-LD processor does: for reproducing its log leaves of arbitrary
   * credentials, never for signing or verifying.
   */
  allowUndefinedTerms?: readonly string[] | 'any';
  /**
   * How many times RDFC-1.0 may run Hash N-Degree Quads (the step whose cost explodes on symmetric blank-node
   * graphs) before the document is refused as a `bad_request`. Default: `defaultMaxDeepIterations(quads)`.
   */
  maxDeepIterations?: number;
  /** RDFC-1.0's hash: SHA-256 by default; ecdsa-rdfc-2019 with a P-384 key canonicalises with SHA-384. */
  hashAlgorithm?: 'sha256' | 'sha384';
}

/**
 * The most Hash N-Degree Quads calls any document gets: the W3C rdf-canon suite's poison graphs (044c-046c)
 * need 430, its negative test (a 10-node clique, 074c) more than 1,000.
 */
export const RDF_CANON_MAX_DEEP_ITERATIONS = 1000;

/**
 * Calls times quads a document may cost: each call's work (copying the identifier issuer, hashing the
 * node's quads) grows with the dataset, so large documents get fewer calls. Figures: the jsonld README.
 */
export const RDF_CANON_WORK_BUDGET = 1_000_000;

/** The default bound for a dataset of `quads` quads: 1,000 calls up to 1,000 quads, then fewer. */
export function defaultMaxDeepIterations(quads: number): number {
  return Math.min(RDF_CANON_MAX_DEEP_ITERATIONS, Math.floor(RDF_CANON_WORK_BUDGET / Math.max(quads, 1)));
}

/**
 * Warnings that mean part of the document would silently not reach the RDF output: the same list as
 * jsonld.js's safe mode, which this module enforces itself so that `allowUndefinedTerms` can be honoured.
 */
const DATA_LOSS_EVENTS = new Set([
  'empty object',
  'free-floating scalar',
  'invalid @language value',
  'invalid property',
  'null @id value',
  'null @value value',
  'object with only @id',
  'object with only @language',
  'object with only @list',
  'object with only @value',
  'relative @id reference',
  'relative @type reference',
  'relative @vocab reference',
  'reserved @id value',
  'reserved @reverse value',
  'reserved term',
  'blank node predicate',
  'relative graph reference',
  'relative object reference',
  'relative predicate reference',
  'relative subject reference',
  'rdfDirection not set',
]);

/**
 * URDNA2015 (RDFC-1.0) canonical N-Quads of a JSON-LD document, in safe mode: a term the contexts do not
 * define, a relative IRI, or anything else that would be dropped silently is a `bad_request` naming it,
 * because a signature over a canonical form that lost data does not protect that data. Relative IRIs are
 * never resolved (no base). This is exactly what the transparency log hashes into its leaves.
 */
export async function canonicalize(document: unknown, options: CanonicalizeOptions = {}): Promise<string> {
  assertJsonLdInput(document);
  const maxDeepIterations = workBound(options.maxDeepIterations);
  const documentLoader = options.documentLoader ?? bundledDocumentLoader;
  const eventHandler =
    options.allowUndefinedTerms === 'any' ? ignoreDataLoss : dataLossGuard(new Set(options.allowUndefinedTerms ?? []));
  let dataset: object[];
  try {
    dataset = await jsonld.toRDF(document, { documentLoader, base: null, safe: false, eventHandler });
  } catch (error) {
    throw asBadRequest(error);
  }
  try {
    return await canonizeDataset(dataset, {
      ...(maxDeepIterations === undefined ? {} : { maxDeepIterations }),
      ...(options.hashAlgorithm === undefined ? {} : { hashAlgorithm: options.hashAlgorithm }),
    });
  } catch (error) {
    throw badRequest(`JSON-LD document cannot be canonicalised: ${errorText(error)}`, { cause: error });
  }
}

export interface CanonizeDatasetOptions {
  /** See `CanonicalizeOptions.maxDeepIterations`. */
  maxDeepIterations?: number | undefined;
  /** RDFC-1.0's hash; the credential formats all use the default, SHA-256. */
  hashAlgorithm?: 'sha256' | 'sha384';
  /** Filled with input blank node label -> canonical label. */
  canonicalIdMap?: Map<string, string>;
}

/**
 * RDFC-1.0 canonical N-Quads of an RDF dataset, given as jsonld.js's dataset or as N-Quads text, under the
 * work bound. Errors are rdf-canonize's own; `canonicalize` turns them into a `bad_request`.
 */
export function canonizeDataset(input: object[] | string, options: CanonizeDatasetOptions = {}): Promise<string> {
  const dataset = typeof input === 'string' ? rdfCanonize.NQuads.parse(input) : input;
  const bound = workBound(options.maxDeepIterations);
  // Distinct first-degree hashes (nearly every credential) need no Hash N-Degree Quads: the fast path's case.
  const unique = canonizeUniqueFirstDegree(
    dataset as RdfQuad[],
    options.hashAlgorithm ?? 'sha256',
    options.canonicalIdMap,
  );
  if (unique !== undefined) return Promise.resolve(unique);
  const maxDeepIterations = bound ?? defaultMaxDeepIterations(dataset.length);
  return rdfCanonize.canonize(dataset, {
    algorithm: 'RDFC-1.0',
    format: 'application/n-quads',
    maxDeepIterations,
    messageDigestAlgorithm: options.hashAlgorithm ?? 'sha256',
    ...(options.canonicalIdMap ? { canonicalIdMap: options.canonicalIdMap } : {}),
  });
}

/** A caller's bound, checked: a wrong one is the caller's bug, never the document's 400. */
function workBound(maxDeepIterations: number | undefined): number | undefined {
  if (maxDeepIterations === undefined) return undefined;
  if (!(Number.isInteger(maxDeepIterations) || maxDeepIterations === Infinity) || maxDeepIterations < 0) {
    throw new RangeError(`maxDeepIterations must be a non-negative integer or Infinity, not ${maxDeepIterations}`);
  }
  return maxDeepIterations;
}

function assertJsonLdInput(document: unknown): void {
  if (typeof document !== 'object' || document === null)
    throw badRequest('a JSON-LD document must be a JSON object or array');
}

const ignoreDataLoss: JsonLdEventHandler = ({ next }) => next();

function dataLossGuard(allowed: ReadonlySet<string>): JsonLdEventHandler {
  return ({ event, next }) => {
    if (
      event.level === 'warning' &&
      DATA_LOSS_EVENTS.has(event.code) &&
      !isAllowedLoss(event.code, event.details ?? {}, allowed)
    ) {
      throw badRequest(`invalid JSON-LD: ${describeLoss(event.code, event.details ?? {}, event.message)}`, {
        details: { jsonldEvent: event.code },
      });
    }
    next();
  };
}

/** An allowed undefined term may be dropped as a property, as a relative type, or as that type's RDF object. */
function isAllowedLoss(code: string, details: Record<string, unknown>, allowed: ReadonlySet<string>): boolean {
  const subject =
    code === 'invalid property'
      ? details.property
      : code === 'relative @type reference'
        ? details.type
        : code === 'relative object reference'
          ? details.object
          : undefined;
  return typeof subject === 'string' && allowed.has(subject);
}

function describeLoss(code: string, details: Record<string, unknown>, message: string): string {
  const quoted = (value: unknown): string => JSON.stringify(value);
  switch (code) {
    case 'invalid property':
      return `term ${quoted(details.property)} is not defined by the document's @context`;
    case 'relative @type reference':
      return `type ${quoted(details.type)} is not defined by the document's @context (it would be a relative IRI)`;
    case 'relative @id reference':
      return `@id ${quoted(details.id)} is a relative IRI reference`;
    case 'relative object reference':
      return `value ${quoted(details.object)} is a relative IRI reference`;
    case 'relative subject reference':
      return `subject ${quoted(details.subject)} is a relative IRI reference`;
    case 'relative predicate reference':
      return `property ${quoted(details.predicate)} is a relative IRI reference`;
    case 'blank node predicate':
      return `term ${quoted(String(details.property).replace(/^_:/, ''))} is not defined by the document's @context (its "@vocab": "_:" would make it a blank node)`;
    default:
      return `${message.replace(/\.$/, '')} (${code})`;
  }
}

/**
 * jsonld.js reports failures as JsonLdErrors that wrap the underlying cause (a loader error inside
 * "loading remote context failed", inside "invalid scoped context", ...). An AppError anywhere in that
 * chain (unknown context, a data-loss event) is the real message; anything else is malformed JSON-LD.
 */
function asBadRequest(error: unknown): AppError {
  const appError = findAppError(error, 0);
  if (appError) return appError;
  return badRequest(`invalid JSON-LD: ${errorText(error)}`, { cause: error });
}

function findAppError(error: unknown, depth: number): AppError | undefined {
  if (error instanceof AppError) return error;
  if (depth > 8 || typeof error !== 'object' || error === null) return undefined;
  const record = error as { details?: { cause?: unknown; event?: unknown }; cause?: unknown };
  return findAppError(record.details?.cause, depth + 1) ?? findAppError(record.cause, depth + 1);
}

function errorText(error: unknown): string {
  if (typeof error !== 'object' || error === null) return String(error);
  const { message, details } = error as { message?: unknown; details?: { code?: unknown } };
  const code = typeof details?.code === 'string' ? ` (${details.code})` : '';
  return `${typeof message === 'string' ? message : String(error)}${code}`;
}
