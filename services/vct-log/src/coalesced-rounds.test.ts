import { describe, expect, it } from 'vitest';
import { CoalescedRounds } from './coalesced-rounds.js';

/** A round that waits until `finish()` is called, counting the rounds started. */
function gatedRounds() {
  let started = 0;
  let release: (() => void) | undefined;
  const rounds = new CoalescedRounds(async () => {
    started++;
    await new Promise<void>((resolve) => (release = resolve));
  });
  const finish = async () => {
    // Let the round reach its gate first.
    while (release === undefined) await Promise.resolve();
    const gate = release;
    release = undefined;
    gate();
    await new Promise((resolve) => setImmediate(resolve));
  };
  return { rounds, finish, started: () => started };
}

describe('CoalescedRounds', () => {
  it('runs one round for the calls made while one is in flight, after it', async () => {
    const { rounds, finish, started } = gatedRounds();
    const done: string[] = [];
    void rounds.run().then(() => done.push('first'));
    await Promise.resolve();
    const later = [rounds.run(), rounds.run(), rounds.run()].map((p, i) => p.then(() => done.push(`later ${i}`)));
    await finish();
    expect(done).toEqual(['first']);
    expect(started()).toBe(2);
    await finish();
    await Promise.all(later);
    expect(started()).toBe(2);
    expect(done).toEqual(['first', 'later 0', 'later 1', 'later 2']);
  });

  it('resolves a call after the first round started after it, however steady the calls', async () => {
    const { rounds, finish, started } = gatedRounds();
    void rounds.run();
    const waiting = rounds.run();
    let resolved = false;
    void waiting.then(() => (resolved = true));
    await finish(); // the first round ends; the second starts
    void rounds.run(); // asked during the second: waits for a third, which does not hold `waiting` back
    await finish();
    expect(resolved).toBe(true);
    expect(started()).toBe(3);
    await finish();
  });

  it('passes a failed round to its callers and goes on with the next', async () => {
    let calls = 0;
    const rounds = new CoalescedRounds(async () => {
      calls++;
      if (calls === 1) throw new Error('store unreachable');
    });
    await expect(rounds.run()).rejects.toThrow('store unreachable');
    await expect(rounds.run()).resolves.toBeUndefined();
  });

  it('starts no round after close', async () => {
    const { rounds, finish, started } = gatedRounds();
    void rounds.run();
    const waiting = rounds.run();
    const closing = rounds.close();
    await finish();
    await closing;
    await waiting;
    await rounds.run();
    expect(started()).toBe(1);
  });
});
