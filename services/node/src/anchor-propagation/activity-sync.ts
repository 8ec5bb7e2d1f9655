import { errorMessage, isRetryable } from '@anchor/common/errors';
import { peerStatusOf } from '@anchor/common/http-client';
import type { Logger } from '@anchor/common/log';
import { isValid } from '@anchor/common/schemas';
import { INBOX_ACTIVITY } from '../schemas/index.js';
import type { Store, StoreProvider } from '@anchor/common/storage';
import type { ActivityStore } from '../activitypub/activity-store.js';
import type { ActorResolver } from '../activitypub/actor-resolver.js';
import type { Inbox } from '../activitypub/inbox.js';
import { activityTypeOf, type StoredActivity } from '../activitypub/vocabulary.js';

export const SYNC_STORE = 'activity-sync';

/** How far catch-up has read one remote collection: the number of items already looked at. */
export interface SyncPosition {
  position: number;
  updatedAt: number;
}

export interface ActivitySyncOptions {
  serviceId: string;
  /** `--sync-min-activity-age`: younger activities are left to normal delivery (they may still be on their way). */
  minActivityAgeMs: number;
  /** Pages read per collection and run (more wait for the next run). */
  maxPagesPerRun?: number;
}

type Collection = 'outbox' | 'inbox';

/** What catch-up needs of the inbox: whether an activity is in, and handling one as if delivered. */
export type SyncInbox = Pick<Inbox, 'received' | 'handleAndStore'>;
/** What catch-up needs of the actor resolver: a peer's actor, and signed GETs of its collections. */
export type SyncReader = Pick<ActorResolver, 'actor' | 'getJson'>;
/** Catch-up through a followee's export, before its outbox (`ExportCatchUp`): resolves with the operations committed. */
export interface ExportReader {
  run(service: string, base: string): Promise<number>;
}

/**
 * Catch-up (orb.md §3.4 "Activity sync"): a node that was down or joined late reads what it missed —
 * the Create and Announce activities in the outboxes of the services it follows, and its own Creates in
 * its followers' inboxes (which restore its anchors after a data loss). Each activity not yet in this
 * node's inbox is handled as if it had been delivered (without re-announcing) and stored in the inbox.
 * Collections are read in the order items were added, page by page (signed GETs), from a position
 * remembered per (service, collection); reading stops at the first activity younger than the minimum age
 * (whatever its type) and at the first retryable failure, to resume there next time.
 */
export class ActivitySync {
  private constructor(
    private readonly deps: {
      store: ActivityStore;
      positions: Store<SyncPosition>;
      inbox: SyncInbox;
      actors: SyncReader;
      exports?: ExportReader | undefined;
      log: Logger;
      options: ActivitySyncOptions;
    },
  ) {}

  static async open(
    provider: StoreProvider,
    deps: {
      store: ActivityStore;
      inbox: SyncInbox;
      actors: SyncReader;
      exports?: ExportReader | undefined;
      log: Logger;
      options: ActivitySyncOptions;
    },
  ): Promise<ActivitySync> {
    return new ActivitySync({ ...deps, positions: await provider.open<SyncPosition>(SYNC_STORE) });
  }

  /** One pass over every followee's outbox and every follower's inbox; returns the activities handled. */
  async run(): Promise<number> {
    const me = this.deps.options.serviceId;
    let handled = 0;
    for (const followee of await this.deps.store.allRefIris('following', me)) {
      await this.readExport(followee);
      handled += await this.syncOne(
        followee,
        'outbox',
        (activity) => (activity.type === 'Create' || activity.type === 'Announce') && activity.actor === followee,
      );
    }
    for (const follower of await this.deps.store.allRefIris('follower', me)) {
      handled += await this.syncOne(
        follower,
        'inbox',
        (activity) => activity.type === 'Create' && activity.actor === me,
      );
    }
    return handled;
  }

  /** The followee's export first, where it has one: its anchors in bulk, verified as any (see `ExportCatchUp`). */
  private async readExport(followee: string): Promise<void> {
    const exports = this.deps.exports;
    if (!exports) return;
    try {
      const outbox = (await this.deps.actors.actor(followee)).outbox;
      if (outbox === undefined) return;
      const committed = await exports.run(followee, new URL(outbox).origin);
      if (committed > 0) this.deps.log.info("catch-up read a followee's export", { followee, operations: committed });
    } catch (error) {
      this.deps.log.warn('catch-up could not read an export; next run resumes there', {
        service: followee,
        err: errorMessage(error),
      });
    }
  }

