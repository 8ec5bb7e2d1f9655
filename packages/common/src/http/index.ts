/**
 * The HTTP kit every service serves with: `createHttpApp` (helmet, body parsing with raw bytes, bearer
 * token rules and signature authentication, built-in `/healthcheck`, `/metrics`, `/loglevels`, one JSON
 * error mapper) and `startHttpServer` (graceful shutdown).
 */
import './request.js';

export { createHttpApp, type HttpApp, type HttpAppOptions } from './create-app.js';
export { startHttpServer, type RunningHttpServer, type HttpServerOptions, type TlsOptions } from './server.js';
export { TokenRules, parseTokenRules, type TokenRule, type NamedToken } from './token-rules.js';
export { bearerToken, requireToken, isAuthorized, requireAuthorization, signedBy, type AuthOptions, type Authorization } from './authentication.js';
export { HealthChecks, HEALTHY, type HealthCheck, type HealthCheckOptions, type HealthOptions, type HealthReport } from './health.js';
export { JSON_MEDIA_TYPES } from './body-parsing.js';
export { securityHeaders } from './security-headers.js';
export { errorCodeForStatus } from './status-codes.js';
export type { BuiltinRoutes } from './builtin-routes.js';
export type { Principal, SignedRequestLike, SignatureAuthenticator, OutboundRequest, RequestSigner } from './principal.js';
export { errorResponse, type ErrorResponse } from './error-mapping.js';
