import { badRequest } from '@anchor/common/errors';
import type { Logger } from '@anchor/common/log';
import type { AcceptLists, AcceptListType } from '../runtime-config/accept-lists.js';
import type { ActivityStore } from './activity-store.js';
import type { Inbox } from './inbox.js';
import type { Outbox } from './outbox.js';
import {
  acceptedRelationship,
  checkAnswer,
  receivedFollow,
  receivedInvite,
  receivedLike,
  receivedUndo,
  type InvitationEffect,
} from './activity-effects.js';
import { derivedActivityId, embeddedActivity, iriOf, type StoredActivity } from './vocabulary.js';

export type AuthPolicy = 'accept-all' | 'accept-list';

export interface SocialHandlerDeps {
  inbox: Inbox;
  outbox: Outbox;
  store: ActivityStore;
  acceptLists: AcceptLists;
  serviceId: string;
  serviceEndpoint: string;
  followPolicy: AuthPolicy;
  inviteWitnessPolicy: AuthPolicy;
  log: Logger;
}

/** Handles the Accept of one of my activities of some type (the witness feature handles accepted Offers). */
export type AcceptedHandler = (accept: StoredActivity, accepted: StoredActivity) => Promise<void>;

/**
 * The received activities that shape the federation's relationships (orb.md §3.3, inbox column):
 *
 * - Follow of me: accepted (→ `followers`, Accept sent) or rejected (Reject sent) by the follow policy;
 * - Invite of me as anchor witness: the same with `witnessing` and the invite-witness policy;
 * - Accept of my Follow (→ `following`), of my Invite (→ `witnesses`), of my Offer (the witness feature);
 *   only from the service my activity was addressed to, and only for activities in my outbox;
 * - Reject of those: logged, no change;
 * - Undo by its actor of their Follow (leaves `followers`), Invite (leaves `witnessing`), Like (leaves `likes`);
 * - Like of an anchor: kept in the anchor's `likes` (its result names where the liker keeps the anchor).
 *
 * Replies have ids derived from what they answer, so handling an activity twice sends nothing twice.
 */
export function registerSocialHandlers(deps: SocialHandlerDeps): {
  onAccepted(type: string, handler: AcceptedHandler): void;
} {
  const { inbox, outbox, store, serviceId: me } = deps;
  const acceptedHandlers = new Map<string, AcceptedHandler>();

  const allowed = async (type: AcceptListType, policy: AuthPolicy, actor: string): Promise<boolean> =>
    policy === 'accept-all' || (await deps.acceptLists.includes(type, actor));
  const reply = async (kind: 'Accept' | 'Reject', activity: StoredActivity): Promise<void> => {
    await outbox.post({
      id: derivedActivityId(deps.serviceEndpoint, `${kind}:${activity.id}`),
      type: kind,
      to: [activity.actor],
      object: activity,
    });
  };
  /** The activity of mine (in my outbox) an Accept or Reject answers. */
  const answered = async (answer: StoredActivity): Promise<StoredActivity> =>
    checkAnswer(
      answer,
      await store.getIfIn('outbox', me, embeddedActivity(answer.object, `the object of ${answer.type}`).id),
      me,
    );
  const invitation = async (effect: InvitationEffect, activity: StoredActivity, what: string): Promise<void> => {
    if (effect.reply === 'Reject') deps.log.warn(`${what} rejected by the accept list`, { actor: activity.actor });
    await store.apply(effect.changes);
    await reply(effect.reply, activity);
  };

  inbox.on('Follow', async (follow) => {
    const facts = {
      known: await store.hasRef('follower', me, follow.actor),
      allowed: await allowed('follow', deps.followPolicy, follow.actor),
    };
    await invitation(receivedFollow(follow, me, facts), follow, 'follow');
  });

  inbox.on('Invite', async (invite) => {
    const facts = {
      known: await store.hasRef('witnessing', me, invite.actor),
      allowed: await allowed('invite-witness', deps.inviteWitnessPolicy, invite.actor),
    };
    await invitation(receivedInvite(invite, me, facts), invite, 'witness invitation');
  });

  inbox.on('Accept', async (accept) => {
    const answeredActivity = await answered(accept);
    const changes = acceptedRelationship(accept, answeredActivity, me);
    if (changes) return changes;
    const handler = acceptedHandlers.get(answeredActivity.type);
    if (!handler) throw badRequest(`Accept of a ${answeredActivity.type} is not handled`);
    await handler(accept, answeredActivity);
  });

  inbox.on('Reject', async (reject) => {
    const answeredActivity = await answered(reject);
    deps.log.warn('an activity of this service was rejected', {
      type: answeredActivity.type,
      id: answeredActivity.id,
      by: reject.actor,
    });
  });

  inbox.on('Undo', async (undo) => {
    const id = iriOf(undo.object, 'the object of an Undo');
    return receivedUndo(undo, await store.getIfIn('inbox', me, id), me);
  });

  // Committed with the Like's storage in the inbox (one write).
  inbox.on('Like', async (like) => receivedLike(like));

  return {
    onAccepted(type, handler) {
      acceptedHandlers.set(type, handler);
    },
  };
}
