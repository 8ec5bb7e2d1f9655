import { badRequest } from '@anchor/common/errors';
import { textBody, type RouteRequest } from '@anchor/common/http';

/**
 * The body of a route that takes a text/plain setting (`POST /log`, `POST /policy`): its text, undefined when
 * empty; a body of another type (JSON, bytes) is the 400 `refusal`, as these routes have always answered.
 */
export function plainTextBody(req: RouteRequest, refusal: string): string | undefined {
  if (req.body !== undefined && typeof req.parsedBody !== 'string') throw badRequest(refusal);
  return textBody(req);
}
