import { AppError } from '@anchor/common/errors';
import { formatHashlink, multibaseMultihash } from '@anchor/common/encoding';
import { describe, expect, it } from 'vitest';
import { statusOf } from './activitypub.test-helpers.js';
import {
  acceptedRelationship,
  checkAnswer,
  postedActivity,
  receivedFollow,
  receivedInvite,
  receivedLike,
  receivedUndo,
} from './activity-effects.js';
import { ANCHOR_WITNESS, type StoredActivity } from './vocabulary.js';

const ME = 'https://a.example.com/services/node';
const PEER = 'https://b.example.com/services/node';
const OTHER = 'https://c.example.com/services/node';
const ANCHOR = multibaseMultihash(Buffer.from('an anchor linkset'));

let serial = 0;
function activity(type: string, actor: string, fields: Record<string, unknown> = {}): StoredActivity {
  const host = actor.replace('/services/node', '');
  return { id: `${host}/services/node/activities/${++serial}`, type, actor, ...fields } as StoredActivity;
}

/** The message of the 400 an effect refuses with. */
function refused(effect: () => unknown): string {
  try {
    effect();
  } catch (error) {
    if (error instanceof AppError && error.status === 400) return error.message;
    throw error;
  }
  throw new Error(`expected a 400, got ${String(statusOf(effect))}`);
}

describe('received Follow and Invite', () => {
  const follow = activity('Follow', PEER, { object: ME });
  const invite = activity('Invite', PEER, { object: ANCHOR_WITNESS, target: ME });

  it('an admitted follower joins followers and is answered with an Accept', () => {
    expect(receivedFollow(follow, ME, { known: false, allowed: true })).toEqual({
      changes: [{ op: 'add', refType: 'follower', objectIri: ME, refIri: PEER }],
      reply: 'Accept',
    });
  });

  it('a service the policy does not admit is answered with a Reject and changes nothing', () => {
    expect(receivedFollow(follow, ME, { known: false, allowed: false })).toEqual({ changes: [], reply: 'Reject' });
    expect(receivedInvite(invite, ME, { known: false, allowed: false })).toEqual({ changes: [], reply: 'Reject' });
  });

  it('a follower already known is accepted again even when it left the accept list', () => {
    expect(receivedFollow(follow, ME, { known: true, allowed: false }).reply).toBe('Accept');
  });

  it('an accepted Invite makes this node witness for the inviter (witnessing)', () => {
    expect(receivedInvite(invite, ME, { known: false, allowed: true }).changes).toEqual([
      { op: 'add', refType: 'witnessing', objectIri: ME, refIri: PEER },
    ]);
  });

  it('refuses activities meant for another service or another role', () => {
    expect(
      refused(() => receivedFollow(activity('Follow', PEER, { object: OTHER }), ME, { known: false, allowed: true })),
    ).toMatch(/not this service/);
    expect(
      refused(() =>
        receivedInvite(activity('Invite', PEER, { object: 'https://example.com/role', target: ME }), ME, {
          known: false,
          allowed: true,
        }),
      ),
    ).toMatch(/AnchorWitness/);
    expect(
      refused(() =>
        receivedInvite(activity('Invite', PEER, { object: ANCHOR_WITNESS, target: OTHER }), ME, {
          known: false,
          allowed: true,
        }),
      ),
    ).toMatch(/not this service/);
  });
});

