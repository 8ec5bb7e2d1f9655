import { describe, expect, it } from 'vitest';
import { createMetrics } from '../metrics/index.js';
import { call, serve } from './http.test-helpers.js';
import { createHttpApp, StallBoundedProbe } from './index.js';

/**
 * The status codes of `GET /healthcheck` with a store probe behind dbStatus. The probe's clock is the test's:
 * its answer window is a few real milliseconds, the stall's length is whatever the test sets the clock to.
 */
async function appWithStore(ping: () => Promise<void>, clock: { now: number }) {
  const app = createHttpApp({ metrics: createMetrics({ prefix: 'test_', processMetrics: false }) });
  const probe = new StallBoundedProbe(ping, {
    answerWithinMs: 20,
    unhealthyAfterMs: 10_000,
    name: 'the store',
    now: () => clock.now,
  });
  app.health.register('dbStatus', () => probe.check());
  app.health.register('mqStatus', () => 'success');
  const server = await serve(app.app);
  return { app, url: `${server.url}/healthcheck`, probe };
}

describe('/healthcheck with a store probe', () => {
  it('is 200 OK, then 200 Degraded while the store is silent within the tolerance, then 503 past it', async () => {
    const clock = { now: 0 };
    let silent = false;
    const { url } = await appWithStore(() => (silent ? new Promise<void>(() => undefined) : Promise.resolve()), clock);
    expect(await call(url)).toMatchObject({ status: 200, json: { dbStatus: 'success', status: 'OK' } });

    silent = true;
    clock.now = 1_000; // the last answer is stale: the next check pings, and the ping hangs
    expect(await call(url)).toMatchObject({
      status: 200,
      json: {
        dbStatus: 'degraded: the store has not answered for 0.0 s (unavailable after 10.0 s)',
        mqStatus: 'success',
        status: 'Degraded',
      },
    });
    clock.now = 10_999;
    expect(await call(url)).toMatchObject({ status: 200, json: { status: 'Degraded' } });
    clock.now = 11_000;
    expect(await call(url)).toMatchObject({
      status: 503,
      json: { dbStatus: 'unavailable: the store has not answered for 10.0 s', status: 'Unavailable' },
    });
  });

  it('is 503 at once when the store answers with an error, and 200 OK once it answers again', async () => {
    const clock = { now: 0 };
    let failing = true;
    const { url } = await appWithStore(
      () => (failing ? Promise.reject(new Error('lmdb: the store needs a restart')) : Promise.resolve()),
      clock,
    );
    expect(await call(url)).toMatchObject({
      status: 503,
      json: { dbStatus: 'lmdb: the store needs a restart', status: 'Unavailable' },
    });
    failing = false;
    // The failure is reused for its window, then the next ping answers.
    expect(await call(url)).toMatchObject({ status: 503 });
    clock.now = 1_000;
    expect(await call(url)).toMatchObject({ status: 200, json: { dbStatus: 'success', status: 'OK' } });
  });

  it('stays 200 Maintenance and 503 Starting whatever the store probe says', async () => {
    const clock = { now: 0 };
    const { app, url } = await appWithStore(() => new Promise<void>(() => undefined), clock);
    clock.now = 20_000;
    app.health.setStarting(true);
    expect(await call(url)).toMatchObject({ status: 503, json: { status: 'Starting' } });
    app.health.setStarting(false);
    app.health.setMaintenance(true);
    expect(await call(url)).toMatchObject({ status: 200, json: { status: 'Maintenance' } });
  });

  it('does not run a check that reads the store while the store is not answering, nor fail the service for it', async () => {
    const clock = { now: 0 };
    let silent = false;
    let storeReads = 0;
    const { app, url } = await appWithStore(
      () => (silent ? new Promise<void>(() => undefined) : Promise.resolve()),
      clock,
    );
    // A check that reads the store hangs with it: without dependsOn it would time out and make the service 503.
    app.health.register(
      'vctStatus',
      () => {
        storeReads++;
        return silent ? new Promise<string>(() => undefined) : 'success';
      },
      { dependsOn: 'dbStatus' },
    );
    expect(() => app.health.register('late', () => 'success', { dependsOn: 'queueStatus' })).toThrow(/not registered/);
    expect(await call(url)).toMatchObject({ status: 200, json: { vctStatus: 'success', status: 'OK' } });
    expect(storeReads).toBe(1);

    silent = true;
    clock.now = 1_000;
    expect(await call(url)).toMatchObject({
      status: 200,
      json: { vctStatus: 'not checked while dbStatus is not success', status: 'Degraded' },
    });
    clock.now = 11_000;
    expect(await call(url)).toMatchObject({
      status: 503,
      json: {
        dbStatus: expect.stringMatching(/^unavailable: /),
        vctStatus: 'not checked while dbStatus is not success',
      },
    });
    expect(storeReads).toBe(1);
  });
});