  private async syncOne(
    service: string,
    collection: Collection,
    wanted: (activity: StoredActivity) => boolean,
  ): Promise<number> {
    try {
      return await this.read(service, collection, wanted);
    } catch (error) {
      // A peer that does not let this node read its inbox (no follower or witness of it) is no fault.
      const status = peerStatusOf(error);
      const level = status === 401 || status === 403 ? 'debug' : 'warn';
      this.deps.log[level]('catch-up could not read a collection; next run resumes there', {
        service,
        collection,
        err: errorMessage(error),
      });
      return 0;
    }
  }

  private async read(
    service: string,
    collection: Collection,
    wanted: (activity: StoredActivity) => boolean,
  ): Promise<number> {
    const actor = await this.deps.actors.actor(service);
    const url =
      collection === 'outbox'
        ? actor.outbox
        : typeof actor.document.inbox === 'string'
          ? actor.document.inbox
          : undefined;
    if (url === undefined) return 0;
    const key = `${service}|${collection}`;
    const saved = (await this.deps.positions.get(key))?.position ?? 0;
    const summary = await this.deps.actors.getJson(url);
    const total = typeof summary.totalItems === 'number' ? summary.totalItems : 0;
    // A collection that shrank was rebuilt (restored from an older backup): read it again from the start.
    let position = saved > total ? 0 : saved;
    if (position >= total) return 0;

    const firstPage = await this.deps.actors.getJson(pageUrl(url, 0));
    const pageSize = itemsOf(firstPage).length;
    if (pageSize === 0) return 0;
    let handled = 0;
    let page = Math.floor(position / pageSize);
    const maxPages = this.deps.options.maxPagesPerRun ?? 50;
    for (let pagesRead = 0; pagesRead < maxPages && position < total; pagesRead++, page++) {
      const items = itemsOf(page === 0 ? firstPage : await this.deps.actors.getJson(pageUrl(url, page)));
      if (items.length === 0) break;
      for (let index = position - page * pageSize; index < items.length; index++) {
        const outcome = await this.consider(items[index], wanted);
        if (outcome === 'too-young') {
          await this.save(key, position);
          return handled;
        }
        if (outcome === 'handled') handled++;
        position++;
      }
      await this.save(key, position);
    }
    return handled;
  }

  private async consider(
    item: unknown,
    wanted: (activity: StoredActivity) => boolean,
  ): Promise<'handled' | 'skipped' | 'too-young'> {
    if (!isValid(INBOX_ACTIVITY, item)) return 'skipped';
    let activity: StoredActivity;
    try {
      activity = { ...item, type: activityTypeOf(item) };
    } catch {
      return 'skipped';
    }
    // Every young item stops the read, not only a wanted one: a collection's order is the time an item was
    // added, taken before its write commits, so two concurrent writes can land out of order. Reading past a
    // young item (a Like, say) could save a position beyond an older Create whose write lands just after.
    const published = typeof activity.published === 'string' ? Date.parse(activity.published) : Number.NaN;
    if (Number.isFinite(published) && Date.now() - published < this.deps.options.minActivityAgeMs) return 'too-young';
    if (!wanted(activity)) return 'skipped';
    if (await this.deps.inbox.received(activity.id)) return 'skipped';
    try {
      await this.deps.inbox.handleAndStore(activity, { source: 'sync' });
    } catch (error) {
      // Retryable (a peer or the store briefly down): stop here and resume at this activity next run.
      if (isRetryable(error)) throw error;
    }
    return 'handled';
  }

  private async save(key: string, position: number): Promise<void> {
    await this.deps.positions.put(key, { position, updatedAt: Date.now() });
  }
}

function pageUrl(collection: string, page: number): string {
  return `${collection}${collection.includes('?') ? '&' : '?'}page=true&page-num=${page}`;
}

function itemsOf(page: Record<string, unknown>): unknown[] {
  const items = page.orderedItems ?? page.items;
  return Array.isArray(items) ? items : [];
}
