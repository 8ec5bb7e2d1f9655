import { notFound } from '@anchor/common/errors';
import { parseHashlink } from '@anchor/common/encoding';
import { answer, jsonBody, type Handler } from '@anchor/common/http';
import { getLogger } from '@anchor/common/log';
import { precompileSchemas } from '@anchor/common/schemas';
import { ACTIVITY, INBOX_ACTIVITY } from '../schemas/index.js';
import type { NodeContext } from '../context.js';
import type { NodeFeature } from '../feature.js';
import { ActivityStore } from './activity-store.js';
import { publicKeyDocument, serviceActor, serviceDidDocument } from './actor.js';
import { ActorResolver } from './actor-resolver.js';
import { checkOutboxPoster } from './authorization.js';
import { AP_CONTENT_TYPE, CollectionPages, collectionHandlers } from './collections.js';
import { DeliveryService, openBroadcastStore } from './delivery.js';
import { Inbox } from './inbox.js';
import { Outbox } from './outbox.js';
import { registerSocialHandlers, type AcceptedHandler } from './social-handlers.js';
import { anchorHashOf, readAnchorEventUrls } from './vocabulary.js';

export interface ActivityPubFeature extends NodeFeature {
  readonly store: ActivityStore;
  readonly outbox: Outbox;
  readonly inbox: Inbox;
  readonly actors: ActorResolver;
  readonly delivery: DeliveryService;
  /** `<service endpoint>/followers`: address an activity to it to reach every follower. */
  readonly followersIri: string;
  /** Handles the Accept of one of this node's activities of `type` (Follow and Invite are handled here). */
  onAccepted(type: string, handler: AcceptedHandler): void;
  /** Activities of a type in this node's outbox (NodeInfo: Create = posts, Like = comments); an index count. */
  outboxCount(type: string): Promise<number>;
  /**
   * Where other nodes keep an anchor, from the Likes they sent back: their `<base>/cas/<hash>` URLs (for
   * WebFinger `alternate` links). Takes an anchor hashlink or hash.
   */
  anchorAlternates(anchor: string): Promise<string[]>;
  readonly handlers: ActivityPubHandlers;
}

/** The endpoints under the service path; every one decides its own access (spec Authentication rule 6). */
export interface ActivityPubHandlers {
  readonly actor: Handler;
  readonly publicKey: Handler;
  readonly didDocument: Handler;
  readonly followers: Handler;
  readonly following: Handler;
  readonly witnesses: Handler;
  readonly witnessing: Handler;
  readonly liked: Handler;
  /** `/likes` and `/likes/:anchor`. */
  readonly likes: Handler;
  /** `/shares` and `/shares/:anchor`. */
  readonly shares: Handler;
  readonly inbox: Handler;
  readonly outbox: Handler;
  readonly activity: Handler;
  /** The inbox POST: verifies its signatures on the fast path too. */
  readonly postInbox: Handler;
  /** The administrator's (and the node's own) outbox POST, signed like the inbox: the federation's throughput starts with these posts. */
  readonly postOutbox: Handler;
}

/**
 * The ActivityPub service (spec "Federation endpoints", orb.md §3): the service actor, its key and DID
 * document, the collections, single activities, the inbox and the outbox with delivery, and the
 * relationship activities (Follow, Invite, Accept, Reject, Undo, Like). The witness and federation features
 * register the anchor activities (Offer, Create, Announce) on its inbox.
 */
