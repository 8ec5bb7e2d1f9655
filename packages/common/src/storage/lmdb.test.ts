import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { AppError } from '../errors/index.js';
import { createStoreProvider } from './factory.js';
import { checkIntegrity } from './integrity.js';
import { createLmdbStoreProvider } from './lmdb.js';
import { createMemStoreProvider } from './mem.js';

const root = mkdtempSync(join(tmpdir(), 'anchor-lmdb-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let n = 0;
const freshDir = () => join(root, `env-${n++}`);

async function rejection(p: Promise<unknown>): Promise<AppError> {
  const e = await p.then(
    () => undefined,
    (error: unknown) => error,
  );
  expect(e).toBeInstanceOf(AppError);
  return e as AppError;
}

describe('lmdb adapter', () => {
  it('sweeps expired records periodically, not only on demand', async () => {
    const provider = createLmdbStoreProvider({ dataDir: freshDir(), sweepIntervalMs: 50 });
    try {
      const s = await provider.open<{ exp?: number }>('leases', { expiryField: 'exp' });
      await s.put('gone', { exp: Date.now() - 1 });
      await s.put('kept', { exp: Date.now() + 60_000 });
      expect((await checkIntegrity(provider)).stores['leases']!.records).toBe(2);
      await new Promise((r) => setTimeout(r, 300));
      const report = await checkIntegrity(provider);
      expect(report.stores['leases']!.records).toBe(1);
      expect(report.problems).toEqual([]);
    } finally {
      await provider.close();
    }
  });

  it('refuses to reopen a store with a new index that existing records cannot satisfy, leaving it as it was', async () => {
    const dir = freshDir();
    const first = createLmdbStoreProvider({ dataDir: dir, sweepIntervalMs: 0 });
    const s = await first.open<Record<string, unknown>>('docs', { indexes: ['kind'] });
    await s.put('ok', { kind: 'a', owner: 'x' });
    await s.put('odd', { kind: 'b', owner: { nested: true } });
    await first.close();

    const second = createLmdbStoreProvider({ dataDir: dir, sweepIntervalMs: 0 });
    try {
      const error = await rejection(second.open('docs', { indexes: ['kind', 'owner'] }));
      expect(error.code).toBe('bad_request');
      expect(error.message).toMatch(/record "odd": indexed field "owner"/);
      const again = await second.open<Record<string, unknown>>('docs', { indexes: ['kind'] });
      expect((await again.query({ where: { kind: 'b' } })).items.map((e) => e.key)).toEqual(['odd']);
      expect((await checkIntegrity(second)).problems).toEqual([]);
    } finally {
      await second.close();
    }
  });

  it('keeps a store per name apart under a prefix, and stores of different prefixes apart in one directory', async () => {
    const dir = freshDir();
    const a = createLmdbStoreProvider({ dataDir: dir, prefix: 'tenant1', sweepIntervalMs: 0 });
    await (await a.open('config')).put('k', { who: 'tenant1' });
    await a.close();
    const b = createLmdbStoreProvider({ dataDir: dir, prefix: 'tenant2', sweepIntervalMs: 0 });
    try {
      expect(await (await b.open('config')).get('k')).toBeUndefined();
    } finally {
      await b.close();
    }
  });
});

describe('lmdb group commit', () => {
  const INTERVAL = 300;

  it('commits writes that arrive within the commit interval together, in order, and durably', async () => {
    const dir = freshDir();
    const provider = createLmdbStoreProvider({ dataDir: dir, sweepIntervalMs: 0, commitIntervalMs: INTERVAL });
    const s = await provider.open<{ kind: string }>('docs', { indexes: ['kind'] });
    await s.put('a', { kind: 'x' });
    const started = performance.now();
    // Held for the next commit: each is planned on the records of the writes held before it.
    const writes = [s.put('b', { kind: 'y' }), s.put('b', { kind: 'z' }), s.delete('a'), s.insert('c', { kind: 'z' })];
    expect(await s.insert('c', { kind: 'other' })).toBe(false);
    await Promise.all(writes);
    // Timers may fire a millisecond early; the commit waited for the interval, not for a fixed event-loop turn.
    expect(performance.now() - started).toBeGreaterThan(INTERVAL - 60);
    await provider.close();

    const reopened = createLmdbStoreProvider({ dataDir: dir, sweepIntervalMs: 0 });
    try {
      const again = await reopened.open<{ kind: string }>('docs', { indexes: ['kind'] });
      expect(await again.get('a')).toBeUndefined();
      expect(await again.get('b')).toEqual({ kind: 'z' });
      expect((await again.query({ where: { kind: 'z' } })).items.map((e) => e.key)).toEqual(['b', 'c']);
      expect((await checkIntegrity(reopened)).problems).toEqual([]);
    } finally {
      await reopened.close();
    }
  });

  it('commits held writes before a transaction callback, which therefore sees them', async () => {
    const provider = createLmdbStoreProvider({ dataDir: freshDir(), sweepIntervalMs: 0, commitIntervalMs: INTERVAL });
    try {
      const s = await provider.open<{ kind: string; owner?: string }>('docs', { indexes: ['kind'] });
      await s.put('a', { kind: 'x', owner: 'p' });
      const held = s.put('b', { kind: 'y', owner: 'q' });
      // A new index is built inside a transaction callback, over the records committed before it.
      const reopened = await provider.open<{ kind: string; owner?: string }>('docs', { indexes: ['kind', 'owner'] });
      await held;
      expect((await reopened.query({ where: { owner: 'q' } })).items.map((e) => e.key)).toEqual(['b']);
      expect((await checkIntegrity(provider)).problems).toEqual([]);
    } finally {
      await provider.close();
    }
  });

  it('commits held writes when the provider closes', async () => {
    const dir = freshDir();
    const provider = createLmdbStoreProvider({ dataDir: dir, sweepIntervalMs: 0, commitIntervalMs: 1000 });
    const s = await provider.open<{ n: number }>('docs');
    await s.put('a', { n: 1 });
    const held = s.put('b', { n: 2 });
    const started = performance.now();
    await provider.close();
    await held;
    expect(performance.now() - started).toBeLessThan(900);
    await expect(s.put('c', { n: 3 })).rejects.toThrow(/closed/);

    const reopened = createLmdbStoreProvider({ dataDir: dir, sweepIntervalMs: 0 });
    try {
      const again = await reopened.open<{ n: number }>('docs');
      expect(await again.get('b')).toEqual({ n: 2 });
      expect(await again.get('c')).toBeUndefined();
    } finally {
      await reopened.close();
    }
  });

  it('commits at once after a quiet spell, and on every event turn with an interval of 0', async () => {
    for (const commitIntervalMs of [0, INTERVAL]) {
      const provider = createLmdbStoreProvider({ dataDir: freshDir(), sweepIntervalMs: 0, commitIntervalMs });
      try {
        const s = await provider.open<{ n: number }>('docs');
        if (commitIntervalMs > 0) await new Promise((resolve) => setTimeout(resolve, commitIntervalMs + 20));
        const started = performance.now();
        await s.put('a', { n: 1 });
        expect(performance.now() - started).toBeLessThan(commitIntervalMs === 0 ? 1000 : INTERVAL - 60);
        if (commitIntervalMs === 0) {
          await s.put('b', { n: 2 });
          expect(performance.now() - started).toBeLessThan(1000);
        }
      } finally {
        await provider.close();
      }
    }
  });

  it('refuses a commit interval that is not 0 to 1,000 ms', () => {
    for (const commitIntervalMs of [-1, 1001, Number.NaN])
      expect(() => createLmdbStoreProvider({ dataDir: freshDir(), commitIntervalMs })).toThrow(
        /commit interval must be a number of milliseconds from 0 to 1000/,
      );
  });
});

describe('integrity check', () => {
  it('reports stray and missing derived entries', async () => {
    const provider = createMemStoreProvider({ sweepIntervalMs: 0 });
    const s = await provider.open<{ kind: string }>('things', { indexes: ['kind'] });
    await s.put('a', { kind: 'x' });
    // Reach under the store to damage its derived data, as a bug would.
    const space = (s as unknown as { space: { remove(k: Buffer): void; put(k: Buffer, v: string): void } }).space;
    const backend = (provider as unknown as { backend: { write<R>(fn: () => R): Promise<R> } }).backend;
    const entries = [
      ...(s as unknown as { space: { scan(r: object): Iterable<{ key: Buffer }> } }).space.scan({
        low: Buffer.from([2]),
        lowInclusive: true,
        high: Buffer.from([3]),
        highInclusive: false,
        reverse: false,
      }),
    ];
    expect(entries).toHaveLength(1);
    await backend.write(() => {
      space.remove(entries[0]!.key);
      space.put(Buffer.from([2, 0x20, 0x6b, 0, 1]), '');
    });
    const report = await checkIntegrity(provider);
    expect(report.problems).toEqual([
      expect.stringMatching(/stray derived entry/),
      expect.stringMatching(/missing derived entry/),
    ]);
    await provider.close();
  });
});

describe('storage factory', () => {
  it('builds each adapter from the service flags', async () => {
    const mem = await createStoreProvider({ type: 'mem' });
    expect(mem.kind).toBe('mem');
    await mem.close();
    const lmdb = await createStoreProvider({ type: 'lmdb', dataDir: freshDir() });
    expect(lmdb.kind).toBe('lmdb');
    await lmdb.ping();
    await lmdb.close();
  });

  it('explains bad configuration', async () => {
    expect((await rejection(createStoreProvider({ type: 'lmdb' }))).message).toMatch(/--data-dir/);
    expect((await rejection(createStoreProvider({ type: 'mongodb' }))).message).toMatch(/--database-url/);
    expect((await rejection(createStoreProvider({ type: 'couchdb' as never }))).message).toMatch(
      /unknown database type "couchdb".*mem, lmdb, mongodb/,
    );
    expect((await rejection(createStoreProvider({ type: 'mongodb', url: 'postgres://x' }))).message).toMatch(
      /mongodb:\/\//,
    );
    expect((await rejection(createStoreProvider({ type: 'mem', sweepIntervalMs: -1 }))).message).toMatch(
      /sweepIntervalMs/,
    );
  });

  it('fails to connect to a MongoDB that is not there, within its timeout', async () => {
    const { createMongoStoreProvider } = await import('./mongodb.js');
    const started = Date.now();
    await expect(
      createMongoStoreProvider({
        url: 'mongodb://127.0.0.1:1/anchor',
        serverSelectionTimeoutMs: 300,
        connectTimeoutMs: 0,
      }),
    ).rejects.toThrow(/ECONNREFUSED|Server selection timed out/);
    expect(Date.now() - started).toBeLessThan(5_000);
  });
});
