import { createLmdbStoreProvider, checkIntegrity } from '@anchor/common/storage';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SmallDisk, tmpfsUnavailable } from '../tmpfs/index.js';
import { Child, ensureCommonBuilt } from './built.js';

/**
 * An LMDB commit that meets a full disk (no free-space reserve, so nothing refuses the write earlier):
 * the write answers a 503 saying the storage is full, the process does not die of an unhandled rejection,
 * the provider then takes no more writes and its health check says a restart is needed, and after the
 * restart, with the space back, every acknowledged record is there, intact, and writes go on.
 */
const unavailable = tmpfsUnavailable();
if (unavailable) console.warn(`LMDB disk-full test skipped: ${unavailable}`);

describe.skipIf(unavailable !== undefined)('an LMDB commit on a full disk', () => {
  let disk: SmallDisk | undefined;
  beforeAll(() => ensureCommonBuilt(['storage', 'errors', 'encoding']));
  afterAll(async () => disk?.remove());

  it('answers 503, fails closed without crashing, and loses nothing acknowledged', { timeout: 60_000 }, async () => {
    disk = await SmallDisk.mount(16 * 1024 * 1024);
    await disk.fill(3 * 1024 * 1024);
    const child = new Child('./lmdb-full-writer.mjs', [disk.path]);
    await child.waitFor('ping ', 1, 45_000);
    const acked = child.lines.filter((l) => l.startsWith('ack ')).map((l) => l.slice(4));
    const refused = child.lines.filter((l) => l.startsWith('refused '));
    const ping = child.lines.find((l) => l.startsWith('ping '))!;
    expect(child.stderr).not.toMatch(/Unhandled|UnhandledPromiseRejection|Commit failed \(see commitError/);
    expect(refused.length).toBeGreaterThan(0);
    expect(refused[0]).toMatch(/^refused 503 true storage write failed, .*restart: storage full: /);
    for (const line of refused) expect(line).toMatch(/^refused 503 /);
    expect(ping).toMatch(/^ping 503 .*restart/);

    // Restarted on the still-full disk: reads work, writes are refused before they reach LMDB.
    let provider = createLmdbStoreProvider({ dataDir: disk.path, sweepIntervalMs: 0 });
    let store = await provider.open<{ n: number; big: string }>('records', { indexes: ['n'] });
    expect((await store.get(acked[0]!))?.n).toBeGreaterThan(0);
    await expect(store.put('after', { n: -1, big: '' })).rejects.toThrow(/^storage full: \d+ KiB free/);
    await provider.ping();
    await provider.close();

    await disk.free();
    provider = createLmdbStoreProvider({ dataDir: disk.path, sweepIntervalMs: 0 });
    try {
      store = await provider.open<{ n: number; big: string }>('records', { indexes: ['n'] });
      const values = await store.getMany(acked);
      const missing = acked.filter((_, i) => values[i]?.big.length !== 6000);
      expect((await checkIntegrity(provider)).problems).toEqual([]);
      await store.put('after', { n: -1, big: '' });
      console.log(
        `LMDB commit on a full disk: acknowledged ${acked.length}, refused ${refused.length} (first: ${refused[0]}), lost ${missing.length}; health: ${ping}`,
      );
      expect(missing).toEqual([]);
    } finally {
      await provider.close();
    }
  });
});
