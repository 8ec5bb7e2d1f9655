/**
 * Dead letters on two in-process nodes: a delivery to a peer that is down fails on every attempt, is kept
 * and listed with why and when, and once the peer is back a replay delivers it; a discarded one is gone; the
 * routes answer only with the admin token. Received activities are covered with the inbox on its own below.
 */
import { multibaseMultihash } from '@anchor/common/encoding';
import { transient } from '@anchor/common/errors';
import { getLogger } from '@anchor/common/log';
import { createMetrics } from '@anchor/common/metrics';
import { createMemMessageQueue, type MessageQueue } from '@anchor/common/mq';
import { createMemStoreProvider, type StoreProvider } from '@anchor/common/storage';
import { freePort, makeTempDir, waitFor, type TempDir } from '@anchor/testing/process';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ActivityStore } from '../activitypub/activity-store.js';
import type { DeliveryRecord } from '../activitypub/delivery.js';
import { Inbox, INBOX_PENDING_STORE, type PendingActivity } from '../activitypub/inbox.js';
import { createNodeMetrics } from '../observability/node-metrics.js';
import { startTestNode, type TestNode } from '../testing/test-node.js';
import { createDeadLetterMetrics } from './dead-letter-metrics.js';
import { DeadLetterStore } from './dead-letter-store.js';
import { DeadLetters } from './dead-letters.js';

const AS = 'https://www.w3.org/ns/activitystreams';
const ADMIN = { authorization: 'Bearer ADMIN_TOKEN' };
type Json = Record<string, any>;

async function call(url: string, init: { method?: string; headers?: Record<string, string>; json?: unknown } = {}) {
  const response = await fetch(url, {
    method: init.method ?? (init.json === undefined ? 'GET' : 'POST'),
    headers: { ...(init.json === undefined ? {} : { 'content-type': 'application/json' }), ...init.headers },
    ...(init.json === undefined ? {} : { body: JSON.stringify(init.json) }),
  });
  const text = await response.text();
  return { status: response.status, body: (text === '' ? {} : JSON.parse(text)) as Json };
}

