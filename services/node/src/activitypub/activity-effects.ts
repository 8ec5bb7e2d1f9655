import { badRequest } from '@anchor/common/errors';
import type { RefChange, RefType } from './activity-refs.js';
import {
  ANCHOR_WITNESS,
  embeddedActivity,
  iriOf,
  readAnchorEvent,
  readAnchorEventUrls,
  readLikedAnchorEvent,
  type StoredActivity,
} from './vocabulary.js';

/**
 * What each relationship activity does to this node's collections (orb.md §3.3), as pure functions: the
 * handlers look up the facts (is the actor on the accept list, which of my activities is answered, ...),
 * ask here what follows, and apply it. Malformed or misdirected activities are `bad_request` errors:
 * refused for good, never retried.
 */

/** The effect of a received Follow or Invite: collection changes and the reply to send. */
export interface InvitationEffect {
  changes: RefChange[];
  reply: 'Accept' | 'Reject';
}

export interface InvitationFacts {
  /** The actor is in the collection already (a repeated Follow / Invite is accepted again). */
  known: boolean;
  /** The auth policy admits the actor (accept-all, or on the accept list). */
  allowed: boolean;
}

/** Inbox Follow of me: the follower joins `followers` and gets an Accept, or gets a Reject. */
export function receivedFollow(follow: StoredActivity, me: string, facts: InvitationFacts): InvitationEffect {
  const target = iriOf(follow.object, 'the object of a Follow');
  if (target !== me) throw badRequest(`Follow of ${target}, which is not this service`);
  return admit('follower', follow.actor, me, facts);
}

/** Inbox Invite of me as anchor witness: the inviter joins `witnessing` (I witness for it), or is rejected. */
export function receivedInvite(invite: StoredActivity, me: string, facts: InvitationFacts): InvitationEffect {
  if (invite.object !== ANCHOR_WITNESS)
    throw badRequest(`Invite to ${String(invite.object)}; only ${ANCHOR_WITNESS} is offered`);
  const target = iriOf(invite.target, 'the target of an Invite');
  if (target !== me) throw badRequest(`Invite of ${target}, which is not this service`);
  return admit('witnessing', invite.actor, me, facts);
}

function admit(refType: RefType, actor: string, me: string, facts: InvitationFacts): InvitationEffect {
  if (!facts.known && !facts.allowed) return { changes: [], reply: 'Reject' };
  return { changes: [{ op: 'add', refType, objectIri: me, refIri: actor }], reply: 'Accept' };
}

/**
 * Checks an Accept or Reject against the activity of mine it answers (`mine`, found in my outbox by the
 * embedded object's id): same type, mine, and answered by the service it was addressed to.
 */
export function checkAnswer(answer: StoredActivity, mine: StoredActivity | undefined, me: string): StoredActivity {
  const claimed = embeddedActivity(answer.object, `the object of ${answer.type}`);
  if (claimed.actor !== me) throw badRequest(`${answer.type} of an activity by ${claimed.actor}, not by this service`);
  if (!mine) throw badRequest(`${answer.type} of ${claimed.id}, which is not in this service's outbox`);
  if (mine.type !== claimed.type)
    throw badRequest(`${answer.type} of ${claimed.id} claims type ${claimed.type}, but it is a ${mine.type}`);
  const addressee =
    mine.type === 'Follow'
      ? iriOf(mine.object, 'the followed service')
      : mine.type === 'Invite'
        ? iriOf(mine.target, 'the invited service')
        : undefined;
  if (addressee !== undefined && addressee !== answer.actor)
    throw badRequest(`${answer.type} of ${mine.type} ${mine.id} by ${answer.actor}, not by ${addressee}`);
  return mine;
}

/**
 * Inbox Accept of my Follow (the accepter joins `following`) or my Invite (it joins `witnesses`);
 * undefined for other types, whose Accept another feature handles (an Offer's: witnessing).
 */
export function acceptedRelationship(
  accept: StoredActivity,
  mine: StoredActivity,
  me: string,
): RefChange[] | undefined {
  if (mine.type === 'Follow') return [{ op: 'add', refType: 'following', objectIri: me, refIri: accept.actor }];
  if (mine.type === 'Invite') return [{ op: 'add', refType: 'witness', objectIri: me, refIri: accept.actor }];
  return undefined;
}

/**
 * Inbox Undo of an activity I received (`original`, from my inbox): only its actor may undo it. A Follow
 * leaves `followers`, an Invite leaves `witnessing`, a Like leaves the anchor's `likes`.
 */
