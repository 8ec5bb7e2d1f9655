import { AppError } from '@anchor/common/errors';
import { openApiRoute, type ApiInfo, type Handler, type QueryParameterSpec, type RouteSpec } from '@anchor/common/http';
import { PROJECT_VERSION } from '@anchor/common/version';
import { WEBFINGER_PATH } from '@anchor/common/webfinger';
import type { ActivityPubFeature } from './activitypub/activitypub-feature.js';
import { AP_CONTENT_TYPE } from './activitypub/collections.js';
import type { CasFeature } from './cas/cas-feature.js';
import type { NodeContext } from './context.js';
import type { DidWebFeature } from './did-web/did-web-feature.js';
import type { WellKnownFeature } from './well-known/well-known-feature.js';
import {
  ACCEPT_LIST_UPDATE,
  ACTIVITY,
  ALLOWED_ORIGINS_UPDATE,
  INBOX_ACTIVITY,
  LOG_MONITOR_UPDATE,
} from './schemas/index.js';
import type { SidetreeApiFeature } from './sidetree-api/sidetree-api-feature.js';
import { DRIVER_IDENTIFIERS_PATH, IDENTIFIERS_PATH, OPERATIONS_PATH } from './sidetree-api/sidetree-api.js';
import type { SystemFeature } from './system/system-feature.js';
import type { AnchorCredentialsFeature } from './anchor-credentials/anchor-credentials-feature.js';
import type { VctClientFeature } from './vct-client/vct-client-feature.js';
import type { WitnessFeature } from './witness/witness-feature.js';
import type { JsonLdContextsFeature } from '@anchor/common/jsonld-contexts';
import type { LogMonitoringFeature } from './log-monitoring/log-monitoring-feature.js';
import type { DeadLettersFeature } from './dead-letters/dead-letters-feature.js';
import { EXPORT_PATH, EXPORT_STREAM_PATH, IMPORT_PATH, type ExportFeature } from './export/export-feature.js';
import { EXPORT_MAX_COUNT } from './export/operation-export.js';
import { explorerRoutes } from './explorer/explorer-routes.js';

/** The features whose handlers the node's routes are. */
export interface RoutedFeatures {
  sidetreeApi: SidetreeApiFeature;
  didWeb: DidWebFeature;
  cas: CasFeature;
  anchorCredentials: AnchorCredentialsFeature;
  vct: VctClientFeature;
  logMonitoring: LogMonitoringFeature;
  activitypub: ActivityPubFeature;
  witness: WitnessFeature;
  system: SystemFeature;
  wellKnown: WellKnownFeature;
  contexts: JsonLdContextsFeature;
  deadLetters: DeadLettersFeature;
  exports: ExportFeature;
}

const JSON_TYPES = ['application/json', 'application/ld+json'];

/**
 * `Access-Control-Allow-Origin: *` on a read the explorer's verifier makes from another node's page, as
 * `/.well-known/did.json` has: the witness policy and the `witnesses` collection an anchor's proofs are judged
 * by. Only where the token rules let the request in; a browser sends no token.
 */
function crossOrigin(handler: Handler): Handler {
  return async (req) => {
    let answered;
    try {
      answered = await handler(req);
    } catch (error) {
      // A refusal (no policy: 404, bad paging: 400) must be readable by that page as well.
      if (!AppError.is(error)) throw error;
      const { details, retryable } = error;
      throw new AppError(error.code, error.message, {
        ...(details === undefined ? {} : { details }),
        retryable,
        headers: { ...error.headers, ...ANY_ORIGIN },
        cause: error,
      });
    }
    return { ...answered, headers: { ...answered.headers, ...ANY_ORIGIN } };
  };
}
const ANY_ORIGIN = { 'Access-Control-Allow-Origin': '*' };

