import { describe, expect, it } from 'vitest';
import { waitFor } from '../process/wait-for.js';
import { clientOf, mongoFaultScaffold } from './mongodb-fault-scaffold.js';

// The driver can leave a server monitor in one heartbeat forever (mongodb-heartbeat-watch.ts has the race); the
// process-level database-restart fault tests of the node and the log hit it about one run in two. Here the
// stuck heartbeat is the event the driver emits when that heartbeat starts, with no end after it.

const mongo = mongoFaultScaffold();

describe('mongodb adapter: a server monitor stuck in one heartbeat', () => {
  it('replaces the client, and the stores work through the new one', async () => {
    // A polled heartbeat may take two connect timeouts: stuck after 2 x 200 ms + 1 s.
    const provider = await mongo.open('stuck', { socketConnectTimeoutMs: 200 });
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
    const provider = await mongo.open('unstuck', { socketConnectTimeoutMs: 200 });
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
