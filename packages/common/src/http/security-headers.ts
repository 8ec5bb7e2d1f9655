import type { IncomingMessage, ServerResponse } from 'node:http';
import helmet, { type HelmetOptions } from 'helmet';

/**
 * The response headers helmet sets with these options, computed once: for request listeners that answer
 * in front of the express app (a hot path served without express) and must send the same security headers
 * every kit response carries. Helmet's headers depend on its options only, never on the request.
 */
export function securityHeaders(options?: HelmetOptions): ReadonlyArray<readonly [string, string]> {
  const headers = new Map<string, readonly [string, string]>();
  const response = {
    setHeader(name: string, value: unknown) {
      headers.set(name.toLowerCase(), [name, Array.isArray(value) ? value.join(', ') : String(value)]);
      return response;
    },
    removeHeader(name: string) {
      headers.delete(name.toLowerCase());
    },
    getHeader: (name: string) => headers.get(name.toLowerCase())?.[1],
  };
  let failure: unknown;
  helmet(options)({} as IncomingMessage, response as unknown as ServerResponse, (error?: unknown) => {
    failure = error;
  });
  if (failure !== undefined) throw failure instanceof Error ? failure : new Error(String(failure));
  return [...headers.values()];
}
