import { describe, expect, it } from 'vitest';
import { STORE_RETRY_AFTER_SECONDS } from '@anchor/common/storage';
import { expectAppError } from '../contract-kit/index.js';
import { mongoThroughProxy } from '../ferretdb/index.js';
import { waitFor } from '../process/wait-for.js';
import { TcpProxy } from '../tcp-proxy/index.js';
import { clientOf, mongoFaultScaffold } from './mongodb-fault-scaffold.js';

// The driver can leave an operation waiting forever (mongodb-deadline.ts has the two ways): here the network
// drops everything, so the server's answer never comes and nothing says so.

const mongo = mongoFaultScaffold();

describe('mongodb adapter: an operation the server never answers', () => {
  it('fails as a 503 at the deadline, the client is replaced once, and the stores go on through the new one', async () => {
    const proxied = mongoThroughProxy(mongo.server().url);
    const proxy = await TcpProxy.start(proxied.target);
    try {
      const provider = await mongo.open('hung', { url: proxied.urlVia(proxy.port), operationTimeoutMs: 1_000 });
      const store = await provider.open<{ v: number }>('things');
      await store.put('a', { v: 1 });

      proxy.blackhole();
      const started = Date.now();
      // The first call past the deadline has the client replaced, which fails the others on it at once.
      const overdue =
        /^mongodb unavailable \((store things: get|store things: put|batch|batch: store things|ping)\): (no answer within 1000 ms|the client was replaced \(an operation has had no answer within the deadline\))$/;
      const failures = await Promise.all([
        expectAppError(store.get('a'), 'unavailable', overdue),
        expectAppError(store.put('b', { v: 2 }), 'unavailable', overdue),
        expectAppError(
          provider.batch([{ store: 'things', op: 'put', key: 'c', value: { v: 3 } }]),
          'unavailable',
          overdue,
        ),
        expectAppError(provider.ping(), 'unavailable', overdue),
      ]);
      expect(Date.now() - started).toBeLessThan(5_000);
      expect(failures.filter((failure) => failure.message.endsWith('no answer within 1000 ms')).length).toBeGreaterThan(
        0,
      );
      for (const failure of failures) {
        expect(failure.retryable).toBe(true);
        expect(failure.headers).toEqual({ 'Retry-After': String(STORE_RETRY_AFTER_SECONDS) });
      }
      // Four calls past the deadline on one client: it is replaced once.
      expect(provider.replacedClients).toBe(1);

      proxy.restore();
      proxy.cut();
      await waitFor(async () => (await store.get('a').catch(() => undefined))?.v === 1, {
        timeoutMs: 15_000,
        description: 'reads through the new client',
      });
      await store.put('b', { v: 2 });
      expect(await store.getMany(['a', 'b'])).toEqual([{ v: 1 }, { v: 2 }]);
      expect(provider.replacedClients).toBe(1);
    } finally {
      await proxy.close();
    }
  });

  it('fails the calls in flight on a client replaced for another reason at once, not at their deadline', async () => {
    const proxied = mongoThroughProxy(mongo.server().url);
    const proxy = await TcpProxy.start(proxied.target);
    try {
      const provider = await mongo.open('abandoned', {
        url: proxied.urlVia(proxy.port),
        operationTimeoutMs: 20_000,
        // A polled heartbeat may take two connect timeouts: stuck after 2 x 200 ms + 1 s.
        socketConnectTimeoutMs: 200,
      });
      const store = await provider.open<{ v: number }>('things');
      await store.put('a', { v: 1 });

      proxy.blackhole();
      const started = Date.now();
      const hung = expectAppError(store.get('a'), 'unavailable', /store things: get\): the client was replaced/);
      // The client's server monitor stuck as well (mongodb-stuck-monitor.test.ts): the client is replaced.
      clientOf(provider).emit('serverHeartbeatStarted', {
        connectionId: '127.0.0.1:1',
        awaited: false,
      });
      await hung;
      expect(Date.now() - started).toBeLessThan(10_000);
      expect(provider.replacedClients).toBe(1);
    } finally {
      await proxy.close();
    }
  });
});