describe('dead letters of deliveries', () => {
  let a: TestNode;
  let b: TestNode | undefined;
  let dirB: TempDir;
  let portB: number;
  let serviceA: string;
  let serviceB: string;
  const startB = async (): Promise<TestNode> => (b = await startTestNode({ dir: dirB, port: portB }));

  beforeAll(async () => {
    dirB = await makeTempDir('dead-letters-b-');
    portB = await freePort();
    [a] = await Promise.all([
      startTestNode({
        args: [
          '--mq-redelivery-max-attempts',
          '3',
          '--auth-tokens-def',
          '/dead-letters.*|admin|admin',
          '--auth-tokens',
          'admin=ADMIN_TOKEN',
        ],
      }),
      startB(),
    ]);
    serviceA = `${a.url}/services/node`;
    serviceB = `${b!.url}/services/node`;
  });
  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
    await Promise.all([a?.dir.remove(), dirB?.remove()]);
  });

  /** A Like from A to B; resolves the activity id. */
  const likeToB = async (seed: string): Promise<string> => {
    const posted = await call(`${serviceA}/outbox`, {
      json: {
        '@context': AS,
        type: 'Like',
        to: serviceB,
        object: { type: 'AnchorEvent', url: `hl:${multibaseMultihash(Buffer.from(seed))}` },
      },
    });
    expect(posted.status).toBe(200);
    return posted.body as unknown as string;
  };
  const deliveryTo = (activityId: string): Promise<DeliveryRecord | undefined> =>
    a.server.services.activitypub.delivery.deliveries.get(`${activityId}|${serviceB}/inbox`);
  const deadLetterOf = async (activityId: string): Promise<Json | undefined> => {
    const listed = await call(`${a.url}/dead-letters?topic=node.activity.delivery`, { headers: ADMIN });
    expect(listed.status).toBe(200);
    return (listed.body.deadLetters as Json[]).find((letter) => letter.subject?.activityId === activityId);
  };
  const arrivedAtB = (activityId: string): Promise<boolean> =>
    b!.server.services.activitypub.inbox.received(activityId);
  const metric = async (name: string): Promise<string[]> =>
    (await (await fetch(`${a.url}/metrics`)).text()).split('\n').filter((line) => line.startsWith(name));

  it('keeps a delivery to a peer that is down, lists it, and delivers it on replay once the peer is back', async () => {
    // B's actor and inbox are known to A (resolved and cached) from a first delivery that arrives.
    const first = await likeToB('first');
    await waitFor(() => arrivedAtB(first), { timeoutMs: 10_000, description: 'the first Like at B' });

    await b!.stop();
    b = undefined;
    const started = Date.now();
    const second = await likeToB('second');
    const dead = await waitFor(() => deadLetterOf(second), { timeoutMs: 15_000, description: 'the dead letter' });
    expect(dead).toMatchObject({
      topic: 'node.activity.delivery',
      reason: 'max-attempts',
      attempts: 3,
      subject: { activityId: second, inbox: `${serviceB}/inbox`, recipient: serviceB },
      body: { key: `${second}|${serviceB}/inbox` },
    });
    expect(dead!.error).toMatch(/ECONNREFUSED|connect|refused/i);
    const firstFailedAt = Date.parse(dead!.firstFailedAt);
    expect(firstFailedAt).toBeGreaterThanOrEqual(started);
    // Three attempts, two backoffs of at least 100 and 150 ms in between.
    expect(Date.parse(dead!.lastFailedAt) - firstFailedAt).toBeGreaterThanOrEqual(250);
    expect((await deliveryTo(second))?.status).toBe('dead');
    expect(await call(`${a.url}/dead-letters/${dead!.id}`, { headers: ADMIN })).toMatchObject({
      status: 200,
      body: dead,
    });
    expect(await metric('node_dead_letters{topic="node.activity.delivery"}')).toEqual([
      'node_dead_letters{topic="node.activity.delivery"} 1',
    ]);
    expect(await metric('node_dead_letters_total{topic="node.activity.delivery",reason="max-attempts"}')).toEqual([
      'node_dead_letters_total{topic="node.activity.delivery",reason="max-attempts"} 1',
    ]);

    await startB();
    expect(await arrivedAtB(second)).toBe(false);
    const replayed = await call(`${a.url}/dead-letters/${dead!.id}/replay`, { method: 'POST', headers: ADMIN });
    expect(replayed).toMatchObject({ status: 200, body: { id: dead!.id } });
    await waitFor(() => arrivedAtB(second), { timeoutMs: 10_000, description: 'the replayed Like at B' });
    await waitFor(async () => (await deliveryTo(second))?.status === 'delivered', { timeoutMs: 5_000 });
    expect(await deadLetterOf(second)).toBeUndefined();
    expect((await call(`${a.url}/dead-letters/${dead!.id}`, { headers: ADMIN })).status).toBe(404);
    expect(await metric('node_dead_letters{topic="node.activity.delivery"}')).toEqual([
      'node_dead_letters{topic="node.activity.delivery"} 0',
    ]);
    expect(await metric('node_dead_letters_replayed_total{topic="node.activity.delivery"}')).toEqual([
      'node_dead_letters_replayed_total{topic="node.activity.delivery"} 1',
    ]);
  });

  it('keeps a recipient that could not be resolved, and delivers to it on replay once it is up', async () => {
    const port = await freePort();
    const unknown = `http://127.0.0.1:${port}/services/node`;
    const posted = await call(`${serviceA}/outbox`, {
      json: {
        '@context': AS,
        type: 'Like',
        to: unknown,
        object: { type: 'AnchorEvent', url: `hl:${multibaseMultihash(Buffer.from('unknown'))}` },
      },
    });
    const activityId = posted.body as unknown as string;
    const find = async (): Promise<Json | undefined> => {
      const listed = await call(`${a.url}/dead-letters?topic=node.activity.outbox`, { headers: ADMIN });
      return (listed.body.deadLetters as Json[]).find((letter) => letter.subject?.activityId === activityId);
    };
    const dead = await waitFor(find, { timeoutMs: 15_000, description: 'the fan-out dead letter' });
    expect(dead).toMatchObject({
      topic: 'node.activity.outbox',
      reason: 'max-attempts',
      attempts: 3,
      subject: { activityId, recipient: unknown },
    });

    const c = await startTestNode({ port });
    try {
      expect((await call(`${a.url}/dead-letters/${dead!.id}/replay`, { method: 'POST', headers: ADMIN })).status).toBe(
        200,
      );
      await waitFor(() => c.server.services.activitypub.inbox.received(activityId), {
        timeoutMs: 10_000,
        description: 'the replayed fan-out delivered',
      });
      expect(await find()).toBeUndefined();
    } finally {
      await c.stop();
      await c.dir.remove();
    }
  });

  it('discards a dead letter for good, and answers only the admin token', async () => {
    await b!.stop();
    b = undefined;
    const third = await likeToB('third');
    const dead = await waitFor(() => deadLetterOf(third), { timeoutMs: 15_000, description: 'the dead letter' });
    const path = `${a.url}/dead-letters/${dead!.id}`;

    for (const headers of [{}, { authorization: 'Bearer WRONG' }] as Array<Record<string, string>>) {
      expect((await call(`${a.url}/dead-letters`, { headers })).status).toBe(401);
      expect((await call(path, { headers })).status).toBe(401);
      expect((await call(`${path}/replay`, { method: 'POST', headers })).status).toBe(401);
      expect((await call(path, { method: 'DELETE', headers })).status).toBe(401);
    }
    expect((await call(`${a.url}/dead-letters?topic=node.anchor`, { headers: ADMIN })).status).toBe(400);
    expect((await call(`${a.url}/dead-letters?limit=0`, { headers: ADMIN })).status).toBe(400);
    expect((await call(`${a.url}/dead-letters?after=not-a-cursor`, { headers: ADMIN })).status).toBe(400);
    expect((await call(`${a.url}/dead-letters/${'x'.repeat(2_000)}`, { headers: ADMIN })).status).toBe(404);

    expect(await call(path, { method: 'DELETE', headers: ADMIN })).toMatchObject({
      status: 200,
      body: { id: dead!.id },
    });
    expect((await call(path, { headers: ADMIN })).status).toBe(404);
    expect((await call(path, { method: 'DELETE', headers: ADMIN })).status).toBe(404);
    expect((await call(`${path}/replay`, { method: 'POST', headers: ADMIN })).status).toBe(404);
    expect(await deadLetterOf(third)).toBeUndefined();
    expect((await deliveryTo(third))?.status).toBe('dead');
    expect(await metric('node_dead_letters_discarded_total{topic="node.activity.delivery"}')).toEqual([
      'node_dead_letters_discarded_total{topic="node.activity.delivery"} 1',
    ]);
  });
});