const PAGING: QueryParameterSpec[] = [
  { name: 'page', description: '`true` for a `CollectionPage` instead of the collection' },
  {
    name: 'page-num',
    description: 'the 0-based page number (with `page=true`)',
    schema: { type: 'integer', minimum: 0 },
  },
  {
    name: 'after',
    description: "a `next` link's cursor (with `page=true`): the page after it, by an index seek",
    schema: { type: 'string', pattern: '^[A-Za-z0-9_-]{1,1024}$' },
  },
];

export function nodeApiInfo(ctx: NodeContext): ApiInfo {
  return {
    title: 'anchor-node',
    version: PROJECT_VERSION,
    description:
      'The did:node anchoring node: Sidetree API, ActivityPub federation and witnessing, discovery and system endpoints.',
    httpSignatures: ctx.config.auth.httpSignatures,
  };
}

/**
 * Every HTTP route of the node: the HTTP kit's built-in routes, then the node's by the README's sections
 * (Sidetree and anchors, federation, system, discovery), each with who may call it, what it takes and
 * answers, and the feature handler that serves it; `GET /openapi.json` serves the table as OpenAPI 3.1.
 * The README's endpoint tables are rendered from it (`npm run docs`).
 */
export function nodeRoutes(ctx: NodeContext, features: RoutedFeatures): RouteSpec[] {
  const {
    sidetreeApi,
    didWeb,
    cas,
    anchorCredentials,
    vct,
    logMonitoring,
    activitypub,
    witness,
    system,
    wellKnown,
    deadLetters,
  } = features;
  const exportQuery: QueryParameterSpec[] = [
    {
      name: 'after',
      description:
        'a cursor (`<transaction number>:<operation index>`, the `cursor` of a page or item); absent or empty: from the first operation',
    },
    {
      name: 'count',
      description: `operations a page holds at most (1 to ${EXPORT_MAX_COUNT}, default ${EXPORT_MAX_COUNT})`,
      schema: { type: 'integer', minimum: 1, maximum: EXPORT_MAX_COUNT },
    },
  ];
  const ap = activitypub.handlers;
  const base = ctx.urls.servicePath;
  const collection = (name: string, what: string, handler: Handler): RouteSpec => ({
    method: 'GET',
    path: `${base}/${name}`,
    auth: 'signed',
    tag: 'federation',
    access: 'a token, or a signed follower or witness',
    summary: `${what} (paged)`,
    query: PAGING,
    responses: { 200: { description: 'the collection', mediaType: AP_CONTENT_TYPE }, 400: 'bad paging parameters' },
    handler,
  });
  const perAnchor = (name: string, what: string, handler: Handler): RouteSpec => ({
    ...collection(`${name}/:anchor`, what, handler),
    params: { anchor: 'an anchor hashlink or hash' },
    responses: {
      200: { description: 'the collection', mediaType: AP_CONTENT_TYPE },
      400: 'not an anchor hashlink or hash, or bad paging parameters',
    },
  });

  const routes: RouteSpec[] = [
    ...ctx.http.builtinRoutes,

    // Sidetree, anchors and the local witness log.
    {
      method: 'POST',
      path: OPERATIONS_PATH,
      auth: 'write',
      fast: true,
      tag: 'sidetree',
      summary:
        'create, update, recover, deactivate; 200 with the DID resolution result after the operation (unpublished for a create)',
      body: {
        mediaTypes: ['application/json'],
        schema: {
          type: 'object',
          required: ['type'],
          properties: { type: { enum: ['create', 'update', 'recover', 'deactivate'] } },
        },
        description: 'a Sidetree operation request',
      },
      responses: {
        200: { description: 'the DID resolution result', mediaType: 'application/did+ld+json' },
        400: 'names every refusal',
        413: 'body over `--body-limit`',
        503: 'maintenance mode',
      },
      handler: sidetreeApi.handlers.postOperation,
    },
    ...[IDENTIFIERS_PATH, DRIVER_IDENTIFIERS_PATH].map((path): RouteSpec => ({
      method: 'GET',
      path: `${path}/:did`,
      auth: 'read',
      fast: true,
      tag: 'sidetree',
      summary:
        path === IDENTIFIERS_PATH
          ? 'resolves every did:node form and `did:web:<host>:scid:<suffix>`, or dereferences a DID URL'
          : 'the Universal Resolver driver path: the same resolution as `/sidetree/v1/identifiers/{did}`, W3C binding included',
      params: { did: 'the DID (percent-encoded as a whole, or with `%3A` for a port)' },
      query: [
        { name: 'versionId', description: 'the version of a did:node DID to resolve (an operation hash)' },
        { name: 'versionTime', description: 'the version of a did:node DID current at this time (RFC 3339)' },
      ],
      responses: {
        200: {
          description: 'the DID resolution result (the binding: the result or the document, as `Accept` asked)',
          mediaType: 'application/did+ld+json',
        },
        400: 'malformed (the binding: `invalidDid`, `invalidDidUrl`, `invalidOptions`)',
        404: 'unknown (the binding: `notFound`, also an unknown fragment)',
        410: 'the binding only: the DID is deactivated (with its document)',
        500: 'the binding only: `internalError`',
        501: 'the binding only: `methodNotSupported`, `featureNotSupported`',
        503: 'maintenance mode',
      },
      handler: sidetreeApi.handlers.getIdentifier,
    })),
    {
      method: 'GET',
      path: `${IDENTIFIERS_PATH}/:did/history`,
      auth: 'read',
      fast: true,
      tag: 'sidetree',
      summary: 'every operation this node holds for a did:node DID (any form), in resolution order',
      params: { did: 'the DID (percent-encoded as a whole, or with `%3A` for a port)' },
      responses: {
        200: { description: 'the history', mediaType: 'application/json' },
        400: 'malformed, or a did:web id',
        404: 'unknown',
        503: 'maintenance mode',
      },
      handler: sidetreeApi.handlers.getHistory,
    },
    {
      method: 'GET',
      path: '/scid/:id/did.json',
      auth: 'read',
      tag: 'sidetree',
      summary: 'the did:web document of a did:node DID (no resolution wrapper)',
      params: { id: 'the DID suffix' },
      responses: {
        200: { description: 'the DID document', mediaType: 'application/json' },
        400: 'not a DID suffix',
        404: 'unknown or deactivated',
      },
      handler: didWeb.handlers.getDocument,
    },
    {
      method: 'GET',
      path: '/cas/:hash',
      auth: 'read',
      tag: 'sidetree',
      summary: 'raw bytes from the content-addressed store (batch files, anchor linksets)',
      params: { hash: 'the resource hash (`uEi…`)' },
      responses: { 200: 'the content, with its media type', 400: 'not a resource hash', 404: 'no content' },
      handler: cas.handlers.getContent,
    },
    {
      method: 'GET',
      path: '/vc/:id',
      auth: 'read',
      tag: 'sidetree',
      summary: 'a witnessed anchor credential',
      params: { id: 'the credential UUID' },
      responses: {
        200: { description: 'the credential', mediaType: 'application/ld+json' },
        400: 'not a UUID',
        404: 'no such credential',
      },
      handler: anchorCredentials.handlers.getCredential,
    },
    {
      method: 'GET',
      path: '/log',
      auth: 'read',
      tag: 'sidetree',
      summary: 'the transparency log used as the local witness: the URL of a log alias',
      responses: { 200: { description: 'the log URL', mediaType: 'text/plain' }, 404: 'no log is configured' },
      handler: vct.handlers.getLog,
    },
    {
      method: 'POST',
      path: '/log',
      auth: 'write',
      tag: 'sidetree',
      summary: 'sets the transparency log (text/plain URL of a log alias); an empty body removes it',
      body: { mediaTypes: ['text/plain'], schema: { type: 'string' }, required: false },
      responses: {
        200: { description: 'the log URL now set', mediaType: 'text/plain' },
        400: 'not a text body, or not a log URL',
      },
      handler: vct.handlers.setLog,
    },
    {
      method: 'GET',
      path: '/log-monitor',
      auth: 'admin',
      tag: 'sidetree',
      summary: 'the monitored transparency logs, active or inactive, or those found misbehaving',
      query: [
        {
          name: 'status',
          description: '`active` (default), `inactive` or `failed`',
          schema: { enum: ['active', 'inactive', 'failed'] },
        },
      ],
      responses: {
        200: { description: 'the logs', mediaType: 'application/json' },
        400: 'another status, or the parameter twice',
        404: 'no log has that status',
      },
      handler: logMonitoring.handlers.get,
    },
    {
      method: 'POST',
      path: '/log-monitor',
      auth: 'admin',
      tag: 'sidetree',
      summary: 'switches the monitoring of transparency logs on or off',
      body: { mediaTypes: JSON_TYPES, schema: LOG_MONITOR_UPDATE },
      responses: { 200: 'done', 400: 'bad shape or not a log URL; nothing changes' },
      handler: logMonitoring.handlers.post,
    },
    {
      method: 'GET',
      path: EXPORT_PATH,
      auth: 'read',
      tag: 'sidetree',
      summary: 'every operation this node holds, in anchor order, a page at a time',
      query: exportQuery,
      responses: {
        200: { description: 'a page of the export', mediaType: 'application/json' },
        400: 'a malformed cursor, or a count out of range',
      },
      handler: features.exports.handlers.getExport,
    },
    {
      method: 'GET',
      path: EXPORT_STREAM_PATH,
      auth: 'read',
      tag: 'sidetree',
      summary: 'the export as Server-Sent Events, then new anchors as they are committed',
      query: exportQuery,
      responses: {
        200: { description: 'the event stream', mediaType: 'text/event-stream' },
        400: 'a malformed cursor, or a count out of range',
      },
      handler: features.exports.handlers.streamExport,
    },
    {
      method: 'POST',
      path: IMPORT_PATH,
      auth: 'admin',
      tag: 'sidetree',
      summary:
        "imports a page of another node's export, each anchor verified before it is committed: how a mirror is built",
      body: {
        mediaTypes: JSON_TYPES,
        schema: { type: 'object', required: ['anchors'], properties: { anchors: { type: 'array' } } },
        description: 'a page of `GET /sidetree/v1/export`',
      },
      bodyLimit: ctx.config.server.importBodyLimit,
      responses: {
        200: { description: 'what was imported', mediaType: 'application/json' },
        400: 'not an export page, or an anchor that fails a check (named); the anchors before it are kept',
        413: 'body over `--import-body-limit` (64 MB by default; read after the token check)',
      },
      handler: features.exports.handlers.postImport,
    },

    // Federation: the service actor, its collections, inbox and outbox; the witness policy.
    {
      method: 'GET',
      path: base,
      auth: 'open',
      tag: 'federation',
      summary:
        'the Service actor: collections, `publicKey` (`{id, owner, publicKeyPem}`, or the DID URL for a did:web service)',
      responses: { 200: { description: 'the actor', mediaType: AP_CONTENT_TYPE } },
      handler: ap.actor,
    },
    {
      method: 'GET',
      path: `${base}/keys/:id`,
      auth: 'open',
      tag: 'federation',
      summary: 'the HTTP-signature key document (404 for a did:web service)',
      params: { id: 'the key id (`--http-sign-key-id`)' },
      responses: {
        200: { description: 'the key document', mediaType: 'application/json' },
        404: 'no such key, or the service id is a DID',
      },
      handler: ap.publicKey,
    },
    {
      method: 'GET',
      path: `${base}/did.json`,
      auth: 'open',
      tag: 'federation',
      summary: 'the service DID document (did:web service ids only)',
      responses: {
        200: { description: 'the DID document', mediaType: 'application/json' },
        404: 'the service id is not a DID',
      },
      handler: ap.didDocument,
    },
    collection('followers', 'unordered `Collection` of the services following this one', ap.followers),
    collection('following', 'unordered `Collection` of the services this one follows', ap.following),
    collection(
      'witnesses',
      'unordered `Collection` of the services witnessing for this one',
      crossOrigin(ap.witnesses),
    ),
    collection('witnessing', 'unordered `Collection` of the services this one witnesses for', ap.witnessing),
    collection('inbox', '`OrderedCollection` of the activities received', ap.inbox),
    collection('liked', '`OrderedCollection` of the anchor hashlinks this service liked', ap.liked),
    collection('likes', '`OrderedCollection` of the Likes received', ap.likes),
    perAnchor('likes', '`OrderedCollection` of the Likes of one anchor', ap.likes),
    collection('shares', '`OrderedCollection` of the Announces received', ap.shares),
    perAnchor('shares', '`OrderedCollection` of the Announces of one anchor', ap.shares),
    {
      ...collection('outbox', '`OrderedCollection` of the activities sent', ap.outbox),
      access: 'anyone: only public activities; a token or a signed followee or witness: all',
    },
    {
      method: 'GET',
      path: `${base}/activities/:id`,
      auth: 'signed',
      tag: 'federation',
      access: 'anyone for public activities, else as the outbox',
      summary: 'one activity',
      params: { id: 'the activity id under `<service>/activities/`' },
      responses: { 200: { description: 'the activity', mediaType: AP_CONTENT_TYPE }, 404: 'no such activity' },
      handler: ap.activity,
    },
    {
      method: 'POST',
      path: `${base}/outbox`,
      auth: 'signed',
      fast: true,
      tag: 'federation',
      access: "the admin token (open when no tokens are defined), or this service's signature",
      summary:
        'completes the activity (id, actor, published, default `to`), applies its effect, queues delivery; answers the new id (JSON string, also in `Location`) at once',
      body: { mediaTypes: JSON_TYPES, schema: ACTIVITY },
      responses: {
        200: { description: 'the new activity id', mediaType: 'application/json' },
        400: 'a malformed activity',
        503: 'maintenance mode',
      },
      handler: ap.postOutbox,
    },
    {
      method: 'POST',
      path: `${base}/inbox`,
      auth: 'signed',
      fast: true,
      tag: 'federation',
      access: "an HTTP signature by the activity's actor, or a token the rules admit; **unsigned is always 401**",
      summary: 'stored durably and queued, then 200; an id already received is acknowledged and ignored',
      body: { mediaTypes: JSON_TYPES, schema: INBOX_ACTIVITY },
      responses: {
        200: 'received',
        400: "a malformed activity (schema, unknown type, an id not on its actor's host)",
        503: 'maintenance mode',
      },
      handler: ap.postInbox,
    },
    {
      method: 'GET',
      path: '/policy',
      // The read class, as in Orb (`/policy|read&admin|admin`): the explorer checks witness proofs against it.
      auth: 'read',
      tag: 'federation',
      summary: 'the witness policy (text/plain)',
      responses: {
        200: { description: 'the policy', mediaType: 'text/plain' },
        404: 'no policy is set: the default applies',
      },
      handler: crossOrigin(witness.handlers.getPolicy),
    },
    {
      method: 'POST',
      path: '/policy',
      auth: 'admin',
      tag: 'federation',
      summary: 'sets the witness policy (text/plain); an empty body restores the default',
      body: { mediaTypes: ['text/plain'], schema: { type: 'string' }, required: false },
      responses: {
        200: { description: 'the policy now set', mediaType: 'text/plain' },
        400: 'not a policy (names the bad token)',
      },
      handler: witness.handlers.setPolicy,
    },

    // Dead letters: deliveries and received activities that failed on every attempt.
    {
      method: 'GET',
      path: '/dead-letters',
      auth: 'admin',
      tag: 'federation',
      summary: 'the dead letters kept, newest first',
      query: [
        {
          name: 'topic',
          description:
            "`node.activity.outbox` (recipients that could not be resolved), `node.activity.delivery` or `node.activity.inbox`: that topic's only",
          schema: { enum: ['node.activity.outbox', 'node.activity.delivery', 'node.activity.inbox'] },
        },
        {
          name: 'limit',
          description: 'at most this many (default 50)',
          schema: { type: 'integer', minimum: 1, maximum: 500 },
        },
        { name: 'after', description: 'the `next` of the previous page' },
      ],
      responses: {
        200: { description: 'the dead letters', mediaType: 'application/json' },
        400: 'an unknown topic, a limit out of range, or a parameter twice',
      },
      handler: deadLetters.handlers.list,
    },
    {
      method: 'GET',
      path: '/dead-letters/:id',
      auth: 'admin',
      tag: 'federation',
      summary: 'one dead letter, as listed',
      params: { id: 'the dead letter id (its queue message id)' },
      responses: { 200: { description: 'the dead letter', mediaType: 'application/json' }, 404: 'no such dead letter' },
      handler: deadLetters.handlers.get,
    },
    {
      method: 'POST',
      path: '/dead-letters/:id/replay',
      auth: 'admin',
      tag: 'federation',
      summary: 'publishes the message again on its topic with fresh attempts, forgets the dead letter and answers it',
      params: { id: 'the dead letter id' },
      responses: {
        200: { description: 'the dead letter replayed', mediaType: 'application/json' },
        404: 'no such dead letter',
        503: 'the queue did not take the message: the dead letter stays',
      },
      handler: deadLetters.handlers.replay,
    },
    {
      method: 'DELETE',
      path: '/dead-letters/:id',
      auth: 'admin',
      tag: 'federation',
      summary:
        'discards the dead letter (a delivery stays `dead`, a received activity is stored in the inbox unhandled); answers it',
      params: { id: 'the dead letter id' },
      responses: {
        200: { description: 'the dead letter discarded', mediaType: 'application/json' },
        404: 'no such dead letter',
      },
      handler: deadLetters.handlers.discard,
    },

    // System: accept lists, allowed origins, NodeInfo.
    {
      method: 'GET',
      path: `${base}/acceptlist`,
      auth: 'admin',
      tag: 'system',
      summary:
        '`[{"type":"follow","url":[...]},{"type":"invite-witness","url":[...]}]`; `?type=follow` or `?type=invite-witness` → that one entry',
      query: [
        {
          name: 'type',
          description: 'one list: `follow` or `invite-witness`',
          schema: { enum: ['follow', 'invite-witness'] },
        },
      ],
      responses: {
        200: { description: 'the accept lists', mediaType: 'application/json' },
        400: 'another type, or the parameter twice',
      },
      handler: system.handlers.acceptList.get,
    },
    {
      method: 'POST',
      path: `${base}/acceptlist`,
      auth: 'admin',
      tag: 'system',
      summary:
        '`[{"type", "add"?: [uri], "remove"?: [uri]}, ...]` (any JSON content type); per entry adds then removes, idempotent; answers the lists as GET does',
      body: { mediaTypes: JSON_TYPES, schema: ACCEPT_LIST_UPDATE },
      responses: {
        200: { description: 'the accept lists', mediaType: 'application/json' },
        400: 'an unknown or missing type, a non-URI, an unknown member or a non-array (naming the JSON path); nothing changes',
      },
      handler: system.handlers.acceptList.post,
    },
    {
      method: 'GET',
      path: '/allowedorigins',
      auth: 'admin',
      tag: 'system',
      summary: 'the anchor origins create and recover operations may name, `["https://...", ...]` (`*` allows any)',
      responses: { 200: { description: 'the allowed origins', mediaType: 'application/json' } },
      handler: system.handlers.allowedOrigins.get,
    },
    {
      method: 'POST',
      path: '/allowedorigins',
      auth: 'admin',
      tag: 'system',
      summary: 'adds then removes allowed anchor origins, idempotent, and answers the new list',
      body: { mediaTypes: JSON_TYPES, schema: ALLOWED_ORIGINS_UPDATE },
      responses: {
        200: { description: 'the allowed origins', mediaType: 'application/json' },
        400: 'bad shape; nothing changes',
      },
      handler: system.handlers.allowedOrigins.post,
    },
    ...(['2.0', '2.1'] as const).map((version): RouteSpec => ({
      method: 'GET',
      path: `/nodeinfo/${version}`,
      auth: 'read',
      tag: 'system',
      summary: `the node's NodeInfo ${version} document`,
      responses: {
        200: {
          description: 'the NodeInfo document',
          mediaType: `application/json; profile="http://nodeinfo.diaspora.software/ns/schema/${version}#"`,
        },
      },
      handler: wellKnown.handlers.nodeInfo[version],
    })),

    // Discovery: open even under a catch-all token rule, as in Orb (a peer must find this node before it holds any credential).
    {
      method: 'GET',
      path: '/.well-known/did-orb',
      auth: 'open',
      tag: 'discovery',
      summary:
        '`{"resolutionEndpoint": "<base>/sidetree/v1/identifiers", "operationEndpoint": "<base>/sidetree/v1/operations"}` (the path keeps Orb\'s name)',
      responses: { 200: { description: 'the endpoints', mediaType: 'application/json' } },
      handler: wellKnown.handlers.didOrb,
    },
    ...['/.well-known/host-meta', '/.well-known/host-meta.json'].map((path): RouteSpec => ({
      method: 'GET',
      path,
      auth: 'open',
      tag: 'discovery',
      summary:
        'JRD: the WebFinger template `<base>/.well-known/webfinger?resource={uri}` and the service, again as `alternate` for each `--discovery-domains` entry',
      responses: { 200: { description: 'the JRD', mediaType: 'application/json' } },
      handler: wellKnown.handlers.hostMeta,
    })),
    {
      method: 'GET',
      path: '/.well-known/did.json',
      auth: 'open',
      tag: 'discovery',
      summary:
        'the domain DID `did:web:<host>`: the anchor-credential signing key, which anchor-credential proofs name',
      responses: { 200: { description: 'the DID document', mediaType: 'application/json' } },
      handler: wellKnown.handlers.domainDid,
    },
    {
      method: 'GET',
      path: '/.well-known/nodeinfo',
      auth: 'open',
      tag: 'discovery',
      summary: 'the links to `/nodeinfo/2.0` and `/nodeinfo/2.1`',
      responses: { 200: { description: 'the links', mediaType: 'application/json' } },
      handler: wellKnown.handlers.nodeInfoLinks,
    },
    {
      method: 'GET',
      path: WEBFINGER_PATH,
      auth: 'open',
      tag: 'discovery',
      summary:
        'describes the node, its Sidetree endpoints, a DID of its namespace or an object in its CAS (the kinds below)',
      query: [{ name: 'resource', description: 'the URI described', required: true }],
      responses: {
        200: { description: 'the JRD', mediaType: 'application/jrd+json' },
        400: 'no `resource` (or an empty one, or it twice), or a malformed DID',
        404: 'a resource this node does not describe',
        502: 'the configured log does not answer its own WebFinger query',
      },
      handler: wellKnown.handlers.webFinger,
    },
    ...features.contexts.routes,

    // The explorer: a web page over the public endpoints above.
    ...explorerRoutes(),
  ];
  routes.push(openApiRoute(nodeApiInfo(ctx), routes));
  return routes;
}
