import { createMemStoreProvider } from '@anchor/common/storage';
import { describe, expect, it } from 'vitest';
import { Lease } from './writer-lease.js';

describe('writer lease', () => {
  const open = async () => {
    const provider = createMemStoreProvider({ sweepIntervalMs: 0 });
    return {
      a: await Lease.open(provider, 'batch-writer', 'instance-a', 1_000),
      b: await Lease.open(provider, 'batch-writer', 'instance-b', 1_000),
      again: await Lease.open(provider, 'batch-writer', 'instance-a', 1_000),
    };
  };

  it('has one holder at a time; the holder renews, others cannot', async () => {
    const { a, b } = await open();
    const now = Date.now();
    expect(await a.acquire(now)).toBe(true);
    expect(await b.acquire(now + 10)).toBe(false);
    expect(await a.renew(now + 500)).toBe(true);
    expect(await b.acquire(now + 1_200)).toBe(false);
  });

  it('passes to another instance when the holder stops renewing, and the old holder learns it lost it', async () => {
    const { a, b } = await open();
    const now = Date.now();
    expect(await a.acquire(now)).toBe(true);
    // Expired records are invisible: b's insert succeeds once a's lease has run out.
    await new Promise((resolve) => setTimeout(resolve, 1_050));
    expect(await b.acquire()).toBe(true);
    expect(await a.renew()).toBe(false);
  });

  it('is free at once after release, and taken straight back by a restarted holder with the same id', async () => {
    const { a, b, again } = await open();
    expect(await a.acquire()).toBe(true);
    expect(await again.acquire()).toBe(true);
    await again.release();
    expect(await b.acquire()).toBe(true);
    await a.release();
    expect(await a.acquire()).toBe(false);
  });
});
