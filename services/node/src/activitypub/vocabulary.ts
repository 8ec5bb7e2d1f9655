import { createHash } from 'node:crypto';
import { canonicalBytes, multibaseMultihash, parseHashlink } from '@anchor/common/encoding';
import { badRequest } from '@anchor/common/errors';
import { CONTEXT_URLS } from '@anchor/common/jsonld';
import type { Activity } from '../schemas/index.js';

/** The ActivityStreams / activity-anchors vocabulary the federation speaks (orb.md §3.1). */
export const AS_CONTEXT = CONTEXT_URLS.activityStreams;
export const ANCHORS_CONTEXT = CONTEXT_URLS.activityAnchorsV1;
/** The public audience: activities addressed to it are readable by anyone. */
export const PUBLIC = 'https://www.w3.org/ns/activitystreams#Public';
/** The role an Invite offers and an Offer's target: witnessing anchors. */
export const ANCHOR_WITNESS = 'https://w3id.org/activityanchors#AnchorWitness';
/** What peers send as Accept when fetching activities and actors. */
export const ACTIVITY_MEDIA_TYPE = 'application/ld+json; profile="https://www.w3.org/ns/activitystreams"';
export const ACTIVITY_CONTEXTS = [AS_CONTEXT, ANCHORS_CONTEXT];

export const ACTIVITY_TYPES = [
  'Follow',
  'Accept',
  'Reject',
  'Invite',
  'Offer',
  'Create',
  'Announce',
  'Like',
  'Undo',
] as const;
export type ActivityType = (typeof ACTIVITY_TYPES)[number];

export type { Activity };

/** An activity as stored: id, type and actor always set. */
export interface StoredActivity extends Activity {
  id: string;
  type: string;
  actor: string;
}

/** An AnchorEvent (orb.md §3.1): the hashlink of a witnessed anchor linkset, the linkset optionally embedded. */
export interface AnchorEventObject extends Record<string, unknown> {
  '@context'?: unknown;
  type: 'AnchorEvent';
  url: string;
  object?: Record<string, unknown>;
}

/** `to` as a list. */
export function recipientsOf(activity: Activity): string[] {
  const to = activity.to;
  if (to === undefined) return [];
  return Array.isArray(to) ? to : [to];
}

export function isPublic(activity: Activity): boolean {
  return recipientsOf(activity).includes(PUBLIC);
}

/** The activity's type; an array of types must hold exactly one known type (Orb sends one). */
export function activityTypeOf(activity: Activity): string {
  const type = activity.type;
  if (typeof type === 'string') return type;
  const known = type.filter((t) => (ACTIVITY_TYPES as readonly string[]).includes(t));
  if (known.length !== 1) throw badRequest(`activity types ${JSON.stringify(type)} name no single known type`);
  return known[0] as string;
}

/** The IRI of a member that may be a URI or an object with an `id`. */
export function iriOf(value: unknown, what: string): string {
  if (typeof value === 'string' && value !== '') return value;
  if (typeof value === 'object' && value !== null && typeof (value as { id?: unknown }).id === 'string')
    return (value as { id: string }).id;
  throw badRequest(`${what} must be a URI or an object with an id`);
}

/** An embedded activity (the object of Accept, Reject, Undo), checked enough to read its id, type and actor. */
export function embeddedActivity(value: unknown, what: string): StoredActivity {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw badRequest(`${what} must be an embedded activity`);
  const activity = value as Activity;
  if (typeof activity.id !== 'string' || typeof activity.actor !== 'string' || activity.type === undefined) {
    throw badRequest(`${what} must carry id, type and actor`);
  }
  return { ...activity, id: activity.id, actor: activity.actor, type: activityTypeOf(activity) };
}

/**
 * Reads an AnchorEvent: `url` must be a hashlink and an embedded linkset must hash (JCS) to it
 * (orb.md §3.1 `Validate`).
 */
export function readAnchorEvent(value: unknown): {
  hashlink: string;
  anchorHash: string;
  linkset?: Record<string, unknown>;
} {
  const event = anchorEventObject(value);
  const url = Array.isArray(event.url) ? (event.url.length === 1 ? event.url[0] : undefined) : event.url;
  if (typeof url !== 'string') throw badRequest('an AnchorEvent needs exactly one url');
  return anchorEventAt(event, url);
}

