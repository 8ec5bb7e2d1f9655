import {
  openApiRoute,
  type ApiInfo,
  type Handler,
  type HttpApp,
  type QueryParameterSpec,
  type RouteSpec,
} from '@anchor/common/http';
import { TLOG_SIZE_MEDIA_TYPE } from '@anchor/common/tlog';
import { LOG_ADD_VC } from '@anchor/common/schemas';
import { PROJECT_VERSION } from '@anchor/common/version';
import { WEBFINGER_PATH } from '@anchor/common/webfinger';
import type { LogApiHandlers } from './api/log-api-handlers.js';
import type { TlogTileHandlers } from './api/tlog-tiles.js';

export const VCT_LOG_API_INFO: ApiInfo = {
  title: 'vct-log',
  version: PROJECT_VERSION,
  description: 'An RFC 6962 transparency log of verifiable credentials (the VCT log API under `/<alias>`).',
};

export interface RoutedHandlers {
  logApi: LogApiHandlers;
  /** The alias as C2SP tlog-tiles: checkpoint and tiles. */
  tlog: TlogTileHandlers;
  webFinger: Handler;
  /** C2SP tlog-witness `add-checkpoint` (witness mode, `--witness-logs`). */
  addCheckpoint: Handler;
  /** The operator's JSON-LD context routes (`@anchor/common/jsonld-contexts`). */
  contextRoutes: readonly RouteSpec[];
}

const ALIAS = { alias: 'the log alias (`--logs`)' };
const NOT_SERVED = { 403: 'the log is not readable (or writable) here', 404: 'unknown alias' } as const;
/** A required integer query parameter; its minimum is the one the handler checks (a tree size for a proof is at least 1). */
const int = (name: string, description: string, minimum = 0): QueryParameterSpec => ({
  name,
  description,
  required: true,
  schema: { type: 'integer', minimum },
});

/**
 * Every HTTP route of the log: the HTTP kit's built-in routes, the log API of each alias (fast routes, read
 * and write tokens per `--api-read-token` / `--api-write-token`), WebFinger, the JSON-LD context routes
 * (token only), and `GET /openapi.json`.
 * The README's API table is rendered from it (`npm run docs`).
 */
