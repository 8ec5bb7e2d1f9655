/**
 * What a reference says (Orb's activity-ref model, orb.md §3.2): `objectIri` has `refIri` in the
 * collection `refType`. For this node's collections `objectIri` is its service id; for likes and shares
 * it is an anchor hash.
 *
 * | refType | objectIri → refIri | exposed as |
 * |---|---|---|
 * | inbox | service → activity received | /inbox |
 * | outbox | service → activity posted | /outbox (authorised readers) |
 * | public-outbox | service → activity posted to the public | /outbox (anyone) |
 * | follower | service → actor following me | /followers |
 * | following | service → actor I follow | /following |
 * | witness | service → actor witnessing for me (accepted my Invite) | /witnesses |
 * | witnessing | service → actor I witness for (I accepted its Invite) | /witnessing |
 * | liked | service → anchor hashlink I liked | /liked |
 * | like | anchor hash → Like activity received | /likes, /likes/<anchor> |
 * | share | anchor hash → Announce activity received | /shares, /shares/<anchor> |
 */
export const REF_TYPES = [
  'inbox',
  'outbox',
  'public-outbox',
  'follower',
  'following',
  'witness',
  'witnessing',
  'liked',
  'like',
  'share',
] as const;
export type RefType = (typeof REF_TYPES)[number];

/** A change to one collection: `objectIri` (this service, or an anchor hash) has / no longer has `refIri`. */
export interface RefChange {
  op: 'add' | 'delete';
  refType: RefType;
  objectIri: string;
  refIri: string;
  activityType?: string;
}
