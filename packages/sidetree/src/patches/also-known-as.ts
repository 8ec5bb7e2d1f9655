import { badRequest } from '@anchor/common/errors';
import type { ParseMode } from '../operations/parse-mode.js';
import { isAbsoluteUri, isGoUri } from './uri.js';

/** The `uris` of add/remove-also-known-as: a non-empty list of distinct URIs. */
export function checkAlsoKnownAsUris(value: unknown, mode: ParseMode): string[] {
  if (!Array.isArray(value)) throw badRequest('uris must be an array');
  if (value.length === 0) throw badRequest('uris must not be empty');
  const validUri = mode === 'ingest' ? isAbsoluteUri : isGoUri;
  const seen = new Set<string>();
  for (const uri of value) {
    if (typeof uri !== 'string') throw badRequest('uris must contain only strings');
    if (!validUri(uri)) throw badRequest(`uri '${uri}' is not a valid absolute URI`);
    if (seen.has(uri)) throw badRequest(`uri '${uri}' appears more than once`);
    seen.add(uri);
  }
  return value as string[];
}
