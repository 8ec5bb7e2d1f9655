import { badRequest } from '@anchor/common/errors';
import { isJsonObject } from '../json.js';
import type { ParseMode } from '../operations/parse-mode.js';
import { checkId } from './ids.js';
import type { ServiceEntry } from './types.js';
import { isAbsoluteUri, isGoRequestUri } from './uri.js';

export const MAX_SERVICE_TYPE_LENGTH = 30;

/**
 * Validates services of an add-services patch (non-empty) or a replace document (may be empty). Members
 * beyond id, type and serviceEndpoint are kept and rendered (orb documents carry priority, recipientKeys,
 * routingKeys).
 */
export function checkServices(value: unknown, mode: ParseMode, options: { allowEmpty: boolean }): ServiceEntry[] {
  if (!Array.isArray(value)) throw badRequest('services must be an array');
  if (value.length === 0 && !options.allowEmpty) throw badRequest('services must not be empty');
  const seen = new Set<string>();
  return value.map((entry) => {
    const service = checkService(entry, mode);
    if (seen.has(service.id)) throw badRequest(`service id '${service.id}' appears more than once`);
    seen.add(service.id);
    return service;
  });
}

function checkService(value: unknown, mode: ParseMode): ServiceEntry {
  if (!isJsonObject(value)) throw badRequest('each service must be a JSON object');
  const id = checkId(value.id, 'service');
  const { type } = value;
  if (typeof type !== 'string' || type.length === 0)
    throw badRequest(`service '${id}' type must be a non-empty string`);
  if (type.length > MAX_SERVICE_TYPE_LENGTH) {
    throw badRequest(`service '${id}' type is too long: ${type.length} characters exceeds ${MAX_SERVICE_TYPE_LENGTH}`);
  }
  checkServiceEndpoint(value.serviceEndpoint, id, mode);
  return value as ServiceEntry;
}

/**
 * A URI string, an array (of URI strings or objects), or an object. Ingest checks every string; anchored
 * data follows Go, which checks each element of a string array but only the first string of a mixed array.
 */
function checkServiceEndpoint(endpoint: unknown, id: string, mode: ParseMode): void {
  const validUri = mode === 'ingest' ? isAbsoluteUri : isGoRequestUri;
  const uriKind = mode === 'ingest' ? 'a valid absolute URI' : 'a valid URI';
  const fail = (detail: string): never => {
    throw badRequest(`service '${id}' serviceEndpoint ${detail}`);
  };
  if (endpoint === undefined) fail('is missing');
  if (typeof endpoint === 'string') {
    if (!validUri(endpoint)) fail(`'${endpoint}' is not ${uriKind}`);
    return;
  }
  if (Array.isArray(endpoint)) {
    if (endpoint.length === 0) fail('must not be an empty array');
    if (mode === 'anchored') {
      const first = endpoint.find((element) => typeof element === 'string') as string | undefined;
      if (first !== undefined && !validUri(first)) fail(`'${first}' is not ${uriKind}`);
      return;
    }
    for (const element of endpoint) {
      if (typeof element === 'string') {
        if (!validUri(element)) fail(`'${element}' is not ${uriKind}`);
      } else if (!isJsonObject(element)) {
        fail('array elements must be URI strings or JSON objects');
      }
    }
    return;
  }
  if (!isJsonObject(endpoint)) fail('must be a URI string, an array or a JSON object');
}
