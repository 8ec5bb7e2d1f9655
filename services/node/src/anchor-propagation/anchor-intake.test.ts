import { canonicalBytes, formatHashlink, multibaseMultihash } from '@anchor/common/encoding';
import { getLogger, setLogLevels } from '@anchor/common/log';
import { createMetrics } from '@anchor/common/metrics';
import { createMemMessageQueue, type MessageQueue } from '@anchor/common/mq';
import { createMemStoreProvider, type StoreProvider } from '@anchor/common/storage';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ActivityStore } from '../activitypub/activity-store.js';
import { BROADCAST_STORE, Outbox, type PendingBroadcast } from '../activitypub/outbox.js';
import { PUBLIC, anchorEvent, derivedActivityId, type StoredActivity } from '../activitypub/vocabulary.js';
import { CAS_MEDIA, CasStore } from '../cas/cas-store.js';
import { createNodeMetrics } from '../observability/node-metrics.js';
import type { AnchorEvent } from '../anchor-model/anchor-event.js';
import { AnchorRecords } from '../anchor-model/anchor-records.js';
import { AnchorIntakeService, INTAKE_STORE, type AnchorIntake } from './anchor-intake.js';

const ME = 'https://me.test/services/node';
const FOLLOWERS = `${ME}/followers`;
const PEER = 'https://peer.test/services/node';
const ORIGIN_NODE = 'https://origin.test/services/node';

/** A witnessed anchor linkset as the origin published it (only its author matters here). */
function linksetBy(author: string, seed: string): Record<string, unknown> {
  return {
    linkset: [
      { anchor: `hl:${multibaseMultihash(seed)}`, author: [{ href: author }], profile: 'https://w3id.org/orb#v0' },
    ],
  };
}

/**
 * Anchors from followed services, over a mem store and queue: taken from Create and Announce, handed to the
 * observer (here a recorder of submitted events; the observer's records are written as its commit writes
 * them), and acknowledged once processed with a Like to the sender and the origin and an Announce to the
 * node's own followers.
 */