export async function createActivityPubFeature(ctx: NodeContext): Promise<ActivityPubFeature> {
  const log = getLogger('activitypub');
  const { urls, config } = ctx;
  const me = urls.serviceId;
  // Compiled while starting: on first use it would stall the event loop under the first anchor.
  precompileSchemas(ACTIVITY, INBOX_ACTIVITY);
  const store = await ActivityStore.open(ctx.storage);
  const actors = new ActorResolver({
    httpClient: ctx.httpClient,
    didResolver: ctx.didResolver,
    cacheTtlMs: config.federation.actorCacheExpiration,
    devMode: config.server.devMode,
  });
  const outbox = new Outbox({
    store,
    broadcasts: await openBroadcastStore(ctx.storage),
    mq: ctx.mq,
    serviceId: me,
    serviceEndpoint: urls.serviceEndpoint,
    metrics: ctx.nodeMetrics,
    log,
  });
  const inbox = await Inbox.open(ctx.storage, {
    store,
    mq: ctx.mq,
    serviceId: me,
    maintenance: ctx.maintenance,
    maxAttempts: config.queue.mqMaxAttempts,
    concurrency: config.queue.mqInboxPool,
    metrics: ctx.nodeMetrics,
    log,
  });
  const followersIri = `${urls.serviceEndpoint}/followers`;
  const delivery = await DeliveryService.open(ctx.storage, {
    store,
    mq: ctx.mq,
    httpClient: ctx.httpClient,
    actors,
    metrics: ctx.nodeMetrics,
    log: getLogger('activitypub-delivery'),
    options: {
      serviceId: me,
      followersIri,
      witnessesIri: `${urls.serviceEndpoint}/witnesses`,
      maxAttempts: config.queue.mqMaxAttempts,
      concurrency: config.queue.mqOutboxPool,
    },
  });
  const social = registerSocialHandlers({
    inbox,
    outbox,
    store,
    acceptLists: ctx.acceptLists,
    serviceId: me,
    serviceEndpoint: urls.serviceEndpoint,
    followPolicy: config.federation.followAuthPolicy,
    inviteWitnessPolicy: config.federation.inviteWitnessAuthPolicy,
    log,
  });

  const json = (document: unknown, type = AP_CONTENT_TYPE) => answer({ json: document, type });
  const collections = collectionHandlers({
    store,
    pages: new CollectionPages(store, config.federation.activityPubPageSize),
    serviceId: me,
    serviceEndpoint: urls.serviceEndpoint,
  });
  const handlers: ActivityPubHandlers = {
    ...collections,
    // The actor, its key and its DID document are public: peers verifying this node's signatures fetch them unsigned.
    actor: () => json(serviceActor(urls, ctx.keys)),
    publicKey: (req) => {
      if (urls.serviceIsDid)
        throw notFound(`the service key is published in ${urls.serviceEndpoint}/did.json (the service id is a DID)`);
      if (req.params['id'] !== ctx.keys.httpKeyId) throw notFound(`no key ${String(req.params['id'])}`);
      return json(publicKeyDocument(urls, ctx.keys), 'application/json');
    },
    didDocument: () => {
      if (!urls.serviceIsDid) throw notFound('the service id is not a DID; its key is at /keys/' + ctx.keys.httpKeyId);
      return json(serviceDidDocument(urls, ctx.keys), 'application/json');
    },
    postInbox: inbox.post,
    postOutbox: async (req) => {
      checkOutboxPoster(req.principal, req.authorized, me);
      const activity = await outbox.post(jsonBody(req, 'activity') as never);
      return answer({ json: activity.id, headers: { Location: activity.id } });
    },
  };

  return {
    name: 'activitypub',
    store,
    outbox,
    inbox,
    actors,
    delivery,
    followersIri,
    handlers,
    onAccepted: social.onAccepted,
    outboxCount: (type) => store.count('outbox', me, type),
    async anchorAlternates(anchor) {
      const anchorHash = anchorHashOf(anchor);
      const own = `${urls.casBase}/${anchorHash}`;
      const { refs: likes } = await store.page('like', anchorHash, { limit: 1_000 });
      const alternates = new Set<string>();
      for (const like of await store.getMany(likes.map((ref) => ref.refIri))) {
        if (like?.result === undefined) continue;
        try {
          for (const result of readAnchorEventUrls(like.result)) {
            if (result.anchorHash !== anchorHash) continue;
            for (const link of parseHashlink(result.hashlink).links)
              if (link !== own && /^https?:\/\//.test(link)) alternates.add(link);
          }
        } catch {
          // A Like whose result is not an AnchorEvent names no alternate.
        }
      }
      return [...alternates];
    },
    async start() {
      await inbox.start();
      await delivery.start();
    },
    async stop() {
      await inbox.stop();
      await delivery.stop();
    },
  };
}
