import { createRequire } from 'node:module';
import type { DocumentLoader } from './document-loader.js';

/**
 * The one place that loads jsonld.js, typed to the few calls this module makes (the published type
 * package describes a far older API), and tuned for repeated canonicalisation of the same kinds of
 * documents.
 *
 * Why the tuning (ADR 0004, with the figures): untuned, about half of each canonicalisation of a small
 * credential goes to jsonld.js deep-cloning "active contexts" — every time expansion steps into a node while a type-scoped
 * context (VerifiableCredential, Ed25519Signature2020, ...) is in force, it reverts to the previous
 * context by deep-copying it, term definitions and all. The copy is also a new object, so the
 * processed-context cache (keyed by the active context object) then misses and the scoped context is
 * processed again from scratch. Active contexts are never mutated once built (jsonld.js itself shares
 * them through that cache across calls; `api.process` clones before it defines terms, and term
 * definitions are replaced, never edited), so sharing them instead of copying is safe: `revert` returns
 * the previous context itself and `clone` copies only the top-level maps.
 *
 * One more miss remains: before applying a type-scoped (non-propagated) context, jsonld.js makes a fresh
 * copy of the active context X whose revert point is X itself, and looks the processed result up under
 * that fresh object, so it never hits. Such a copy means exactly "X, revertible to X": the processed-
 * context cache is therefore keyed by a stable token for it (found by comparing its term definitions
 * with X's, entry by entry), and a copy that differs from X in anything is keyed by itself as before.
 *
 * Output is unchanged — the differential test runs a corpus through a pristine jsonld.js in another
 * process and compares N-Quads. The loader tagging bundled contexts `static` (so jsonld.js keeps them
 * resolved across calls) completes the tuning.
 */
const require = createRequire(import.meta.url);

interface JsonLdEvent {
  code: string;
  level: string;
  message: string;
  details?: Record<string, unknown>;
}

export type JsonLdEventHandler = (input: { event: JsonLdEvent; next: () => void }) => void;

export interface ToRdfOptions {
  documentLoader: DocumentLoader;
  base: null;
  safe: false;
  eventHandler: JsonLdEventHandler;
}

interface JsonLdApi {
  toRDF(input: unknown, options: ToRdfOptions): Promise<object[]>;
  /** A dataset (rdf-canonize's quads) as expanded JSON-LD; no options: native types and lists stay as RDF has them. */
  fromRDF(dataset: object[]): Promise<object[]>;
}

/** A term of rdf-canonize's (and jsonld.js's) datasets. */
export interface RdfTerm {
  termType: string;
  value: string;
  datatype?: RdfTerm;
  language?: string;
}

export interface RdfQuad {
  subject: RdfTerm;
  predicate: RdfTerm;
  object: RdfTerm;
  graph: RdfTerm;
}

interface RdfCanonizeApi {
  NQuads: {
    parse(input: string): object[];
    /** One quad as a canonical N-Quads line, newline included. */
    serializeQuadComponents(subject: RdfTerm, predicate: RdfTerm, object: RdfTerm, graph: RdfTerm): string;
  };
  canonize(
    dataset: object[],
    options: {
      algorithm: 'RDFC-1.0';
      format: 'application/n-quads';
      maxDeepIterations: number;
      messageDigestAlgorithm: string;
      canonicalIdMap?: Map<string, string>;
    },
  ): Promise<string>;
}

interface ActiveContext {
  mappings: Map<string, unknown>;
  protected: Record<string, boolean>;
  previousContext?: ActiveContext;
  inverse: unknown;
  getInverse: unknown;
  clone: (this: ActiveContext) => ActiveContext;
  revertToPreviousContext: (this: ActiveContext) => ActiveContext;
  '@base'?: unknown;
  '@language'?: unknown;
  '@vocab'?: unknown;
}

interface ContextModule {
  getInitialContext(options: { processingMode?: string }): ActiveContext;
}

