import { StoreLease } from './lease.js';
import { createMemStoreProvider } from './mem.js';
import type { Store, StoreProvider } from './types.js';
import { describe, expect, it } from 'vitest';

describe('StoreLease', () => {
  const open = async () => {
    const provider = createMemStoreProvider({ sweepIntervalMs: 0 });
    return {
      a: await StoreLease.open(provider, {
        store: 'lease',
        name: 'batch-writer',
        holder: 'instance-a',
        durationMs: 1_000,
      }),
      b: await StoreLease.open(provider, {
        store: 'lease',
        name: 'batch-writer',
        holder: 'instance-b',
        durationMs: 1_000,
      }),
      again: await StoreLease.open(provider, {
        store: 'lease',
        name: 'batch-writer',
        holder: 'instance-a',
        durationMs: 1_000,
      }),
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

  it('never leaves two holders: a holder that stalls past the expiry cannot write its name over the next one', async () => {
    const provider = createMemStoreProvider({ sweepIntervalMs: 0 });
    const b = await StoreLease.open(provider, {
      store: 'lease',
      name: 'batch-writer',
      holder: 'instance-b',
      durationMs: 1_000,
    });
    // Instance a's reads stall: before a read's answer arrives, a's lease runs out and b takes it over. A
    // renew that reads and then writes would then put a's name back over b's while b believes it holds the lease.
    let stall = false;
    let bAcquired = false;
    const stalling: StoreProvider = {
      ...provider,
      open: async <T extends object>(name: string, options?: Parameters<StoreProvider['open']>[1]) => {
        const store = await provider.open<T>(name, options);
        const get = async (key: string): Promise<T | undefined> => {
          const read = await store.get(key);
          if (stall) {
            stall = false;
            await store.put(key, { holder: 'instance-a', expiresAt: Date.now() - 1 } as unknown as T);
            bAcquired = await b.acquire();
          }
          return read;
        };
        return new Proxy(store, {
          get: (target, property) => {
            if (property === 'get') return get;
            const value: unknown = Reflect.get(target, property);
            return typeof value === 'function' ? (value as () => unknown).bind(target) : value;
          },
        }) as Store<T>;
      },
    };
    const a = await StoreLease.open(stalling, {
      store: 'lease',
      name: 'batch-writer',
      holder: 'instance-a',
      durationMs: 1_000,
    });
    expect(await a.acquire()).toBe(true);
    stall = true;
    const aHolds = await a.renew();
    const stored = await (await provider.open<{ holder: string }>('lease')).get('batch-writer');
    // Whoever believes it holds the lease is the one the store names, and only one does.
    expect([aHolds, bAcquired].filter(Boolean)).toHaveLength(1);
    expect(stored?.holder).toBe(aHolds ? 'instance-a' : 'instance-b');
  });
});
