import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { AppError } from '../errors/index.js';
import { checkIntegrity } from './integrity.js';
import { createLmdbStoreProvider } from './lmdb.js';
import { createMemStoreProvider } from './mem.js';
import type { StoreProvider } from './types.js';

const root = mkdtempSync(join(tmpdir(), 'anchor-direct-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/**
 * Batches that need no read inside the transaction (one insert, puts into stores without derived entries)
 * are written without a callback in the transaction; the others are planned in it. Both forms must keep
 * the same all-or-nothing answers, on both adapters.
 */
describe.each([
  ['mem', () => createMemStoreProvider({ sweepIntervalMs: 0 })],
  ['lmdb', () => createLmdbStoreProvider({ dataDir: mkdtempSync(join(root, 'env-')), sweepIntervalMs: 0 })],
] as const)('direct writes (%s)', (_name, create) => {
  async function open(): Promise<{ provider: StoreProvider; close: () => Promise<void> }> {
    const provider = create();
    await provider.open('plain');
    await provider.open('indexed', { indexes: ['status'], expiryField: 'exp' });
    return { provider, close: () => provider.close() };
  }

  it('writes an insert and its puts together, and nothing when the insert finds its key live', async () => {
    const { provider, close } = await open();
    try {
      const plain = await provider.open<{ n: number }>('plain');
      const indexed = await provider.open<{ status: string; exp?: number }>('indexed', { indexes: ['status'], expiryField: 'exp' });
      await provider.batch([
        { store: 'indexed', op: 'insert', key: 'k', value: { status: 'new' } },
        { store: 'plain', op: 'put', key: 'p', value: { n: 1 } },
      ]);
      expect(await indexed.count({ status: 'new' })).toBe(1);
      expect(await plain.get('p')).toEqual({ n: 1 });

      const refused = await provider
        .batch([
          { store: 'indexed', op: 'insert', key: 'k', value: { status: 'intruder' } },
          { store: 'plain', op: 'put', key: 'p', value: { n: 2 } },
        ])
        .catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(AppError);
      expect((refused as AppError).code).toBe('conflict');
      expect(await plain.get('p')).toEqual({ n: 1 });
      expect(await indexed.count({ status: 'intruder' })).toBe(0);
    } finally {
      await close();
    }
  });

  it('replaces an expired record on insert, index entries included', async () => {
    const { provider, close } = await open();
    try {
      const indexed = await provider.open<{ status: string; exp?: number }>('indexed', { indexes: ['status'], expiryField: 'exp' });
      await indexed.put('k', { status: 'old', exp: Date.now() - 1 });
      expect(await indexed.insert('k', { status: 'fresh' })).toBe(true);
      expect(await indexed.count({ status: 'old' })).toBe(0);
      expect(await indexed.count({ status: 'fresh' })).toBe(1);
      expect(await indexed.insert('k', { status: 'again' })).toBe(false);
      const report = await checkIntegrity(provider);
      expect(report.problems).toEqual([]);
    } finally {
      await close();
    }
  });
});