describe('received Accept and Reject', () => {
  const myFollow = activity('Follow', ME, { object: PEER, to: PEER });
  const myInvite = activity('Invite', ME, { object: ANCHOR_WITNESS, target: PEER });
  const acceptOf = (mine: StoredActivity, by = PEER) => activity('Accept', by, { object: mine });

  it('an Accept of my Follow adds the accepter to following; of my Invite, to witnesses', () => {
    const accept = acceptOf(myFollow);
    expect(acceptedRelationship(accept, checkAnswer(accept, myFollow, ME), ME)).toEqual([
      { op: 'add', refType: 'following', objectIri: ME, refIri: PEER },
    ]);
    const acceptInvite = acceptOf(myInvite);
    expect(acceptedRelationship(acceptInvite, checkAnswer(acceptInvite, myInvite, ME), ME)).toEqual([
      { op: 'add', refType: 'witness', objectIri: ME, refIri: PEER },
    ]);
  });

  it('leaves the Accept of an Offer to the witnessing feature', () => {
    const offer = activity('Offer', ME, { target: ANCHOR_WITNESS });
    expect(acceptedRelationship(acceptOf(offer), offer, ME)).toBeUndefined();
  });

  it('refuses answers to activities not in my outbox, of another type, or by a service they were not addressed to', () => {
    expect(refused(() => checkAnswer(acceptOf(myFollow), undefined, ME))).toMatch(/not in this service's outbox/);
    expect(refused(() => checkAnswer(acceptOf(myFollow, OTHER), myFollow, ME))).toMatch(
      /not by https:\/\/b\.example\.com/,
    );
    expect(refused(() => checkAnswer(acceptOf({ ...myFollow, type: 'Invite' }), myFollow, ME))).toMatch(
      /claims type Invite/,
    );
    expect(refused(() => checkAnswer(acceptOf(activity('Follow', OTHER, { object: PEER })), myFollow, ME))).toMatch(
      /not by this service/,
    );
  });
});

describe('received Undo and Like', () => {
  it('an Undo by the follower removes it from followers; of an Invite, from witnessing', () => {
    const follow = activity('Follow', PEER, { object: ME });
    expect(receivedUndo(activity('Undo', PEER, { object: follow.id }), follow, ME)).toEqual([
      { op: 'delete', refType: 'follower', objectIri: ME, refIri: PEER },
    ]);
    const invite = activity('Invite', PEER, { object: ANCHOR_WITNESS, target: ME });
    expect(receivedUndo(activity('Undo', PEER, { object: { id: invite.id, type: 'Invite' } }), invite, ME)).toEqual([
      { op: 'delete', refType: 'witnessing', objectIri: ME, refIri: PEER },
    ]);
  });

  it('only the actor of an activity may undo it, and only what was received', () => {
    const follow = activity('Follow', PEER, { object: ME });
    expect(refused(() => receivedUndo(activity('Undo', OTHER, { object: follow.id }), follow, ME))).toMatch(
      /Undo by .* of an activity by/,
    );
    expect(refused(() => receivedUndo(activity('Undo', PEER, { object: follow.id }), undefined, ME))).toMatch(
      /never received/,
    );
    expect(
      refused(() => receivedUndo(activity('Undo', PEER, { object: { id: follow.id, type: 'Like' } }), follow, ME)),
    ).toMatch(/claims type Like/);
  });

  it('a Like is kept under the liked anchor; its Undo removes it', () => {
    const like = activity('Like', PEER, { object: { type: 'AnchorEvent', url: `hl:${ANCHOR}` } });
    expect(receivedLike(like)).toEqual([
      { op: 'add', refType: 'like', objectIri: ANCHOR, refIri: like.id, activityType: 'Like' },
    ]);
    expect(receivedUndo(activity('Undo', PEER, { object: like.id }), like, ME)).toEqual([
      { op: 'delete', refType: 'like', objectIri: ANCHOR, refIri: like.id },
    ]);
    expect(
      refused(() => receivedLike(activity('Like', PEER, { object: { type: 'Note', url: `hl:${ANCHOR}` } }))),
    ).toMatch(/AnchorEvent/);
  });

  it("a Like's result may list several hashlinks (Orb's parser reads a list); each must be one", () => {
    const held = (origin: string) => formatHashlink({ resourceHash: ANCHOR, links: [`${origin}/cas/${ANCHOR}`] });
    const like = (url: unknown) =>
      activity('Like', PEER, {
        object: { type: 'AnchorEvent', url: `hl:${ANCHOR}` },
        result: { type: 'AnchorEvent', url },
      });
    const several = like([held(PEER), held(OTHER)]);
    expect(receivedLike(several)).toEqual([
      { op: 'add', refType: 'like', objectIri: ANCHOR, refIri: several.id, activityType: 'Like' },
    ]);
    expect(receivedLike(like(held(PEER)))).toHaveLength(1);
    expect(refused(() => receivedLike(like([held(PEER), 'hl:not base64!'])))).toMatch(/AnchorEvent url/);
    expect(refused(() => receivedLike(like([held(PEER), 42])))).toMatch(/a hashlink or a list of hashlinks/);
    expect(refused(() => receivedLike(like([])))).toMatch(/a hashlink or a list of hashlinks/);
  });
  it("a Like's object may carry several URLs: the liked anchor is the first, as Orb reads it", () => {
    const withLink = formatHashlink({ resourceHash: ANCHOR, links: [`${PEER}/cas/${ANCHOR}`] });
    const like = activity('Like', PEER, {
      object: { type: 'AnchorEvent', url: [withLink, `hl:${ANCHOR}`, `${OTHER}/cas/${ANCHOR}`] },
    });
    expect(receivedLike(like)).toEqual([
      { op: 'add', refType: 'like', objectIri: ANCHOR, refIri: like.id, activityType: 'Like' },
    ]);
    expect(receivedUndo(activity('Undo', PEER, { object: like.id }), like, ME)).toEqual([
      { op: 'delete', refType: 'like', objectIri: ANCHOR, refIri: like.id },
    ]);
    const mine = activity('Like', ME, { object: like.object });
    expect(postedActivity(mine, ME)).toEqual([{ op: 'add', refType: 'liked', objectIri: ME, refIri: withLink }]);
    expect(postedActivity(activity('Undo', ME, { object: mine.id }), ME, mine)).toEqual([
      { op: 'delete', refType: 'liked', objectIri: ME, refIri: withLink },
    ]);
    const likeOf = (url: unknown) => activity('Like', PEER, { object: { type: 'AnchorEvent', url } });
    expect(refused(() => receivedLike(likeOf([`${PEER}/cas/${ANCHOR}`, `hl:${ANCHOR}`])))).toMatch(/AnchorEvent url/);
    expect(refused(() => receivedLike(likeOf([])))).toMatch(/whose first is the liked hashlink/);
    expect(refused(() => receivedLike(likeOf([`hl:${ANCHOR}`, 42])))).toMatch(/whose first is the liked hashlink/);
  });
});

describe('posted activities', () => {
  it('Follow and Invite change nothing until accepted; a Like enters liked', () => {
    expect(postedActivity(activity('Follow', ME, { object: PEER }), ME)).toEqual([]);
    expect(postedActivity(activity('Invite', ME, { object: ANCHOR_WITNESS, target: PEER }), ME)).toEqual([]);
    expect(postedActivity(activity('Like', ME, { object: { type: 'AnchorEvent', url: `hl:${ANCHOR}` } }), ME)).toEqual([
      { op: 'add', refType: 'liked', objectIri: ME, refIri: `hl:${ANCHOR}` },
    ]);
  });

  it('an Undo of my Follow leaves following, of my Invite witnesses, of my Like liked', () => {
    const follow = activity('Follow', ME, { object: PEER });
    expect(postedActivity(activity('Undo', ME, { object: follow.id }), ME, follow)).toEqual([
      { op: 'delete', refType: 'following', objectIri: ME, refIri: PEER },
    ]);
    const invite = activity('Invite', ME, { object: ANCHOR_WITNESS, target: PEER });
    expect(postedActivity(activity('Undo', ME, { object: invite.id }), ME, invite)).toEqual([
      { op: 'delete', refType: 'witness', objectIri: ME, refIri: PEER },
    ]);
    expect(
      refused(() =>
        postedActivity(
          activity('Undo', ME, { object: 'https://a.example.com/services/node/activities/unknown' }),
          ME,
          undefined,
        ),
      ),
    ).toMatch(/not an activity of this outbox/);
  });

  it('refuses malformed activities with 400', () => {
    expect(
      refused(() => postedActivity(activity('Invite', ME, { object: 'https://example.com/role', target: PEER }), ME)),
    ).toMatch(/AnchorWitness/);
    expect(refused(() => postedActivity(activity('Offer', ME, { target: ANCHOR_WITNESS }), ME))).toMatch(
      /startTime and endTime/,
    );
    expect(
      refused(() =>
        postedActivity(activity('Create', ME, { object: { type: 'AnchorEvent', url: 'not-a-hashlink' } }), ME),
      ),
    ).toMatch(/url/);
    expect(
      refused(() =>
        postedActivity(activity('Announce', ME, { object: { type: 'OrderedCollection', orderedItems: [] } }), ME),
      ),
    ).toMatch(/must list AnchorEvents/);
  });
});
