import { defineSchema } from '@anchor/common/schemas';
import { ACCEPT_LIST_TYPES, type AcceptListType } from '../runtime-config/accept-lists.js';

/**
 * Request bodies of the node's own JSON endpoints. The system endpoints are ours alone, so their bodies
 * are closed (an unknown member is a mistake worth reporting); activities come from other nodes and the
 * spec leaves them open, so only the envelope members it names are checked.
 */

const uriList = { type: 'array', items: { type: 'string', format: 'uri' } } as const;

export interface AcceptListUpdate {
  type: AcceptListType;
  add?: string[];
  remove?: string[];
}

/** POST /services/node/acceptlist: `[{type, add?, remove?}]`. */
export const ACCEPT_LIST_UPDATE = defineSchema<AcceptListUpdate[]>({
  $id: 'urn:anchor:schema:node:accept-list-update',
  type: 'array',
  items: {
    type: 'object',
    required: ['type'],
    additionalProperties: false,
    properties: {
      type: { enum: ACCEPT_LIST_TYPES },
      add: uriList,
      remove: uriList,
    },
  },
});

export interface AllowedOriginsUpdate {
  add?: string[];
  remove?: string[];
}

/** An allowed anchor origin: a URI, or `*` for any origin (as `--allowed-origins` accepts). */
const originList = {
  type: 'array',
  items: { description: 'a URI or "*"', anyOf: [{ type: 'string', format: 'uri' }, { const: '*' }] },
} as const;

/** POST /allowedorigins: `{add?, remove?}`. */
export const ALLOWED_ORIGINS_UPDATE = defineSchema<AllowedOriginsUpdate>({
  $id: 'urn:anchor:schema:node:allowed-origins-update',
  type: 'object',
  additionalProperties: false,
  properties: { add: originList, remove: originList },
});

export interface LogMonitorUpdate {
  activate?: string[];
  deactivate?: string[];
}

/** POST /log-monitor: `{activate?, deactivate?}`, each a list of log URLs. */
export const LOG_MONITOR_UPDATE = defineSchema<LogMonitorUpdate>({
  $id: 'urn:anchor:schema:node:log-monitor-update',
  type: 'object',
  additionalProperties: false,
  properties: { activate: uriList, deactivate: uriList },
});

export interface Activity {
  '@context'?: unknown;
  id?: string;
  type: string | string[];
  actor?: string;
  to?: string | string[];
  object?: string | Record<string, unknown>;
  target?: string | Record<string, unknown>;
  published?: string;
  startTime?: string;
  endTime?: string;
  result?: string | Record<string, unknown>;
  [member: string]: unknown;
}

const uriOrObject = {
  description: 'a URI or an object',
  anyOf: [{ type: 'string', format: 'uri' }, { type: 'object' }],
} as const;
const oneOrMoreUris = {
  description: 'a URI or an array of URIs',
  anyOf: [
    { type: 'string', format: 'uri' },
    { type: 'array', items: { type: 'string', format: 'uri' } },
  ],
} as const;

const activityProperties = {
  '@context': {
    description: 'a context URL, a context object or an array of them',
    anyOf: [{ type: 'string' }, { type: 'object' }, { type: 'array', items: { type: ['string', 'object'] } }],
  },
  id: { type: 'string', format: 'uri' },
  type: {
    description: 'an activity type or a non-empty array of them',
    anyOf: [
      { type: 'string', minLength: 1 },
      { type: 'array', minItems: 1, items: { type: 'string', minLength: 1 } },
    ],
  },
  actor: { type: 'string', format: 'uri' },
  to: oneOrMoreUris,
  cc: oneOrMoreUris,
  object: uriOrObject,
  target: uriOrObject,
  result: uriOrObject,
  published: { type: 'string', format: 'date-time' },
  startTime: { type: 'string', format: 'date-time' },
  endTime: { type: 'string', format: 'date-time' },
} as const;

/** POST /services/node/outbox: an activity; the node fills in what the administrator leaves out. */
export const ACTIVITY = defineSchema<Activity>({
  $id: 'urn:anchor:schema:node:activity',
  type: 'object',
  required: ['type'],
  properties: activityProperties,
});

/** POST /services/node/inbox: an activity from another node, which must say who sent it and name itself. */
export const INBOX_ACTIVITY = defineSchema<Activity & { id: string; actor: string }>({
  $id: 'urn:anchor:schema:node:inbox-activity',
  type: 'object',
  required: ['id', 'type', 'actor'],
  properties: activityProperties,
});
