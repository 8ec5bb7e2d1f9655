import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { StallBoundedProbe } from './stall-bounded-probe.js';

/** A store whose ping does what the test says: answer, fail, or hang until the test settles it. */
class ScriptedStore {
  mode: 'answer' | 'fail' | 'hang' = 'answer';
  pings = 0;
  private hung: Array<{ resolve: () => void; reject: (error: Error) => void }> = [];

  ping = (): Promise<void> => {
    this.pings++;
    if (this.mode === 'answer') return Promise.resolve();
    if (this.mode === 'fail') return Promise.reject(new Error('mongodb unavailable (ping): connection refused'));
    return new Promise<void>((resolve, reject) => this.hung.push({ resolve, reject }));
  };

  /** Ends every hung ping with `error` (the adapter's deadline) or an answer. */
  settleHung(error?: Error): void {
    for (const { resolve, reject } of this.hung.splice(0)) {
      if (error) reject(error);
      else resolve();
    }
  }
}

describe('StallBoundedProbe (fake timers)', () => {
  beforeEach(() => {
    vi.useFakeTimers({ now: 0 });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  /** A check, with the fake clock moved on far enough for its answer window to close. */
  async function checkAfter(probe: StallBoundedProbe, advanceMs = 1_000) {
    const answer = probe.check();
    await vi.advanceTimersByTimeAsync(advanceMs);
    return answer;
  }

  it('answers a hanging ping as degraded, then unavailable past the tolerance, then failed, then healthy', async () => {
    const store = new ScriptedStore();
    const probe = new StallBoundedProbe(store.ping, { unhealthyAfterMs: 5_000, name: 'the store' });

    expect(await checkAfter(probe, 0)).toEqual({ status: 'success', healthy: true });
    // A result is reused for the answer window: any number of callers, one ping.
    await vi.advanceTimersByTimeAsync(500);
    expect(await checkAfter(probe, 0)).toEqual({ status: 'success', healthy: true });
    expect(store.pings).toBe(1);
    expect(probe.stalledForMs()).toBeUndefined();

    // The store goes silent at t = 1 s: each caller has its answer once the window closes, not when the ping does.
    store.mode = 'hang';
    await vi.advanceTimersByTimeAsync(500);
    const concurrent = [probe.check(), probe.check(), probe.check()];
    await vi.advanceTimersByTimeAsync(1_000);
    for (const answer of await Promise.all(concurrent)) {
      expect(answer).toEqual({
        status: 'degraded: the store has not answered for 1.0 s (unavailable after 5.0 s)',
        healthy: true,
      });
    }
    expect(store.pings).toBe(2);
    // Silent past the answer window: intake is told, while /healthcheck still says degraded.
    expect(probe.stalledForMs()).toBe(1_000);

    await vi.advanceTimersByTimeAsync(2_000);
    expect(await checkAfter(probe)).toMatchObject({
      status: expect.stringMatching(/^degraded: .* 4\.0 s/),
      healthy: true,
    });
    // Past the tolerance: unavailable, and still only the one ping in flight.
    expect(await checkAfter(probe)).toEqual({
      status: 'unavailable: the store has not answered for 5.0 s',
      healthy: false,
    });
    expect(store.pings).toBe(2);

    // The hung ping ends with an error (the adapter's deadline): unhealthy at once, its text as the status.
    store.mode = 'fail';
    store.settleHung(new Error('mongodb unavailable (ping): no answer within 30000 ms'));
    expect(await checkAfter(probe, 0)).toEqual({
      status: 'mongodb unavailable (ping): no answer within 30000 ms',
      healthy: false,
    });
    // Failing answers keep the stall counted from the first unanswered ping (t = 1 s).
    await vi.advanceTimersByTimeAsync(1_000);
    expect(await checkAfter(probe, 0)).toEqual({
      status: 'mongodb unavailable (ping): connection refused',
      healthy: false,
    });
    expect(probe.stalledForMs()).toBe(6_000);
    expect(store.pings).toBe(3);

    // The store answers again: healthy at the next ping, and intake is let through.
    store.mode = 'answer';
    await vi.advanceTimersByTimeAsync(1_000);
    expect(await checkAfter(probe, 0)).toEqual({ status: 'success', healthy: true });
    expect(probe.stalledForMs()).toBeUndefined();
    expect(store.pings).toBe(4);
  });

  it('tells intake of a stall without /healthcheck being asked, and never waits', async () => {
    const store = new ScriptedStore();
    const probe = new StallBoundedProbe(store.ping, { unhealthyAfterMs: 10_000 });
    store.mode = 'hang';
    // The first ask starts a ping; a ping silent for less than the answer window is not a stall yet.
    expect(probe.stalledForMs()).toBeUndefined();
    await vi.advanceTimersByTimeAsync(0);
    expect(store.pings).toBe(1);
    await vi.advanceTimersByTimeAsync(999);
    expect(probe.stalledForMs()).toBeUndefined();
    await vi.advanceTimersByTimeAsync(1);
    expect(probe.stalledForMs()).toBe(1_000);
    expect(store.pings).toBe(1);
    store.settleHung();
    await vi.advanceTimersByTimeAsync(0);
    expect(probe.stalledForMs()).toBeUndefined();
  });

  it('reports an answered failure at once (a store that needs a restart), with nothing to wait for', async () => {
    const store = new ScriptedStore();
    store.mode = 'fail';
    const probe = new StallBoundedProbe(store.ping, { unhealthyAfterMs: 10_000 });
    expect(await checkAfter(probe, 0)).toEqual({
      status: 'mongodb unavailable (ping): connection refused',
      healthy: false,
    });
    expect(probe.stalledForMs()).toBe(0);
  });
});