describe('dead letters of received activities', () => {
  const ME = 'https://me.example.com/services/node';
  const PEER = 'https://peer.example.com/services/node';
  let provider: StoreProvider;
  let mq: MessageQueue;
  let inbox: Inbox;
  let deadLetters: DeadLetters;
  let failing: boolean;

  beforeEach(async () => {
    provider = createMemStoreProvider();
    mq = createMemMessageQueue({ maxAttempts: 2, backoff: { initialMs: 10, multiplier: 1, maxMs: 10 } });
    const metrics = createMetrics({ prefix: 'node_', processMetrics: false });
    const log = getLogger('dead-letters-test');
    inbox = await Inbox.open(provider, {
      store: await ActivityStore.open(provider),
      mq,
      serviceId: ME,
      maintenance: false,
      maxAttempts: 2,
      concurrency: 1,
      metrics: createNodeMetrics(metrics),
      log,
    });
    failing = true;
    inbox.on('Like', async () => {
      if (failing) throw transient('the anchor origin is unreachable');
    });
    const deadLetterMetrics = createDeadLetterMetrics(metrics);
    deadLetters = new DeadLetters(
      await DeadLetterStore.open(provider, 2, deadLetterMetrics),
      mq,
      deadLetterMetrics,
      log,
      [inbox.deadLetterSource()],
    );
    await inbox.start();
    await deadLetters.start();
  });
  afterEach(async () => {
    await deadLetters.stop();
    await inbox.stop();
    await mq.close();
    await provider.close();
  });

  const like = (n: number) => ({ '@context': AS, id: `${PEER}/activities/${n}`, type: 'Like', actor: PEER, to: ME });
  const kept = async () => (await deadLetters.list({ limit: 10 })).items.map(({ value }) => value);
  const pending = async (id: string) => (await provider.open<PendingActivity>(INBOX_PENDING_STORE)).get(id);

  it('keeps an activity every attempt failed to handle, handles it again on replay, stores it unhandled on discard', async () => {
    await inbox.receive(like(1));
    await inbox.receive(like(2));
    await waitFor(async () => (await kept()).length === 2, { timeoutMs: 5_000 });
    const letters = await kept();
    const first = letters.find((letter) => letter.subject?.activityId === like(1).id);
    const second = letters.find((letter) => letter.subject?.activityId === like(2).id);
    expect(first).toMatchObject({
      topic: 'node.activity.inbox',
      reason: 'max-attempts',
      error: 'the anchor origin is unreachable',
      attempts: 2,
      subject: { activityId: like(1).id, type: 'Like', actor: PEER },
    });
    expect((await pending(like(1).id))?.deadLetteredAt).toBeGreaterThan(0);
    expect(await inbox.received(like(1).id)).toBe(false);

    failing = false;
    await deadLetters.replay(first!);
    await waitFor(() => inbox.received(like(1).id), { timeoutMs: 5_000, description: 'the replayed activity handled' });
    expect(await pending(like(1).id)).toBeUndefined();

    await deadLetters.discard(second!);
    expect(await inbox.received(like(2).id)).toBe(true);
    expect(await pending(like(2).id)).toBeUndefined();
    expect(await kept()).toEqual([]);
  });

  it('keeps at most --dead-letters-max, dropping the oldest', async () => {
    for (const n of [1, 2, 3]) {
      await inbox.receive(like(n));
      await waitFor(async () => (await kept()).some((letter) => letter.subject?.activityId === like(n).id), {
        timeoutMs: 5_000,
      });
    }
    expect((await kept()).map((letter) => letter.subject?.activityId)).toEqual([like(3).id, like(2).id]);
  });
});
