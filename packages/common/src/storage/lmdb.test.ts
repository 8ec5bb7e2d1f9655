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
