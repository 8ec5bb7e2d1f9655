import { errorMessage } from '@anchor/common/errors';
import { getLogger } from '@anchor/common/log';
import type { ActivityPubFeature } from '../activitypub/activitypub-feature.js';
import { PUBLIC, anchorEvent, derivedActivityId } from '../activitypub/vocabulary.js';
import type { AnchoringFeature } from '../anchoring/anchoring-feature.js';
import type { CasFeature } from '../cas/cas-feature.js';
import type { NodeContext } from '../context.js';
import type { NodeFeature } from '../feature.js';
import type { ObserverFeature } from '../observer/observer-feature.js';
import { ExportCatchUp } from '../export/export-catch-up.js';
import { ActivitySync } from './activity-sync.js';
import { AnchorIntakeService } from './anchor-intake.js';

export interface AnchorPropagationFeature extends NodeFeature {
  readonly intake: AnchorIntakeService;
  readonly sync: ActivitySync;
  /** Runs catch-up now (tests, and the start of the node); resolves with the activities handled. */
  syncNow(): Promise<number>;
}

/**
 * Anchor propagation (orb.md §2.1, §3.3-§3.4): this node's completed anchors are published as a Create
 * to its followers and the public; anchors of the services it follows are taken in from Create and
 * Announce, processed by the observer, acknowledged (Like to the origin, Announce to its own followers);
 * and catch-up reads what was missed while the node was down — once at start, then every
 * `--sync-interval`, on the batch-writer instance of a deployment.
 */
export async function createAnchorPropagationFeature(
  ctx: NodeContext,
  deps: { activityPub: ActivityPubFeature; anchoring: AnchoringFeature; observer: ObserverFeature; cas: CasFeature },
): Promise<AnchorPropagationFeature> {
  const log = getLogger('federation');
  const { activityPub } = deps;
  const me = ctx.urls.serviceId;

  const intake = await AnchorIntakeService.open(ctx.storage, {
    store: activityPub.store,
    outbox: activityPub.outbox,
    cas: deps.cas.store,
    submit: (event) => deps.observer.submit(event),
    anchorRecord: (anchorHash) => deps.observer.records.anchors.get(anchorHash),
    serviceId: me,
    serviceEndpoint: ctx.urls.serviceEndpoint,
    followersIri: activityPub.followersIri,
    log,
  });
  activityPub.inbox.on('Create', intake.onCreate);
  activityPub.inbox.on('Announce', intake.onAnnounce);
  deps.observer.onProcessed((processed) => {
    if (processed.attributedTo === undefined) return;
    intake.processed(processed.anchorHash).catch((error: unknown) =>
      log.warn('could not acknowledge a received anchor; the sweep will', {
        anchorHash: processed.anchorHash,
        err: errorMessage(error),
      }),
    );
  });

  // Every completed anchor of this node, to its followers and the public; the id derives from the anchor.
  deps.anchoring.onAnchorCompleted(async (anchor) => {
    await activityPub.outbox.post({
      id: derivedActivityId(ctx.urls.serviceEndpoint, `Create:${anchor.anchorHash}`),
      type: 'Create',
      to: [activityPub.followersIri, PUBLIC],
      object: anchorEvent(anchor.hashlink, anchor.linkset),
    });
  });

  const exports = await ExportCatchUp.open(ctx.storage, {
    observer: deps.observer.observer,
    cas: deps.cas.store,
    getJson: (url) => activityPub.actors.getJson(url),
    expecting: (anchor, from, via) => intake.expect(anchor, from, via),
    self: me,
    log,
  });
  const sync = await ActivitySync.open(ctx.storage, {
    store: activityPub.store,
    inbox: activityPub.inbox,
    actors: activityPub.actors,
    exports,
    log,
    options: { serviceId: me, minActivityAgeMs: ctx.config.federation.syncMinActivityAge },
  });

  let timer: NodeJS.Timeout | undefined;
  let running: Promise<number> | undefined;
  let stopped = false;
  const syncNow = (): Promise<number> => {
    running ??= (async () => {
      try {
        await intake.sweep();
        if (!deps.anchoring.writer.isLeader) return 0;
        const handled = await sync.run();
        if (handled > 0) log.info('catch-up handled missed activities', { count: handled });
        return handled;
      } finally {
        running = undefined;
      }
    })();
    return running;
  };
  const schedule = (delayMs: number) => {
    if (stopped) return;
    timer = setTimeout(() => {
      syncNow()
        .catch((error: unknown) =>
          log.warn('catch-up failed; retrying at the next interval', { err: errorMessage(error) }),
        )
        .finally(() => schedule(ctx.config.federation.syncInterval));
    }, delayMs);
    timer.unref();
  };

  return {
    name: 'anchor-propagation',
    intake,
    sync,
    syncNow,
    async start() {
      stopped = false;
      // Once at start, so a restarted node catches up promptly; then every interval.
      schedule(0);
    },
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await running?.catch(() => undefined);
    },
  };
}