interface ResolvedContextPrototype {
  getProcessed(activeContext: object): unknown;
  setProcessed(activeContext: object, processed: unknown): void;
}

/**
 * An absolute IRI as RFC 3987 has it, where jsonld.js 9 ends one at any `\s`: an IRI holding U+00A0 or another
 * non-ASCII space (a ucschar, allowed in IRIs and N-Quads) was "relative", so its triple was refused or dropped
 * (W3C rdf-canon test 060). ASCII whitespace still disqualifies, so whatever jsonld.js took as absolute still
 * is, and aries' processor (an IRI is absolute when it holds a colon) takes these too.
 */
const ABSOLUTE_IRI = /^([A-Za-z][A-Za-z0-9+-.]*|_):[^\t\n\v\f\r ]*$/;

/**
 * jsonld.js's modules copy `isAbsolute` from its url module when they load, so the rule is set before
 * jsonld.js is first required. Loaded earlier by someone else, it would canonicalise differently from
 * process to process: that is refused outright.
 */
function installAbsoluteIriRule(): boolean {
  const version = (require('jsonld/package.json') as { version: string }).version;
  if (version !== '9.0.0') return false;
  if (require.cache[require.resolve('jsonld/lib/toRdf.js')] !== undefined)
    throw new Error('jsonld.js was loaded before @anchor/common/jsonld could set its absolute-IRI rule');
  const url = require('jsonld/lib/url.js') as { isAbsolute: (value: unknown) => boolean };
  url.isAbsolute = (value) => typeof value === 'string' && ABSOLUTE_IRI.test(value);
  return true;
}

/** Whether the RFC 3987 absolute-IRI rule is in force (false only on a jsonld.js this was not written for). */
export const rfc3987AbsoluteIris: boolean = installAbsoluteIriRule();

type CreateNodeMap = (
  input: unknown,
  graphs: Record<string, object>,
  graph: string,
  issuer: unknown,
  name?: string,
  list?: unknown[],
) => void;

/**
 * jsonld.js files each subject of a graph under its IRI in a plain object (`toRDF`'s node map). Every credential
 * brings IRIs never seen before, and V8 gives a plain object a new hidden-class transition for each new key,
 * kept on the shared transition tree of `{}`: that was most of `createNodeMap`'s time (~15% of `toRDF` on the
 * log's credentials). A graph's subject map is therefore a dictionary from the start (no prototype). Only an
 * `@id` named like an `Object.prototype` member reads differently (jsonld.js would take the inherited member as
 * an existing subject, and with `__proto__` wrote onto `Object.prototype`); such an `@id` is a relative IRI, whose
 * triples toRDF drops either way. Like the IRI rule,
 * it is set before jsonld.js loads, whose modules copy `createNodeMap` when they load.
 */
function installDictionaryNodeMaps(): boolean {
  const version = (require('jsonld/package.json') as { version: string }).version;
  if (version !== '9.0.0') return false;
  if (require.cache[require.resolve('jsonld/lib/toRdf.js')] !== undefined)
    throw new Error('jsonld.js was loaded before @anchor/common/jsonld could set its node maps');
  const nodeMap = require('jsonld/lib/nodeMap.js') as { createNodeMap: CreateNodeMap };
  const createNodeMap = nodeMap.createNodeMap;
  if (typeof createNodeMap !== 'function') return false;
  nodeMap.createNodeMap = (input, graphs, graph, issuer, name, list) => {
    const subjects = graphs[graph];
    if (
      subjects !== undefined &&
      Object.getPrototypeOf(subjects) === Object.prototype &&
      Object.keys(subjects).length === 0
    )
      graphs[graph] = Object.create(null) as object;
    createNodeMap(input, graphs, graph, issuer, name, list);
  };
  return true;
}

/** Whether subject maps are dictionaries (false only on a jsonld.js this was not written for). */
export const dictionaryNodeMaps: boolean = installDictionaryNodeMaps();

