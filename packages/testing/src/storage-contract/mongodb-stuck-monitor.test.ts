import { type EventEmitter } from 'node:events';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMongoStoreProvider, type MongoStoreProvider } from '@anchor/common/storage';
import { uniqueName } from '../contract-kit/index.js';
import { mongoServerForTests, type MongoTestServer } from '../ferretdb/index.js';
import { waitFor } from '../process/wait-for.js';

// The driver can leave a server monitor in one heartbeat forever (mongodb-heartbeat-watch.ts has the race); the
// process-level database-restart fault tests of the node and the log hit it about one run in two. Here the
// stuck heartbeat is the event the driver emits when that heartbeat starts, with no end after it.

let server: MongoTestServer;
const providers: MongoStoreProvider[] = [];

beforeAll(async () => {
  server = await mongoServerForTests();
}, 20 * 60_000);

afterAll(async () => {
  await Promise.all(providers.map((p) => p.close()));
  await server?.stop();
});

/** The driver's client inside the provider: the events its server monitors emit come from there. */
function clientOf(provider: MongoStoreProvider): EventEmitter {
  return (provider as unknown as { client: EventEmitter }).client;
}

describe('mongodb adapter: a server monitor stuck in one heartbeat', () => {
  it('replaces the client, and the stores work through the new one', async () => {
    const provider = (await createMongoStoreProvider({
      url: server.url,
      prefix: uniqueName('stuck').replaceAll('-', ''),
      sweepIntervalMs: 0,
      // A polled heartbeat may take two connect timeouts: stuck after 2 x 200 ms + 1 s.
      socketConnectTimeoutMs: 200,
    })) as MongoStoreProvider;
    providers.push(provider);
    const store = await provider.open<{ v: number }>('things');
    await store.put('a', { v: 1 });
    const stuck = clientOf(provider);

    stuck.emit('serverHeartbeatStarted', { connectionId: '127.0.0.1:1', awaited: false });
    await waitFor(() => provider.replacedClients === 1, { timeoutMs: 5_000, description: 'the client replaced' });

    expect(clientOf(provider)).not.toBe(stuck);
    await provider.ping();
    expect(await store.get('a')).toEqual({ v: 1 });
    await store.put('b', { v: 2 });
    await provider.batch([{ store: 'things', op: 'put', key: 'c', value: { v: 3 } }]);
    expect(await store.getMany(['a', 'b', 'c'])).toEqual([{ v: 1 }, { v: 2 }, { v: 3 }]);
  });

  it('leaves a client alone whose heartbeats end, however many there are', async () => {
    const provider = (await createMongoStoreProvider({
      url: server.url,
      prefix: uniqueName('unstuck').replaceAll('-', ''),
      sweepIntervalMs: 0,
      socketConnectTimeoutMs: 200,
    })) as MongoStoreProvider;
    providers.push(provider);
    const client = clientOf(provider);
    for (let i = 0; i < 20; i++) {
      client.emit('serverHeartbeatStarted', { connectionId: '127.0.0.1:1', awaited: false });
      await new Promise((resolve) => setTimeout(resolve, 100));
      client.emit(i % 2 === 0 ? 'serverHeartbeatSucceeded' : 'serverHeartbeatFailed', { connectionId: '127.0.0.1:1' });
    }
    await new Promise((resolve) => setTimeout(resolve, 1_600));
    expect(provider.replacedClients).toBe(0);
    expect(clientOf(provider)).toBe(client);
  });
});
