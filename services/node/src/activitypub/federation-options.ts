import { opt } from '@anchor/common/config';

/** The node's `federation` section: who may follow and invite, collection pages, catch-up, caches. */
export const federationOptions = {
  followAuthPolicy: opt.enum(['accept-all', 'accept-list'], {
    flag: 'follow-auth-policy',
    short: 'F',
    env: ['FOLLOW_AUTH_POLICY'],
    default: 'accept-all',
    help: 'Who may follow this node',
  }),
  inviteWitnessAuthPolicy: opt.enum(['accept-all', 'accept-list'], {
    flag: 'invite-witness-auth-policy',
    short: 'W',
    env: ['INVITE_WITNESS_AUTH_POLICY'],
    default: 'accept-all',
    help: 'Who may invite this node to witness',
  }),
  activityPubPageSize: opt.int({
    flag: 'activitypub-page-size',
    short: 'P',
    env: ['ACTIVITYPUB_PAGE_SIZE'],
    default: 50,
    min: 1,
    max: 1000,
    help: 'Items per ActivityPub collection page',
  }),
  syncInterval: opt.duration({
    flag: 'sync-interval',
    short: 'S',
    env: ['ANCHOR_EVENT_SYNC_INTERVAL'],
    default: '1m',
    help: "How often followees' outboxes and followers' inboxes are read for missed anchors",
  }),
  syncMinActivityAge: opt.duration({
    flag: 'sync-min-activity-age',
    env: ['ANCHOR_EVENT_SYNC_MIN_ACTIVITY_AGE'],
    default: '30s',
    help: 'Catch-up ignores activities younger than this (normal delivery is still under way)',
  }),
  actorCacheExpiration: opt.duration({
    flag: 'apclient-cache-expiration',
    env: ['ANCHOR_ACTIVITYPUB_CLIENT_CACHE_EXPIRATION', 'ACTIVITYPUB_CLIENT_CACHE_EXPIRATION'],
    default: '10m',
    help: 'Expiry of cached actors, public keys, host-meta and WebFinger documents',
  }),
  nodeInfoRefreshInterval: opt.duration({
    flag: 'nodeinfo-refresh-interval',
    short: 'R',
    env: ['NODEINFO_REFRESH_INTERVAL'],
    default: '15s',
    help: 'How often NodeInfo usage counts are recomputed',
  }),
};

/** The activity queues' pools, in the node's `queue` section beside the queue kit's options. */
export const deliveryPoolOptions = {
  mqOutboxPool: opt.int({
    flag: 'mq-outbox-pool',
    env: ['MQ_OUTBOX_POOL'],
    default: 32,
    min: 1,
    max: 1000,
    help: 'Outbound activity deliveries (signed POSTs to other inboxes) and fan-outs in flight at once',
  }),
  mqInboxPool: opt.int({
    flag: 'mq-inbox-pool',
    env: ['MQ_INBOX_POOL'],
    default: 32,
    min: 1,
    max: 1000,
    help: 'Received activities handled at once',
  }),
};