export const jsonld = require('jsonld') as JsonLdApi;
export const rdfCanonize = require('rdf-canonize') as RdfCanonizeApi;

function shareCloneActiveContext(this: ActiveContext): ActiveContext {
  const child: ActiveContext = {
    mappings: new Map(this.mappings),
    clone: this.clone,
    inverse: null,
    getInverse: this.getInverse,
    protected: { ...this.protected },
    revertToPreviousContext: this.revertToPreviousContext,
  };
  if (this.previousContext) child.previousContext = this.previousContext;
  if ('@base' in this) child['@base'] = this['@base'];
  if ('@language' in this) child['@language'] = this['@language'];
  if ('@vocab' in this) child['@vocab'] = this['@vocab'];
  return child;
}

function shareRevertToPreviousContext(this: ActiveContext): ActiveContext {
  return this.previousContext ?? this;
}

/** Stable cache keys for "X, revertible to X", one per X; weakly held so contexts can still be collected. */
const revertibleToItself = new WeakMap<ActiveContext, object>();

function sameTermsAs(context: ActiveContext, other: ActiveContext): boolean {
  if (context.mappings.size !== other.mappings.size) return false;
  for (const [term, definition] of context.mappings) if (other.mappings.get(term) !== definition) return false;
  const protectedTerms = Object.keys(context.protected);
  if (protectedTerms.length !== Object.keys(other.protected).length) return false;
  if (!protectedTerms.every((term) => other.protected[term] === context.protected[term])) return false;
  return (
    context['@base'] === other['@base'] &&
    context['@language'] === other['@language'] &&
    context['@vocab'] === other['@vocab']
  );
}

function processedCacheKey(activeContext: ActiveContext): object {
  const previous = activeContext.previousContext;
  if (!previous || !sameTermsAs(activeContext, previous)) return activeContext;
  let key = revertibleToItself.get(previous);
  if (!key) {
    key = {};
    revertibleToItself.set(previous, key);
  }
  return key;
}

/**
 * Installs the sharing variants on jsonld.js's cached initial contexts; every active context derives
 * from one of them and inherits the two methods. Returns false (and leaves jsonld.js untouched) when the
 * internals are not the shape this was written against, e.g. after a jsonld.js upgrade: slower, never wrong.
 */
function installActiveContextSharing(): boolean {
  const version = (require('jsonld/package.json') as { version: string }).version;
  if (version !== '9.0.0') return false;
  const contextModule = require('jsonld/lib/context.js') as ContextModule;
  const initialContexts = [undefined, 'json-ld-1.1', 'json-ld-1.0'].map((processingMode) =>
    contextModule.getInitialContext(processingMode === undefined ? {} : { processingMode }),
  );
  if (
    !initialContexts.every(
      (context) => typeof context.clone === 'function' && typeof context.revertToPreviousContext === 'function',
    )
  ) {
    return false;
  }
  const resolvedContext = (require('jsonld/lib/ResolvedContext.js') as { prototype: ResolvedContextPrototype })
    .prototype;
  if (typeof resolvedContext.getProcessed !== 'function' || typeof resolvedContext.setProcessed !== 'function')
    return false;

  for (const context of initialContexts) {
    context.clone = shareCloneActiveContext;
    context.revertToPreviousContext = shareRevertToPreviousContext;
  }
  const { getProcessed, setProcessed } = resolvedContext;
  resolvedContext.getProcessed = function (this: ResolvedContextPrototype, activeContext: object) {
    return getProcessed.call(this, processedCacheKey(activeContext as ActiveContext));
  };
  resolvedContext.setProcessed = function (this: ResolvedContextPrototype, activeContext: object, processed: unknown) {
    setProcessed.call(this, processedCacheKey(activeContext as ActiveContext), processed);
  };
  return true;
}

/** Whether the active-context sharing is in force (reported by the benchmark). */
export const activeContextSharing: boolean = installActiveContextSharing();
