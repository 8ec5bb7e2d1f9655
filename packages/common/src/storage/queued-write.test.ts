import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { AppError, transient } from '../errors/index.js';
import { checkIntegrity } from './integrity.js';
import { KvStoreProvider } from './kv-provider.js';
import { createLmdbStoreProvider } from './lmdb.js';
import { createMemStoreProvider } from './mem.js';
import type { KvBackend } from './ordered-kv.js';
import type { BatchOp, Store, StoreProvider } from './types.js';

const root = mkdtempSync(join(tmpdir(), 'anchor-queued-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/**
 * Writes are planned on the event loop against the committed state plus the writes still queued, and
 * queued without a transaction callback (kv-writer.ts). They must keep the all-or-nothing answers and the
 * index entries of writes made one at a time, however many are in flight, on both adapters.
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
      const indexed = await provider.open<{ status: string; exp?: number }>('indexed', {
        indexes: ['status'],
        expiryField: 'exp',
      });
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
      const indexed = await provider.open<{ status: string; exp?: number }>('indexed', {
        indexes: ['status'],
        expiryField: 'exp',
      });
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

  it('answers a write that writes nothing only once the queued writes it read are durable', async () => {
    const { provider, close } = await open();
    try {
      const indexed = await provider.open<{ status: string; exp?: number }>('indexed', {
        indexes: ['status'],
        expiryField: 'exp',
      });
      const put = indexed.put('k', { status: 'first' });
      expect(await indexed.insert('k', { status: 'second' })).toBe(false);
      // The caller of a refused insert reads the record that refused it.
      expect(await indexed.get('k')).toEqual({ status: 'first' });
      await put;
      const replaced = indexed.put('k', { status: 'third' });
      const refused = await indexed
        .batch([{ op: 'insert', key: 'k', value: { status: 'fourth' } }])
        .catch((error: unknown) => error);
      expect((refused as AppError).code).toBe('conflict');
      expect(await indexed.get('k')).toEqual({ status: 'third' });
      await replaced;
      const removal = indexed.delete('k');
      expect(await indexed.delete('k')).toBe(false);
      expect(await indexed.get('k')).toBeUndefined();
      expect(await removal).toBe(true);
    } finally {
      await close();
    }
  });

  it('answers every write in flight as if each had been awaited in turn, indexes included', async () => {
    const provider = create();
    try {
      type Rec = { status?: string; n?: number; exp?: number };
      const store = await provider.open<Rec>('busy', { indexes: ['status', ['n', 'status']], expiryField: 'exp' });
      const model = new Map<string, Rec>();
      let seed = 7;
      const next = () => (seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32;
      const key = () => `k${Math.floor(next() * 12)}`;
      const now = Date.now();
      const record = (): Rec => {
        const r: Rec = {};
        if (next() < 0.8) r.status = ['a', 'b', 'c'][Math.floor(next() * 3)]!;
        if (next() < 0.7) r.n = Math.floor(next() * 4);
        if (next() < 0.2) r.exp = now + (next() < 0.5 ? -1_000 : 3_600_000);
        return r;
      };
      const live = (k: string) => {
        const r = model.get(k);
        return r !== undefined && (r.exp === undefined || r.exp > Date.now());
      };
      for (let round = 0; round < 40; round++) {
        // Up to 30 writes to 12 keys queued in one turn, answered in the order they were made.
        const answers: Array<Promise<unknown>> = [];
        const expected: unknown[] = [];
        for (let i = 0; i < 30; i++) {
          const roll = next();
          if (roll < 0.4) {
            const [k, r] = [key(), record()];
            answers.push(store.put(k, r));
            expected.push(undefined);
            model.set(k, r);
          } else if (roll < 0.6) {
            const [k, r] = [key(), record()];
            answers.push(store.insert(k, r));
            const inserted = !live(k);
            expected.push(inserted);
            if (inserted) model.set(k, r);
          } else if (roll < 0.8) {
            const k = key();
            answers.push(store.delete(k));
            expected.push(live(k));
            model.delete(k);
          } else {
            // Batches of 1-4 operations on 3 keys, so that they often touch one key more than once.
            const keys = [key(), key(), key()];
            const ops: BatchOp<Rec>[] = Array.from({ length: 1 + Math.floor(next() * 4) }, (): BatchOp<Rec> => {
              const [k, roll] = [keys[Math.floor(next() * 3)]!, next()];
              return roll < 0.4
                ? { op: 'put', key: k, value: record() }
                : roll < 0.7
                  ? { op: 'insert', key: k, value: record() }
                  : { op: 'delete', key: k };
            });
            answers.push(
              store.batch(ops).then(
                () => 'ok',
                (error: unknown) => (error instanceof AppError ? error.code : error),
              ),
            );
            const staged = new Map(model);
            let outcome = 'ok';
            for (const o of ops) {
              if (
                o.op === 'insert' &&
                staged.has(o.key) &&
                (staged.get(o.key)!.exp === undefined || staged.get(o.key)!.exp! > Date.now())
              )
                outcome = 'conflict';
              if (o.op === 'delete') staged.delete(o.key);
              else staged.set(o.key, o.value);
            }
            expected.push(outcome);
            if (outcome === 'ok') for (const [k, v] of staged) model.set(k, v);
            if (outcome === 'ok') for (const k of [...model.keys()]) if (!staged.has(k)) model.delete(k);
          }
          // Now and then a transaction callback joins the queue: an index added at open rebuilds the store's entries.
          if (round % 10 === 5 && i === 10) {
            answers.push(
              provider
                .open('busy', {
                  indexes: [[['n'], ['status', 'n'], ['n', 'exp'], ['exp']][(round - 5) / 10]!],
                  expiryField: 'exp',
                })
                .then(() => undefined),
            );
            expected.push(undefined);
          }
        }
        expect(await Promise.all(answers)).toEqual(expected);
        if (round % 10 === 9) await store.sweepExpired();
        const stored = new Map((await store.query({ limit: 10_000 })).items.map((e) => [e.key, e.value]));
        const visible = new Map([...model].filter(([k]) => live(k)));
        expect(stored).toEqual(visible);
        for (const status of ['a', 'b', 'c'])
          expect(await store.count({ status })).toBe([...visible.values()].filter((r) => r.status === status).length);
        expect((await checkIntegrity(provider)).problems).toEqual([]);
      }
    } finally {
      await provider.close();
    }
  });
});

describe('a queued write that fails', () => {
  it('stops the provider taking writes, and its health check reports it', async () => {
    const inner = (createMemStoreProvider({ sweepIntervalMs: 0 }) as KvStoreProvider).backend;
    let failing = false;
    const backend: KvBackend = {
      space: (name) => inner.space(name),
      hasSpace: (name) => inner.hasSpace(name),
      write: (fn) => inner.write(fn),
      writeQueued: (mutations) => (failing ? Promise.reject(new Error('disk on fire')) : inner.writeQueued(mutations)),
      checkRoom: () => inner.checkRoom(),
      ping: () => inner.ping(),
      close: () => inner.close(),
    };
    const provider = new KvStoreProvider('mem', backend, { sweepIntervalMs: 0 });
    const store: Store<{ status: string }> = await provider.open('s', { indexes: ['status'] });
    await store.put('a', { status: 'one' });
    failing = true;
    const first = await store.put('a', { status: 'two' }).catch((error: unknown) => error);
    expect((first as AppError).code).toBe('unavailable');
    expect((first as AppError).message).toContain('disk on fire');
    failing = false;
    // The backend works again, but what was planned on the failed write cannot be trusted: no more writes.
    const second = await store.put('b', { status: 'one' }).catch((error: unknown) => error);
    expect((second as AppError).code).toBe('unavailable');
    await expect(provider.ping()).rejects.toThrow(/restart/);
    expect(await store.get('a')).toEqual({ status: 'one' });
    expect(await store.get('b')).toBeUndefined();
    await provider.close();
  });
});

describe('a write refused before it is queued (no room)', () => {
  it('answers a retryable 503, leaves the provider usable, and writes resume once there is room', async () => {
    const inner = (createMemStoreProvider({ sweepIntervalMs: 0 }) as KvStoreProvider).backend;
    let full = false;
    const backend: KvBackend = {
      space: (name) => inner.space(name),
      hasSpace: (name) => inner.hasSpace(name),
      write: (fn) => inner.write(fn),
      writeQueued: (mutations) => inner.writeQueued(mutations),
      checkRoom: () => {
        if (full) throw transient('storage full: test');
      },
      ping: () => inner.ping(),
      close: () => inner.close(),
    };
    const provider = new KvStoreProvider('mem', backend, { sweepIntervalMs: 0 });
    const store: Store<{ status: string }> = await provider.open('s', { indexes: ['status'] });
    await store.put('a', { status: 'one' });
    full = true;
    const refused = await store.put('a', { status: 'two' }).catch((error: unknown) => error);
    expect((refused as AppError).status).toBe(503);
    expect((refused as AppError).retryable).toBe(true);
    expect((refused as AppError).message).toContain('storage full');
    await expect(provider.batch([{ store: 's', op: 'put', key: 'b', value: { status: 'one' } }])).rejects.toThrow(
      /storage full/,
    );
    await provider.ping();
    full = false;
    await store.put('c', { status: 'two' });
    expect(await store.get('a')).toEqual({ status: 'one' });
    expect(await store.get('b')).toBeUndefined();
    expect(await store.count({ status: 'two' })).toBe(1);
    expect((await checkIntegrity(provider)).problems).toEqual([]);
    await provider.close();
  });

  it('on LMDB, below the free-space reserve: writes answer 503 storage full, reads and health go on', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'lmdb-no-room-'));
    try {
      const roomy = createLmdbStoreProvider({ dataDir: dir, sweepIntervalMs: 0 });
      await (await roomy.open<{ n: number }>('s')).put('a', { n: 1 });
      await roomy.close();
      const provider = createLmdbStoreProvider({
        dataDir: dir,
        sweepIntervalMs: 0,
        minFreeBytes: Number.MAX_SAFE_INTEGER,
      });
      const store: Store<{ n: number }> = await provider.open('s');
      const refused = await store.put('a', { n: 2 }).catch((error: unknown) => error);
      expect((refused as AppError).status).toBe(503);
      expect((refused as AppError).retryable).toBe(true);
      expect((refused as AppError).message).toMatch(/^storage full: \d+ KiB free, writes resume above \d+ KiB$/);
      expect(await store.get('a')).toEqual({ n: 1 });
      await provider.ping();
      await provider.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