/**
 * Reads the AnchorEvent a Like names (its object, also when an Undo or the outbox reads it back): its `url`
 * may list several URLs, and the liked anchor is the first, as Orb's Like handler reads it
 * (`URL()[0]`); the others are not read. The first must be a hashlink an embedded linkset hashes to.
 */
export function readLikedAnchorEvent(value: unknown): ReturnType<typeof readAnchorEvent> {
  const event = anchorEventObject(value);
  const urls: unknown[] = Array.isArray(event.url) ? event.url : [event.url];
  const [url] = urls;
  if (typeof url !== 'string' || !urls.every((item) => typeof item === 'string')) {
    throw badRequest(
      "a Like's AnchorEvent needs a url: a hashlink, or a list of URLs whose first is the liked hashlink",
    );
  }
  return anchorEventAt(event, url);
}

function anchorEventAt(
  event: Record<string, unknown>,
  url: string,
): { hashlink: string; anchorHash: string; linkset?: Record<string, unknown> } {
  const anchorHash = resourceHashOf(url);
  const linkset = embeddedLinkset(event, url, anchorHash);
  return linkset ? { hashlink: url, anchorHash, linkset } : { hashlink: url, anchorHash };
}

/**
 * Reads an AnchorEvent whose `url` may list several hashlinks, as a Like's result does (the liker's own
 * hashlinks of the anchor, one per place it keeps it; Orb reads a list): each must be a hashlink,
 * and an embedded linkset must hash to each.
 */
export function readAnchorEventUrls(value: unknown): { hashlink: string; anchorHash: string }[] {
  const event = anchorEventObject(value);
  const urls: unknown[] = Array.isArray(event.url) ? event.url : [event.url];
  if (urls.length === 0 || !urls.every((url): url is string => typeof url === 'string')) {
    throw badRequest('an AnchorEvent needs a url: a hashlink or a list of hashlinks');
  }
  return urls.map((url) => {
    const anchorHash = resourceHashOf(url);
    embeddedLinkset(event, url, anchorHash);
    return { hashlink: url, anchorHash };
  });
}

function anchorEventObject(value: unknown): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw badRequest('the activity object must be an AnchorEvent');
  const event = value as Record<string, unknown>;
  if (event.type !== 'AnchorEvent') throw badRequest(`expected an AnchorEvent, got ${JSON.stringify(event.type)}`);
  return event;
}

function resourceHashOf(url: string): string {
  try {
    return parseHashlink(url).resourceHash;
  } catch (error) {
    throw badRequest(`AnchorEvent url: ${(error as Error).message}`);
  }
}

function embeddedLinkset(
  event: Record<string, unknown>,
  url: string,
  anchorHash: string,
): Record<string, unknown> | undefined {
  if (event.object === undefined) return undefined;
  if (typeof event.object !== 'object' || event.object === null || Array.isArray(event.object))
    throw badRequest('an AnchorEvent object must be a linkset');
  if (multibaseMultihash(canonicalBytes(event.object)) !== anchorHash)
    throw badRequest(`the AnchorEvent's linkset does not hash to ${url}`);
  return event.object as Record<string, unknown>;
}

export function anchorEvent(hashlink: string, linkset?: object): AnchorEventObject {
  return {
    '@context': ANCHORS_CONTEXT,
    type: 'AnchorEvent',
    url: hashlink,
    ...(linkset ? { object: linkset as Record<string, unknown> } : {}),
  };
}

/** The anchor hash of a hashlink, or of a bare `uEi…` hash. */
export function anchorHashOf(reference: string): string {
  if (!reference.startsWith('hl:')) {
    parseHashlink(`hl:${reference}`);
    return reference;
  }
  return parseHashlink(reference).resourceHash;
}

/**
 * A deterministic activity id for an activity this node derives from something (the Create of an anchor,
 * the Accept of an Offer, ...): posting it again after a crash is then a no-op. UUID-shaped, like the
 * ids the outbox mints.
 */
export function derivedActivityId(serviceEndpoint: string, seed: string): string {
  const hex = createHash('sha256').update(seed).digest('hex');
  const variant = ((parseInt(hex.slice(16, 17), 16) & 0x3) | 0x8).toString(16);
  return `${serviceEndpoint}/activities/${hex.slice(0, 8)}-${hex.slice(8, 12)}-5${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

export { hostOf } from '@anchor/common/did/iri-host';
