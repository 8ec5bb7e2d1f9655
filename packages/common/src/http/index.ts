/**
 * The HTTP kit every service serves with: `createHttpApp` (helmet, body parsing with raw bytes, bearer
 * token rules and signature authentication, built-in `/healthcheck`, `/metrics`, `/loglevels`, one JSON
 * error mapper), its fast routes answered in front of express (`FastRoutes`) and `startHttpServer`
 * (graceful shutdown); the one handler shape (`Handler`: a `RouteRequest` in, an `answer(...)` out, bodies
 * read by `jsonBody`); route tables (`mountRoutes`) and their OpenAPI document (`openApiDocument`,
 * `openApiRoute`) and README tables (`withRouteTables`).
 */
import './request.js';

export { createHttpApp, type HttpAppOptions } from './create-app.js';
export type { HttpApp } from './http-app.js';
export {
  endWhenServerCloses,
  startHttpServer,
  type RunningHttpServer,
  type HttpServerOptions,
  type TlsOptions,
} from './server.js';
export { TokenRules, parseTokenRules, type TokenRule, type NamedToken } from './token-rules.js';
export {
  bearerToken,
  requireToken,
  isAuthorized,
  requireAuthorization,
  signedBy,
  type AuthOptions,
  type Authorization,
} from './authentication.js';
export {
  HealthChecks,
  HEALTHY,
  type CheckResult,
  type HealthCheck,
  type HealthCheckOptions,
  type HealthOptions,
  type HealthReport,
} from './health.js';
export { StallBoundedProbe, type StallBoundedProbeOptions } from './stall-bounded-probe.js';
export {
  JSON_MEDIA_TYPES,
  formatByteSize,
  jsonBody,
  parseByteSize,
  plainTextBody,
  textBody,
  type PlainTextOptions,
} from './body-parsing.js';
export { answer, type Answer, type AnswerSpec, type Handler, type RouteRequest } from './handler.js';
export { checkQuery, queryValue } from './query-rule.js';
export { securityHeaders } from './security-headers.js';
export { FastRoutes } from './fast-routes.js';
export { errorCodeForStatus } from './status-codes.js';
export type { BuiltinRoutes } from './builtin-routes.js';
export { mountRoutes, mountedRoutes, routeTableOf, openApiPath } from './route-table.js';
export type {
  AuthClass,
  HttpMethod,
  JsonSchema,
  QueryParameterSpec,
  RequestBodySpec,
  ResponseSpec,
  RouteSpec,
} from './route-spec.js';
export { documentedRoutes, openApiDocument, openApiRoute, type ApiInfo, type OpenApiDocument } from './openapi.js';
export { renderRoutesMarkdown, routeTableTags, withRouteTables } from './route-table-markdown.js';
export type {
  Principal,
  SignedRequestLike,
  SignatureAuthenticator,
  OutboundRequest,
  RequestSigner,
} from './principal.js';
