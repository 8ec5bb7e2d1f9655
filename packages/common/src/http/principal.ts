import type { IncomingHttpHeaders } from 'node:http';

/**
 * Who a request was authorised as. Set on every request by the HTTP kit's auth layer (`req.principal`)
 * so handlers can apply their own rules (e.g. "a signed follower may read this collection").
 */
export type Principal =
  | { kind: 'anonymous' }
  /** A configured bearer token matched; `name` is its configured name when tokens are named. */
  | { kind: 'token'; name?: string }
  /** A valid HTTP signature; `actor` is the verified owner of `keyId`. */
  | { kind: 'signature'; actor: string; keyId: string };

/** What a signature verifier needs from a request; an express Request satisfies it. */
export interface SignedRequestLike {
  method: string;
  /** Path and query as sent on the request line (express: `originalUrl`). */
  originalUrl: string;
  headers: IncomingHttpHeaders;
  /** The exact body bytes received (set by the HTTP kit's body parsers); absent for body-less requests. */
  rawBody?: Buffer;
}

/**
 * Pluggable HTTP-signature check used when a token is required but absent (spec, Authentication rule 3).
 * Resolves the verified signer, resolves `undefined` when the request carries no signature at all, and
 * rejects with an `unauthorized` AppError when a signature is present but invalid or stale.
 */
export type SignatureAuthenticator = (
  request: SignedRequestLike,
) => Promise<{ actor: string; keyId: string } | undefined>;

/** An outbound request as a signer sees it (method upper-case, absolute URL, body bytes if any). */
export interface OutboundRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: Buffer;
}

/**
 * Adds authentication headers to an outbound request (HTTP signature headers `Date`, `Digest`,
 * `Signature`), returning the headers to send. Plugged into the shared HTTP client.
 */
export type RequestSigner = (request: OutboundRequest) => Promise<Record<string, string>>;