describe('anchor intake', () => {
  let provider: StoreProvider;
  let mq: MessageQueue;
  let store: ActivityStore;
  let cas: CasStore;
  let anchors: AnchorRecords;
  let intake: AnchorIntakeService;
  let submitted: AnchorEvent[];
  const metrics = createNodeMetrics(createMetrics({ prefix: 'node_', processMetrics: false }));

  beforeAll(() => setLogLevels('error'));

  beforeEach(async () => {
    provider = createMemStoreProvider();
    mq = createMemMessageQueue();
    store = await ActivityStore.open(provider);
    cas = await CasStore.open(provider, 'https://me.test/cas');
    anchors = await AnchorRecords.open(provider);
    submitted = [];
    const log = getLogger('federation');
    intake = await AnchorIntakeService.open(provider, {
      store,
      outbox: new Outbox({
        store,
        broadcasts: await provider.open<PendingBroadcast>(BROADCAST_STORE),
        mq,
        serviceId: ME,
        serviceEndpoint: ME,
        metrics,
        log,
      }),
      cas,
      submit: async (event) => {
        submitted.push(event);
      },
      anchorRecord: (anchorHash) => anchors.anchors.get(anchorHash),
      serviceId: ME,
      serviceEndpoint: ME,
      followersIri: FOLLOWERS,
      log,
    });
    await store.addRef('following', ME, PEER);
  });

  afterEach(async () => {
    await mq.close();
    await provider.close();
  });

  /** A Create of an anchor by `actor`, its linkset embedded. */
  function createOf(
    actor: string,
    linkset: Record<string, unknown>,
  ): { activity: StoredActivity; hashlink: string; anchorHash: string } {
    const bytes = canonicalBytes(linkset);
    const anchorHash = multibaseMultihash(bytes);
    const hashlink = formatHashlink({ resourceHash: anchorHash, links: [`https://peer.test/cas/${anchorHash}`] });
    const activity: StoredActivity = {
      id: `https://peer.test/activities/create-${anchorHash}`,
      type: 'Create',
      actor,
      to: [PUBLIC],
      object: anchorEvent(hashlink, linkset),
    };
    return { activity, hashlink, anchorHash };
  }

  /** What the observer's commit leaves: the linkset in the CAS and the anchor record. */
  async function observerProcessed(
    anchorHash: string,
    linkset: Record<string, unknown>,
    status: 'processed' | 'rejected' = 'processed',
  ): Promise<void> {
    await cas.write(canonicalBytes(linkset), CAS_MEDIA.linkset);
    await anchors.anchors.put(anchorHash, {
      hashlink: `hl:${anchorHash}`,
      status,
      processedAt: Date.now(),
      ...(status === 'rejected' ? { reason: 'bad proof' } : { transactionNumber: 1 }),
    });
  }

  const intakeOf = (anchorHash: string) =>
    provider.open<AnchorIntake>(INTAKE_STORE).then((intakes) => intakes.get(anchorHash));

  it('refuses a Create from a service this node does not follow, and takes nothing in', async () => {
    const { activity, anchorHash } = createOf('https://stranger.test/services/node', linksetBy(ORIGIN_NODE, 'a'));
    await expect(intake.onCreate(activity, { source: 'inbox' })).rejects.toMatchObject({
      status: 400,
      message: /which this service does not follow/,
    });
    expect(submitted).toEqual([]);
    expect(await intakeOf(anchorHash)).toBeUndefined();
  });

  it('hands a followed Create to the observer, then acknowledges it: a Like to sender and origin, an Announce to its followers', async () => {
    const linkset = linksetBy(ORIGIN_NODE, 'b');
    const { activity, hashlink, anchorHash } = createOf(PEER, linkset);
    await intake.onCreate(activity, { source: 'inbox' });

    expect(submitted).toEqual([{ hashlink, linkset, attributedTo: PEER, sources: ['https://peer.test'] }]);
    expect(await intakeOf(anchorHash)).toMatchObject({
      anchorHash,
      hashlink,
      from: PEER,
      via: activity.id,
      announce: true,
      status: 'pending',
    });

    // Not processed yet: nothing to acknowledge.
    await intake.processed(anchorHash);
    expect((await intakeOf(anchorHash))?.status).toBe('pending');

    await observerProcessed(anchorHash, linkset);
    await intake.processed(anchorHash);
    expect((await intakeOf(anchorHash))?.status).toBe('acknowledged');
    const like = await store.get(derivedActivityId(ME, `Like:${anchorHash}`));
    expect(like).toMatchObject({
      type: 'Like',
      to: [PEER, ORIGIN_NODE],
      object: anchorEvent(hashlink),
      result: anchorEvent(formatHashlink({ resourceHash: anchorHash, links: [cas.linkFor(anchorHash)] })),
    });
    const announce = await store.get(derivedActivityId(ME, `Announce:${anchorHash}`));
    expect(announce).toMatchObject({
      type: 'Announce',
      to: [FOLLOWERS, PUBLIC],
      object: { type: 'OrderedCollection', totalItems: 1, orderedItems: [anchorEvent(hashlink, linkset)] },
    });
    // The sender is not sent its own anchor back.
    expect(
      (await provider.open<PendingBroadcast>(BROADCAST_STORE).then((broadcasts) => broadcasts.get(announce!.id)))
        ?.exclude,
    ).toEqual([PEER]);
  });

  it('does not announce an anchor read by catch-up, and marks a rejected anchor without acknowledging it', async () => {
    const read = createOf(PEER, linksetBy(ORIGIN_NODE, 'c'));
    await intake.onCreate(read.activity, { source: 'sync' });
    await observerProcessed(read.anchorHash, linksetBy(ORIGIN_NODE, 'c'));
    await intake.sweep();
    expect((await intakeOf(read.anchorHash))?.status).toBe('acknowledged');
    expect(await store.get(derivedActivityId(ME, `Announce:${read.anchorHash}`))).toBeUndefined();
    expect(await store.get(derivedActivityId(ME, `Like:${read.anchorHash}`))).toBeDefined();

    const refused = createOf(PEER, linksetBy(ORIGIN_NODE, 'd'));
    await intake.onCreate(refused.activity, { source: 'inbox' });
    await observerProcessed(refused.anchorHash, linksetBy(ORIGIN_NODE, 'd'), 'rejected');
    await intake.sweep();
    expect((await intakeOf(refused.anchorHash))?.status).toBe('rejected');
    expect(await store.get(derivedActivityId(ME, `Like:${refused.anchorHash}`))).toBeUndefined();
  });

  it("takes this node's own anchor back as acknowledged, and skips an anchor the observer has already processed (read by catch-up)", async () => {
    const own = createOf(ME, linksetBy(ME, 'e'));
    await intake.onCreate(own.activity, { source: 'sync' });
    expect(await intakeOf(own.anchorHash)).toMatchObject({ status: 'acknowledged', announce: false });
    expect(submitted.map((event) => event.hashlink)).toEqual([own.hashlink]);

    const done = createOf(PEER, linksetBy(ORIGIN_NODE, 'f'));
    await observerProcessed(done.anchorHash, linksetBy(ORIGIN_NODE, 'f'));
    await intake.onCreate(done.activity, { source: 'sync' });
    expect(await intakeOf(done.anchorHash)).toBeUndefined();
    expect(submitted).toHaveLength(1);
    expect(await store.get(derivedActivityId(ME, `Announce:${done.anchorHash}`))).toBeUndefined();
  });

  it("announces an inbox Create's anchor that catch-up processed first, and one it is still processing", async () => {
    const announceOf = (anchorHash: string) => store.get(derivedActivityId(ME, `Announce:${anchorHash}`));
    const excluded = async (id: string) =>
      (await provider.open<PendingBroadcast>(BROADCAST_STORE).then((broadcasts) => broadcasts.get(id)))?.exclude;

    // The export's catch-up took it in, processed and acknowledged it before the Create was delivered.
    const early = createOf(PEER, linksetBy(ORIGIN_NODE, 'h'));
    await intake.expect(early, PEER, 'export');
    await observerProcessed(early.anchorHash, linksetBy(ORIGIN_NODE, 'h'));
    await intake.processed(early.anchorHash);
    expect(await announceOf(early.anchorHash)).toBeUndefined();
    await intake.onCreate(early.activity, { source: 'inbox' });
    expect(await announceOf(early.anchorHash)).toMatchObject({
      type: 'Announce',
      to: [FOLLOWERS, PUBLIC],
      object: { orderedItems: [anchorEvent(early.hashlink, linksetBy(ORIGIN_NODE, 'h'))] },
    });
    expect(await excluded(derivedActivityId(ME, `Announce:${early.anchorHash}`))).toEqual([PEER]);
    // Delivered again: the one Announce stands.
    await intake.onCreate(early.activity, { source: 'inbox' });
    const posted = await store.getMany(await store.allRefIris('outbox', ME));
    expect(posted.filter((activity) => activity?.type === 'Announce')).toHaveLength(1);

    // The export's catch-up took it in and is still processing it: the Create's Announce waits for the end.
    const during = createOf(PEER, linksetBy(ORIGIN_NODE, 'i'));
    await intake.expect(during, PEER, 'export');
    await intake.onCreate(during.activity, { source: 'inbox' });
    expect(await intakeOf(during.anchorHash)).toMatchObject({ announce: true, status: 'pending', via: 'export' });
    expect(await announceOf(during.anchorHash)).toBeUndefined();
    await observerProcessed(during.anchorHash, linksetBy(ORIGIN_NODE, 'i'));
    await intake.processed(during.anchorHash);
    expect(await announceOf(during.anchorHash)).toBeDefined();
    expect((await intakeOf(during.anchorHash))?.status).toBe('acknowledged');
  });

  it('takes every valid anchor an Announce lists, records the share, and skips invalid items', async () => {
    const linkset = linksetBy(ORIGIN_NODE, 'g');
    const { hashlink, anchorHash } = createOf(PEER, linkset);
    const announce: StoredActivity = {
      id: 'https://peer.test/activities/announce-1',
      type: 'Announce',
      actor: PEER,
      to: [PUBLIC],
      object: {
        type: 'OrderedCollection',
        totalItems: 2,
        orderedItems: [{ type: 'AnchorEvent', url: 'not a hashlink' }, anchorEvent(hashlink, linkset)],
      },
    };
    await intake.onAnnounce(announce);

    expect(submitted).toEqual([{ hashlink, linkset, attributedTo: PEER, sources: ['https://peer.test'] }]);
    expect(await intakeOf(anchorHash)).toMatchObject({
      from: PEER,
      via: announce.id,
      announce: false,
      status: 'pending',
    });
    expect(await store.hasRef('share', anchorHash, announce.id)).toBe(true);
  });
});
