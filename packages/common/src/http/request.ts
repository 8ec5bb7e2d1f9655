import type { Principal } from './principal.js';

/**
 * What the HTTP kit adds to every express request (module augmentation, so handlers see typed fields).
 */
declare module 'express-serve-static-core' {
  interface Request {
    /** The exact body bytes received (for HTTP signature Digest checks); undefined for body-less requests. */
    rawBody?: Buffer;
    /** Who the request was authenticated as: a named token, a verified signer, or anonymous. */
    principal: Principal;
    /**
     * True when the bearer-token rules are satisfied by the request itself: a valid token was given, or no
     * token is defined for this path and method. A valid HTTP signature alone leaves this false (see
     * `principal`): ordinary routes accept a signer anyway, self-authorising routes decide for themselves.
     */
    authorized: boolean;
  }
}

export {};
