import { getLogger, setLogLevels } from '@anchor/common/log';
import { createMemStoreProvider } from '@anchor/common/storage';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ActivityStore } from '../activitypub/activity-store.js';
import type { StoredActivity } from '../activitypub/vocabulary.js';
import { ActivitySync, type SyncInbox, type SyncReader } from './activity-sync.js';

const ME = 'https://me.test/services/node';
const PEER = 'https://peer.test/services/node';
const OUTBOX = `${PEER}/outbox`;
const PAGE_SIZE = 2;
const MIN_AGE_MS = 30_000;

/** An activity of the peer's outbox, published `ageMs` ago. */
function activity(name: string, type: string, ageMs: number): StoredActivity {
  return {
    '@context': 'https://www.w3.org/ns/activitystreams',
    id: `${PEER}/activities/${name}`,
    type,
    actor: PEER,
    to: [`${PEER}/followers`],
    published: new Date(Date.now() - ageMs).toISOString(),
    object: type === 'Like' ? `${PEER}/activities/x` : { type: 'AnchorEvent', url: `hl:${name}` },
  } as StoredActivity;
}

/**
 * Catch-up over a peer's outbox served from a list (the collection as the peer's store orders it, by the time
 * each item was added), into an inbox that records what it handled.
 */
describe('activity sync (catch-up)', () => {
  let outbox: StoredActivity[];
  let handled: string[];
  let sync: ActivitySync;

  beforeAll(() => setLogLevels('error'));

  beforeEach(async () => {
    outbox = [];
    handled = [];
    const provider = createMemStoreProvider();
    const store = await ActivityStore.open(provider);
    await store.addRef('following', ME, PEER);
    const inbox: SyncInbox = {
      received: async (id) => handled.includes(id),
      handleAndStore: async (read) => {
        handled.push(read.id);
      },
    };
    const actors: SyncReader = {
      actor: async (id) => ({ id, inbox: `${PEER}/inbox`, outbox: OUTBOX, document: { id } }),
      getJson: async (url) => {
        const page = /[?&]page-num=(\d+)/.exec(url);
        if (page === null) return { type: 'OrderedCollection', totalItems: outbox.length };
        const start = Number(page[1]) * PAGE_SIZE;
        return { type: 'OrderedCollectionPage', orderedItems: outbox.slice(start, start + PAGE_SIZE) };
      },
    };
    sync = await ActivitySync.open(provider, {
      store,
      inbox,
      actors,
      log: getLogger('federation'),
      options: { serviceId: ME, minActivityAgeMs: MIN_AGE_MS },
    });
  });

  it("handles the followee's Creates and Announces across pages, once each", async () => {
    outbox.push(
      activity('c1', 'Create', 60_000),
      activity('l1', 'Like', 60_000),
      activity('a1', 'Announce', 60_000),
      activity('c2', 'Create', 60_000),
      activity('c3', 'Create', 60_000),
    );
    expect(await sync.run()).toBe(4);
    expect(handled.map((id) => id.split('/').at(-1))).toEqual(['c1', 'a1', 'c2', 'c3']);
    expect(await sync.run()).toBe(0);
  });

  it('stops at the first young item of any type, so an older Create written after it is not passed over', async () => {
    outbox.push(activity('c1', 'Create', 60_000), activity('l1', 'Like', 1_000));
    expect(await sync.run()).toBe(1);

    // A Create added (its place in the order taken) before the Like, whose write landed after the last read.
    outbox.splice(1, 0, activity('c2', 'Create', 1_500));
    outbox[1] = { ...outbox[1]!, published: new Date(Date.now() - 60_000).toISOString() };
    outbox[2] = { ...outbox[2]!, published: new Date(Date.now() - 60_000).toISOString() };
    expect(await sync.run()).toBe(1);
    expect(handled.map((id) => id.split('/').at(-1))).toEqual(['c1', 'c2']);
  });

  it('reads a collection again from the start when it shrank (restored from an older backup)', async () => {
    outbox.push(activity('c1', 'Create', 60_000), activity('c2', 'Create', 60_000), activity('c3', 'Create', 60_000));
    expect(await sync.run()).toBe(3);
    outbox.length = 0;
    handled.length = 0;
    outbox.push(activity('c9', 'Create', 60_000));
    expect(await sync.run()).toBe(1);
    expect(handled.map((id) => id.split('/').at(-1))).toEqual(['c9']);
  });
});
