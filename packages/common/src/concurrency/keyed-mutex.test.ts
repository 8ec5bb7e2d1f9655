import { describe, expect, it } from 'vitest';
import { KeyedMutex } from './keyed-mutex.js';

const tick = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('KeyedMutex', () => {
  it('runs work on one key one at a time, in call order', async () => {
    const mutex = new KeyedMutex();
    const log: string[] = [];
    const work = (name: string, ms: number) => async () => {
      log.push(`start ${name}`);
      await tick(ms);
      log.push(`end ${name}`);
      return name;
    };
    const results = await Promise.all([
      mutex.run('did', work('a', 10)),
      mutex.run('did', work('b', 1)),
      mutex.run('did', work('c', 1)),
    ]);
    expect(results).toEqual(['a', 'b', 'c']);
    expect(log).toEqual(['start a', 'end a', 'start b', 'end b', 'start c', 'end c']);
  });

  it('runs work on different keys at the same time', async () => {
    const mutex = new KeyedMutex();
    const log: string[] = [];
    const work = (name: string) => async () => {
      log.push(`start ${name}`);
      await tick(5);
      log.push(`end ${name}`);
    };
    await Promise.all([mutex.run('one', work('a')), mutex.run('two', work('b'))]);
    expect(log).toEqual(['start a', 'start b', 'end a', 'end b']);
  });

  it('passes a failure to its caller and lets the next one run', async () => {
    const mutex = new KeyedMutex();
    const failing = mutex.run('did', async () => {
      throw new Error('boom');
    });
    const next = mutex.run('did', async () => 'ran');
    await expect(failing).rejects.toThrow('boom');
    await expect(next).resolves.toBe('ran');
  });

  it('forgets a key once nobody holds or waits for it', async () => {
    const mutex = new KeyedMutex();
    await Promise.all([mutex.run('did', async () => tick(1)), mutex.run('did', async () => tick(1))]);
    expect((mutex as unknown as { tails: Map<string, unknown> }).tails.size).toBe(0);
  });

  it('settles once every run started before it has finished, failed ones included', async () => {
    const mutex = new KeyedMutex();
    const done: string[] = [];
    const failing = mutex.run('a', async () => {
      await tick(5);
      done.push('a');
      throw new Error('boom');
    });
    void mutex.run('b', async () => {
      await tick(2);
      done.push('b');
    });
    await mutex.settled();
    expect(done.sort()).toEqual(['a', 'b']);
    await expect(failing).rejects.toThrow('boom');
    await expect(new KeyedMutex().settled()).resolves.toBeUndefined();
  });
});
