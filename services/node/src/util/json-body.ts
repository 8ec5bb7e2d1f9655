import { badRequest } from '@anchor/common/errors';

/**
 * A request's JSON body whatever content type it came with: the HTTP kit parses the JSON types, and a body
 * sent without one (`curl -d` says form-urlencoded) arrives as text or bytes, which are parsed here so the
 * system endpoints answer operators' plain curl commands; fast routes (inbox, outbox) get exact bytes and
 * parse them here too. No body, or text that is not JSON, is a 400.
 */
export function jsonBody(body: unknown, what: string): unknown {
  if (body === undefined) throw badRequest(`${what}: a JSON body is required`);
  if (typeof body !== 'string' && !Buffer.isBuffer(body)) return body;
  const text = typeof body === 'string' ? body : body.toString('utf8');
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw badRequest(`${what}: the body is not JSON`);
  }
}
