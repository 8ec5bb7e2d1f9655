import { badRequest } from '../errors/index.js';
import type { ContextDocument } from '../jsonld/index.js';

/** A JSON-LD context the operator added: its URL and the document served under it. */
export interface OperatorContext {
  readonly url: string;
  readonly document: ContextDocument;
}

/** Longer URLs (in UTF-8 bytes) are refused: a context URL is a store key. */
export const MAX_CONTEXT_URL_BYTES = 1_000;

/**
 * The contexts of a `--contexts-file` or of a `POST /ld/context` body, in any of the shapes trustbloc/vct's
 * tooling writes: one `{url, content}` document (its test fixtures), a list of them, or
 * `{"documents": [...]}` (aries' add-contexts request and remote-provider answer). `document` is taken
 * for `content`; aries' `documentURL` is ignored. A problem is a `bad_request` naming the entry.
 */
export function parseOperatorContexts(value: unknown): OperatorContext[] {
  const entries = isObject(value) && 'documents' in value ? value.documents : value;
  const list = Array.isArray(entries) ? entries : [entries];
  if (!Array.isArray(entries) && !isObject(entries))
    throw badRequest('contexts must be {"url","content"}, a list of them, or {"documents":[...]}');
  const seen = new Set<string>();
  return list.map((entry, index) => {
    const context = operatorContext(entry, Array.isArray(entries) ? `documents[${index}]` : 'the context');
    if (seen.has(context.url)) throw badRequest(`context ${context.url} is given twice`);
    seen.add(context.url);
    return context;
  });
}

function operatorContext(entry: unknown, where: string): OperatorContext {
  if (!isObject(entry)) throw badRequest(`${where} must be an object {"url","content"}`);
  const { url } = entry;
  if (typeof url !== 'string' || url.length === 0) throw badRequest(`${where}: "url" must be a non-empty string`);
  if (Buffer.byteLength(url, 'utf8') > MAX_CONTEXT_URL_BYTES)
    throw badRequest(`${where}: "url" is longer than ${MAX_CONTEXT_URL_BYTES} bytes`);
  if (!URL.canParse(url) || /\s/.test(url))
    throw badRequest(`${where}: "url" ${JSON.stringify(url)} is not an absolute URL`);
  const document = 'content' in entry ? entry.content : entry.document;
  if (!isObject(document) || !('@context' in document))
    throw badRequest(
      `${where} (${url}): "content" must be a JSON-LD context document, an object with an @context member`,
    );
  const inner = document['@context'];
  if (inner === null || (typeof inner !== 'object' && typeof inner !== 'string'))
    throw badRequest(`${where} (${url}): @context must be an object, a list or a URL`);
  return { url, document: { '@context': inner } };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
