import { badRequest } from '../errors/index.js';
import { bundledContext, contextLookupKey, type ContextDocument } from './contexts.js';

/** What a JSON-LD document loader returns (the shape jsonld.js and the Digital Bazaar suites expect). */
export interface RemoteDocument {
  contextUrl: string | null;
  documentUrl: string;
  document: unknown;
  /**
   * jsonld.js keeps a resolved (and, per active context, processed) context across calls only when its
   * document is tagged `static`; untagged contexts are loaded and processed again on every call.
   */
  tag?: 'static';
}

export type DocumentLoader = (url: string) => Promise<RemoteDocument>;

/**
 * Where a context that is not bundled could come from. Nothing implements this yet on purpose: the seam
 * exists so that an allow-listed remote fetch (behind a configuration flag, with its own cache) can be
 * added later without touching the callers of `createDocumentLoader`.
 */
export interface ContextSource {
  /** The context document for `url`, or undefined when this source does not serve it. */
  load(url: string): Promise<ContextDocument | undefined>;
}

export interface DocumentLoaderOptions {
  /** Extra static contexts (URL → context document), e.g. a test vocabulary or an operator-provided context. */
  contexts?: Readonly<Record<string, ContextDocument>>;
  /** Consulted, in order, for URLs that are neither bundled nor in `contexts`. */
  sources?: readonly ContextSource[];
}

/**
 * A document loader that never touches the network: bundled contexts, then `contexts`, then any explicit
 * `sources`. Anything else is a `bad_request` naming the URL. Every load hands out a fresh copy, because
 * jsonld.js rewrites relative context URLs inside the documents it is given. Bundled and extra contexts
 * are tagged static, so jsonld.js caches them once processed; a source decides nothing about caching yet.
 */
export function createDocumentLoader(options: DocumentLoaderOptions = {}): DocumentLoader {
  const extra = new Map<string, ContextDocument>();
  for (const [url, document] of Object.entries(options.contexts ?? {})) {
    if (!isContextDocument(document)) throw badRequest(`context ${url} must be an object with an @context member`);
    extra.set(contextLookupKey(url), document);
  }
  const sources = options.sources ?? [];

  return async (url: string): Promise<RemoteDocument> => {
    if (typeof url !== 'string' || url.length === 0) throw badRequest('JSON-LD context URL must be a non-empty string');
    const fixed = bundledContext(url)?.document ?? extra.get(contextLookupKey(url));
    if (fixed !== undefined)
      return { contextUrl: null, documentUrl: url, document: structuredClone(fixed), tag: 'static' };
    const document = await loadFromSources(sources, url);
    if (document === undefined) {
      throw badRequest(`unknown JSON-LD context ${url}: it is not bundled and remote context loading is disabled`, {
        details: { context: url },
      });
    }
    return { contextUrl: null, documentUrl: url, document: structuredClone(document) };
  };
}

async function loadFromSources(sources: readonly ContextSource[], url: string): Promise<ContextDocument | undefined> {
  for (const source of sources) {
    const document = await source.load(url);
    if (document !== undefined) return document;
  }
  return undefined;
}

function isContextDocument(value: unknown): value is ContextDocument {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && '@context' in value;
}

/** The loader over the bundled contexts only: what every caller uses unless it has a reason not to. */
export const bundledDocumentLoader: DocumentLoader = createDocumentLoader();
