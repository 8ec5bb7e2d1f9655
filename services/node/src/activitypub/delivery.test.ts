import { getLogger } from '@anchor/common/log';
import { createMetrics } from '@anchor/common/metrics';
import { createMemMessageQueue } from '@anchor/common/mq';
import { createMemStoreProvider } from '@anchor/common/storage';
import type { HttpClient } from '@anchor/common/http-client';
import { waitFor } from '@anchor/testing/process';
import { describe, expect, it } from 'vitest';
import { createNodeMetrics } from '../observability/node-metrics.js';
import { ActivityStore } from './activity-store.js';
import type { ActorResolver } from './actor-resolver.js';
import { DeliveryService, type DeliveryRecord } from './delivery.js';
import { BROADCAST_STORE } from './outbox.js';
import type { StoredActivity } from './vocabulary.js';

const ME = 'https://me.example/services/node';
const PEERS = ['https://a.example/services/node', 'https://b.example/services/node', 'https://c.example/services/node'];

describe('DeliveryService', () => {
  it('replays a fan-out cut short: one record per inbox, still-queued ones sent again, delivered ones not', async () => {
    const provider = createMemStoreProvider();
    const store = await ActivityStore.open(provider);
    const mq = createMemMessageQueue();
    const posted: string[] = [];
    const httpClient = {
      request: async (url: string) => {
        posted.push(url);
        return { status: 200, headers: {}, data: '' };
      },
    } as unknown as HttpClient;
    const actors = {
      recipients: async (iri: string) => [{ id: iri, inbox: `${iri}/inbox` }],
    } as unknown as ActorResolver;
    const service = await DeliveryService.open(provider, {
      store,
      mq,
      httpClient,
      actors,
      metrics: createNodeMetrics(createMetrics()),
      log: getLogger('delivery-test'),
      options: {
        serviceId: ME,
        followersIri: `${ME}/followers`,
        witnessesIri: `${ME}/witnesses`,
        maxAttempts: 3,
        concurrency: 4,
      },
    });

    const activity: StoredActivity = {
      '@context': 'https://www.w3.org/ns/activitystreams',
      id: `${ME}/activities/1`,
      type: 'Like',
      actor: ME,
      to: [...PEERS, ME],
    };
    const record = (peer: string, status: DeliveryRecord['status']): DeliveryRecord => ({
      activityId: activity.id,
      inbox: `${peer}/inbox`,
      recipient: peer,
      status,
      queuedAt: 1,
      updatedAt: 1,
    });
    // A crash after two records were written (one delivered, one still queued) and before the fan-out ended.
    await provider.batch([
      store.putActivityOp(activity),
      { store: BROADCAST_STORE, op: 'put', key: activity.id, value: { activityId: activity.id, postedAt: 0 } },
      {
        store: service.deliveries.name,
        op: 'put',
        key: `${activity.id}|${PEERS[0]}/inbox`,
        value: record(PEERS[0] as string, 'delivered'),
      },
      {
        store: service.deliveries.name,
        op: 'put',
        key: `${activity.id}|${PEERS[1]}/inbox`,
        value: record(PEERS[1] as string, 'queued'),
      },
    ]);

    await service.start();
    try {
      const records = () => service.deliveries.getMany(PEERS.map((peer) => `${activity.id}|${peer}/inbox`));
      await waitFor(async () => (await records()).every((stored) => stored?.status === 'delivered'), {
        timeoutMs: 5_000,
        description: 'every delivery done',
      });
      expect(posted.sort()).toEqual([`${PEERS[1]}/inbox`, `${PEERS[2]}/inbox`]);
      // Exactly one record per inbox, the one written before the crash kept as it was.
      expect((await records()).map((stored) => stored?.queuedAt === 1)).toEqual([true, true, false]);
      await waitFor(
        async () => (await provider.open(BROADCAST_STORE)).get(activity.id).then((pending) => pending === undefined),
        { timeoutMs: 5_000, description: 'the fan-out to end' },
      );
    } finally {
      await service.stop();
      await mq.close();
      await provider.close();
    }
  });
});