export function receivedUndo(undo: StoredActivity, original: StoredActivity | undefined, me: string): RefChange[] {
  const id = iriOf(undo.object, 'the object of an Undo');
  if (!original) throw badRequest(`Undo of ${id}, which this service never received`);
  if (original.actor !== undo.actor) throw badRequest(`Undo by ${undo.actor} of an activity by ${original.actor}`);
  const claimedType = typeof undo.object === 'object' ? undo.object.type : undefined;
  if (claimedType !== undefined && claimedType !== original.type)
    throw badRequest(`Undo of ${id} claims type ${String(claimedType)}, but it is a ${original.type}`);
  switch (original.type) {
    case 'Follow':
      if (iriOf(original.object, 'the object of the Follow') !== me)
        throw badRequest('the undone Follow was not of this service');
      return [{ op: 'delete', refType: 'follower', objectIri: me, refIri: undo.actor }];
    case 'Invite':
      if (iriOf(original.target, 'the target of the Invite') !== me)
        throw badRequest('the undone Invite was not of this service');
      return [{ op: 'delete', refType: 'witnessing', objectIri: me, refIri: undo.actor }];
    case 'Like':
      return [
        {
          op: 'delete',
          refType: 'like',
          objectIri: readLikedAnchorEvent(original.object).anchorHash,
          refIri: original.id,
        },
      ];
    default:
      throw badRequest(`an Undo of a ${original.type} is not supported (Follow, Invite, Like)`);
  }
}

/** Inbox Like of an anchor: kept in the anchor's `likes` (its result, when any, must be an AnchorEvent of one or more hashlinks). */
export function receivedLike(like: StoredActivity): RefChange[] {
  const { anchorHash } = readLikedAnchorEvent(like.object);
  if (like.result !== undefined) readAnchorEventUrls(like.result);
  return [{ op: 'add', refType: 'like', objectIri: anchorHash, refIri: like.id, activityType: 'Like' }];
}

/**
 * What posting one of my own activities changes here (orb.md §3.3, outbox column), after checking its
 * shape: a Like enters `liked`; an Undo of my Follow leaves `following`, of my Invite `witnesses`, of my
 * Like `liked` (`undone` is the activity from my outbox). Follow and Invite change nothing until accepted.
 */
export function postedActivity(activity: StoredActivity, me: string, undone?: StoredActivity): RefChange[] {
  switch (activity.type) {
    case 'Follow':
      iriOf(activity.object, 'the object of a Follow (the service to follow)');
      return [];
    case 'Invite':
      if (activity.object !== ANCHOR_WITNESS) throw badRequest(`the object of an Invite must be ${ANCHOR_WITNESS}`);
      iriOf(activity.target, 'the target of an Invite (the invited service)');
      return [];
    case 'Accept':
    case 'Reject':
      embeddedActivity(activity.object, `the object of ${activity.type}`);
      return [];
    case 'Offer':
      if (activity.target !== ANCHOR_WITNESS) throw badRequest(`the target of an Offer must be ${ANCHOR_WITNESS}`);
      if (activity.startTime === undefined || activity.endTime === undefined)
        throw badRequest('an Offer needs startTime and endTime');
      return [];
    case 'Create':
      readAnchorEvent(activity.object);
      return [];
    case 'Announce':
      for (const item of announcedItems(activity)) readAnchorEvent(item);
      return [];
    case 'Like':
      return [{ op: 'add', refType: 'liked', objectIri: me, refIri: readLikedAnchorEvent(activity.object).hashlink }];
    case 'Undo':
      return postedUndo(activity, me, undone);
    default:
      return [];
  }
}

function postedUndo(undo: StoredActivity, me: string, undone: StoredActivity | undefined): RefChange[] {
  const id = iriOf(undo.object, 'the object of an Undo');
  if (!undone) throw badRequest(`${id} is not an activity of this outbox`);
  switch (undone.type) {
    case 'Follow':
      return [
        { op: 'delete', refType: 'following', objectIri: me, refIri: iriOf(undone.object, 'the object of the Follow') },
      ];
    case 'Invite':
      return [
        { op: 'delete', refType: 'witness', objectIri: me, refIri: iriOf(undone.target, 'the target of the Invite') },
      ];
    case 'Like':
      return [{ op: 'delete', refType: 'liked', objectIri: me, refIri: readLikedAnchorEvent(undone.object).hashlink }];
    default:
      throw badRequest(`an Undo of a ${undone.type} is not supported (Follow, Invite, Like)`);
  }
}

/** The AnchorEvents of an Announce: its object is a Collection or OrderedCollection of them. */
export function announcedItems(activity: StoredActivity): unknown[] {
  const object = activity.object;
  if (typeof object !== 'object' || object === null || Array.isArray(object))
    throw badRequest('the object of an Announce must be a collection of AnchorEvents');
  const items =
    (object as { items?: unknown; orderedItems?: unknown }).items ??
    (object as { orderedItems?: unknown }).orderedItems;
  if (!Array.isArray(items) || items.length === 0)
    throw badRequest('the object of an Announce must list AnchorEvents in items or orderedItems');
  return items;
}