export function vctLogRoutes(http: HttpApp, handlers: RoutedHandlers): RouteSpec[] {
  const api = { ...handlers.logApi, tlog: handlers.tlog };
  const logRoute = (
    method: 'GET' | 'POST',
    path: string,
    rest: Pick<RouteSpec, 'summary' | 'responses'> & Partial<Pick<RouteSpec, 'query' | 'body' | 'params'>>,
    handler: RouteSpec['handler'],
  ): RouteSpec =>
    ({
      method,
      path: `/:alias${path}`,
      auth: method === 'GET' ? 'read' : 'write',
      fast: true,
      tag: 'log',
      params: ALIAS,
      ...rest,
      handler,
    }) as RouteSpec;

  const routes: RouteSpec[] = [
    ...http.builtinRoutes,
    logRoute(
      'POST',
      '/v1/add-vc',
      {
        summary:
          'logs a credential: `{"svct_version":0,"id","timestamp","extensions":"","signature"}`, answered once the entry is stored',
        body: {
          mediaTypes: ['application/json', 'application/ld+json'],
          schema: LOG_ADD_VC,
          description: 'the credential as issued (any content type is read as text)',
        },
        responses: {
          200: { description: 'the signed timestamp', mediaType: 'application/json' },
          ...NOT_SERVED,
          400: '`parse credential: ...` (not JSON, not a credential, unknown context, undefined term, a proof that does not verify); `bad request: issuer X is not in a list`',
          413: 'body over `--request-body-limit`',
        },
      },
      api.addVc,
    ),
    logRoute(
      'GET',
      '/v1/get-sth',
      {
        summary: 'the signed tree head: `{"tree_size","timestamp","sha256_root_hash","tree_head_signature"}`',
        responses: { 200: { description: 'the tree head', mediaType: 'application/json' }, ...NOT_SERVED },
      },
      api.getSth,
    ),
    logRoute(
      'GET',
      '/v1/get-sth-consistency',
      {
        summary: '`{"consistency":[...]}`; `null` when `first` is 0 or equals `second`',
        query: [int('first', 'the earlier tree size'), int('second', 'the later tree size')],
        responses: {
          200: { description: 'the consistency proof', mediaType: 'application/json' },
          ...NOT_SERVED,
          400: '`validation failed: parameter "first" is not a number`; `... values must be >= 0` / `... is not a valid range`; `validation failed: need tree size: M for proof but only got: K`',
        },
      },
      api.getSthConsistency,
    ),
    logRoute(
      'GET',
      '/v1/get-proof-by-hash',
      {
        summary: '`{"leaf_index","audit_path"}` (`null` path for a 1-leaf tree)',
        query: [
          { name: 'hash', description: 'the leaf hash, padded base64 of 32 bytes', required: true },
          int('tree_size', 'the tree size the proof is for', 1),
        ],
        responses: {
          200: { description: 'the inclusion proof', mediaType: 'application/json' },
          400: 'not a number; `tree_size value must be greater than zero`; `invalid base64 hash: ...` (not padded base64, not 32 bytes)',
          403: NOT_SERVED[403],
          404: 'unknown alias; `not found: got tree size: K but we expected: N`; `not found: no leaf with hash ...` (unknown, not yet integrated, or beyond `tree_size`)',
        },
      },
      api.getProofByHash,
    ),
    logRoute(
      'GET',
      '/v1/get-entries',
      {
        summary: 'the entries of an inclusive range, at most `--max-get-entries` of them',
        query: [int('start', 'the first leaf index'), int('end', 'the last leaf index (inclusive)')],
        responses: {
          200: { description: 'the entries', mediaType: 'application/json' },
          ...NOT_SERVED,
          400: 'not a number; negative or `start > end`; `need tree size: S+1 to get leaves but only got: K`',
        },
      },
      api.getEntries,
    ),
    logRoute(
      'GET',
      '/v1/get-entry-and-proof',
      {
        summary: '`{"leaf_input","extra_data","audit_path"}`',
        query: [int('leaf_index', 'the leaf index'), int('tree_size', 'the tree size the proof is for', 1)],
        responses: {
          200: { description: 'the entry and its inclusion proof', mediaType: 'application/json' },
          ...NOT_SERVED,
          400: 'not a number, `tree_size` < 1, `leaf_index` < 0 or ≥ `tree_size`; `bad request: need tree size: N for proof, got: K`',
        },
      },
      api.getEntryAndProof,
    ),
    // The spec gives get-issuers both with and without /v1.
    ...['/v1/get-issuers', '/get-issuers'].map((path) =>
      logRoute(
        'GET',
        path,
        {
          summary: 'the issuers the log accepts: `["did:..."]`, or `null` when any issuer is',
          responses: { 200: { description: 'the issuers', mediaType: 'application/json' }, ...NOT_SERVED },
        },
        api.getIssuers,
      ),
    ),
    logRoute(
      'GET',
      '/checkpoint',
      {
        summary: 'the committed head as a C2SP tlog-tiles checkpoint',
        responses: {
          200: { description: 'the checkpoint note', mediaType: 'text/plain' },
          403: NOT_SERVED[403],
          404: "unknown alias; `no checkpoint: C2SP checkpoints are signed with Ed25519 and this log's key is P-256 ...`",
        },
      },
      api.tlog.checkpoint,
    ),
    logRoute(
      'GET',
      '/tile/*tile',
      {
        summary: 'a C2SP tlog-tiles hash tile or entry bundle of the committed tree',
        params: { ...ALIAS, tile: 'the tile path after `tile/`, over several segments (`0/x001/234.p/5`)' },
        responses: {
          200: { description: 'the tile bytes', mediaType: 'application/octet-stream' },
          403: NOT_SERVED[403],
          404: "unknown alias; not a tile path; `tile ... is beyond the log's tree of size N`",
          500: '`entry N is B bytes, over the 65,535 of a C2SP entry bundle ...` (a bundle holding a leaf over 64 KiB)',
        },
      },
      api.tlog.tile,
    ),
    {
      method: 'GET',
      path: WEBFINGER_PATH,
      auth: 'open',
      tag: 'log',
      summary: 'JRD of a log: `ledger-type` `vct-v1`, `public-key` (base64 of the key bytes), `self` link',
      query: [{ name: 'resource', description: '`<base-url>/<alias>`', required: true }],
      responses: {
        200: { description: 'the JRD', mediaType: 'application/jrd+json' },
        400: '`resource is required` / `invalid resource URI "..."`',
        404: '`resource not found "..."` (other host), `ledger ID is required`, `ledger ID not found "x"`',
      },
      handler: handlers.webFinger,
    },
    {
      method: 'POST',
      path: '/add-checkpoint',
      // Open, as C2SP tlog-witness says: the log's signature on the checkpoint is the only authentication.
      auth: 'open',
      tag: 'witness',
      summary:
        "C2SP tlog-witness: checks a known log's checkpoint against the one held for its origin, stores it and cosigns it",
      body: {
        mediaTypes: ['text/plain'],
        description: 'the add-checkpoint body (any content type is read as text)',
      },
      responses: {
        200: { description: 'the cosignature line (`— <witness name> <base64>`)', mediaType: 'text/plain' },
        400: 'malformed body or checkpoint note; old size past the checkpoint size',
        403: 'no signature by a key `--witness-logs` trusts for the origin, or one that does not verify',
        404: 'unknown origin (every origin without `--witness-logs`)',
        409: {
          description: 'the old size is not the size held: the size held, a decimal and a newline',
          mediaType: TLOG_SIZE_MEDIA_TYPE,
        },
        422: 'the consistency proof does not verify (or is not empty from 0); another root at the size held (a split view); a size-0 checkpoint without the empty root',
      },
      handler: handlers.addCheckpoint,
    },
    ...handlers.contextRoutes,
  ];
  routes.push(openApiRoute(VCT_LOG_API_INFO, routes));
  return routes;
}
