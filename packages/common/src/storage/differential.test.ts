/**
 * Random operations and queries run against mem, LMDB and a plain in-test model (filter + sort), which
 * must all agree; the derived entries of mem and LMDB must stay consistent with their records throughout.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { AppError } from '../errors/index.js';
import { checkIntegrity } from './integrity.js';
import { createLmdbStoreProvider } from './lmdb.js';
import { createMemStoreProvider } from './mem.js';
import type { BatchOp, FieldCondition, IndexValue, Query, Store, StoreProvider } from './types.js';

type Rec = { a?: IndexValue; b?: IndexValue; c?: IndexValue; exp?: number; note?: string };

function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

function compareValues(x: IndexValue, y: IndexValue): number {
  const rank = (v: IndexValue) => (typeof v === 'number' ? 0 : typeof v === 'string' ? 1 : 2);
  if (rank(x) !== rank(y)) return rank(x) - rank(y);
  if (typeof x === 'string') return Buffer.compare(Buffer.from(x), Buffer.from(y as string));
  return x === y ? 0 : x < y ? -1 : 1;
}

const compareKeys = (x: string, y: string) => Buffer.compare(Buffer.from(x), Buffer.from(y));

function matches(v: IndexValue | undefined, cond: FieldCondition): boolean {
  if (v === undefined) return false;
  if (typeof cond !== 'object') return v === cond;
  if ('in' in cond) return cond.in.includes(v);
  const r = cond;
  const bound = [r.gt, r.gte, r.lt, r.lte].find((x) => x !== undefined)!;
  if (typeof v !== typeof bound) return false;
  if (r.gt !== undefined && compareValues(v, r.gt) <= 0) return false;
  if (r.gte !== undefined && compareValues(v, r.gte) < 0) return false;
  if (r.lt !== undefined && compareValues(v, r.lt) >= 0) return false;
  if (r.lte !== undefined && compareValues(v, r.lte) > 0) return false;
  return true;
}

/** The contract's query semantics, written plainly. */
function modelQuery(model: Map<string, Rec>, q: Query, now: number): string[] {
  const where = q.where ?? {};
  const rangeField = Object.entries(where).find(([, c]) => typeof c === 'object' && !('in' in c))?.[0];
  const eqFields = new Set(Object.keys(where).filter((f) => f !== rangeField));
  const tail = rangeField ?? (q.orderBy && !eqFields.has(q.orderBy.field) ? q.orderBy.field : undefined);
  const dir = q.orderBy?.direction === 'desc' ? -1 : 1;
  const hits = [...model.entries()]
    .filter(([, r]) => r.exp === undefined || r.exp > now)
    .filter(([, r]) => Object.entries(where).every(([f, c]) => matches(r[f as keyof Rec] as IndexValue | undefined, c)))
    .filter(([, r]) => tail === undefined || r[tail as keyof Rec] !== undefined)
    .sort(([ka, ra], [kb, rb]) => {
      const byTail =
        tail === undefined
          ? 0
          : compareValues(ra[tail as keyof Rec] as IndexValue, rb[tail as keyof Rec] as IndexValue);
      return dir * (byTail || compareKeys(ka, kb));
    })
    .map(([k]) => k);
  return hits.slice(q.offset ?? 0, (q.offset ?? 0) + (q.limit ?? 100));
}

const INDEXES = [['a', 'b', 'c'], ['c']];
const VALUES: IndexValue[] = [1, 2, 3, -1, 2.5, 'x', 'y', 'X', 'é', '', true, false];

function randomRecord(next: () => number, now: number): Rec {
  const r: Rec = { note: 'n' };
  const pick = () => VALUES[Math.floor(next() * VALUES.length)]!;
  if (next() < 0.9) r.a = pick();
  if (next() < 0.8) r.b = pick();
  if (next() < 0.8) r.c = pick();
  if (next() < 0.3) r.exp = now + (next() < 0.5 ? -10_000 : 3_600_000);
  return r;
}

function randomQuery(next: () => number): Query {
  const pick = () => VALUES[Math.floor(next() * VALUES.length)]!;
  const index = INDEXES[Math.floor(next() * INDEXES.length)]!;
  const eqCount = Math.floor(next() * (index.length + 1));
  const where: Record<string, FieldCondition> = {};
  for (const f of index.slice(0, eqCount)) where[f] = next() < 0.2 ? { in: [pick(), pick()] } : pick();
  const q: Query = { where, limit: 1 + Math.floor(next() * 8) };
  const tail = index[eqCount];
  if (tail !== undefined && next() < 0.6) {
    const bound = pick();
    const same = VALUES.filter((v) => typeof v === typeof bound);
    const other = same[Math.floor(next() * same.length)]!;
    const [lo, hi] = compareValues(bound, other) <= 0 ? [bound, other] : [other, bound];
    if (next() < 0.5) where[tail] = next() < 0.5 ? { gte: lo, lt: hi } : { gt: lo, lte: hi };
    else where[tail] = next() < 0.5 ? { gte: lo } : { lt: hi };
    if (next() < 0.5) q.orderBy = { field: tail, direction: next() < 0.5 ? 'asc' : 'desc' };
  } else if (tail !== undefined && next() < 0.5) {
    q.orderBy = { field: tail, direction: next() < 0.5 ? 'asc' : 'desc' };
  }
  if (next() < 0.3) q.offset = Math.floor(next() * 4);
  return q;
}

/** All pages of a query, following cursors. */
async function pages(store: Store<Rec>, q: Query): Promise<string[]> {
  const keys: string[] = [];
  let after: string | undefined;
  for (let i = 0; i < 500; i++) {
    const page = await store.query(after === undefined ? q : { ...q, after, offset: 0 });
    keys.push(...page.items.map((e) => e.key));
    if (!page.next) return keys;
    after = page.next;
  }
  throw new Error('paging did not end');
}

const dir = mkdtempSync(join(tmpdir(), 'anchor-differential-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('mem and lmdb agree with the plain model', () => {
  it.each([1, 2, 3])('random operations and queries, seed %i', async (seed) => {
    const next = rng(seed);
    const providers: StoreProvider[] = [
      createMemStoreProvider({ sweepIntervalMs: 0 }),
      createLmdbStoreProvider({ dataDir: join(dir, `seed-${seed}`), sweepIntervalMs: 0 }),
    ];
    const stores = await Promise.all(
      providers.map((p) => p.open<Rec>('diff', { indexes: INDEXES, expiryField: 'exp' })),
    );
    const model = new Map<string, Rec>();
    const now = Date.now();
    const key = () => `k${Math.floor(next() * 60)}`;
    try {
      for (let step = 0; step < 400; step++) {
        const roll = next();
        if (roll < 0.5) {
          const [k, r] = [key(), randomRecord(next, now)];
          await Promise.all(stores.map((s) => s.put(k, r)));
          model.set(k, JSON.parse(JSON.stringify(r)) as Rec);
        } else if (roll < 0.65) {
          const [k, r] = [key(), randomRecord(next, now)];
          const results = await Promise.all(stores.map((s) => s.insert(k, r)));
          const live = model.get(k);
          const expected = live === undefined || (live.exp !== undefined && live.exp <= Date.now());
          expect(results).toEqual([expected, expected]);
          if (expected) model.set(k, r);
        } else if (roll < 0.8) {
          const k = key();
          const results = await Promise.all(stores.map((s) => s.delete(k)));
          const live = model.get(k);
          const expected = live !== undefined && (live.exp === undefined || live.exp > Date.now());
          expect(results).toEqual([expected, expected]);
          model.delete(k);
        } else {
          const ops: BatchOp<Rec>[] = Array.from({ length: 1 + Math.floor(next() * 4) }, () => {
            const r = next();
            return r < 0.6
              ? { op: 'put', key: key(), value: randomRecord(next, now) }
              : r < 0.8
                ? { op: 'insert', key: key(), value: randomRecord(next, now) }
                : { op: 'delete', key: key() };
          });
          const outcomes = await Promise.all(
            stores.map((s) =>
              s.batch(ops).then(
                () => 'ok',
                (e: unknown) => (e instanceof AppError ? e.code : 'crash'),
              ),
            ),
          );
          expect(outcomes[0]).toBe(outcomes[1]);
          if (outcomes[0] === 'ok') {
            for (const o of ops) {
              if (o.op === 'delete') model.delete(o.key);
              else model.set(o.key, o.value);
            }
          } else expect(outcomes[0]).toBe('conflict');
        }
        if (step % 10 === 0) {
          for (let i = 0; i < 6; i++) {
            const q = randomQuery(next);
            const t = Date.now();
            const [memPage, lmdbPage] = await Promise.all(stores.map((s) => s.query(q)));
            const expected = modelQuery(model, q, t);
            expect(
              memPage!.items.map((e) => e.key),
              JSON.stringify(q),
            ).toEqual(expected);
            expect(
              lmdbPage!.items.map((e) => e.key),
              JSON.stringify(q),
            ).toEqual(expected);
            expect(lmdbPage!.items.map((e) => e.value)).toEqual(expected.map((k) => model.get(k)));
            const all = modelQuery(model, { ...q, offset: 0, limit: 10_000 }, t);
            const [memAll, lmdbAll] = await Promise.all(stores.map((s) => pages(s, { ...q, offset: 0 })));
            expect(memAll, `paged ${JSON.stringify(q)}`).toEqual(all);
            expect(lmdbAll, `paged ${JSON.stringify(q)}`).toEqual(all);
            const counted = modelQuery(model, { where: q.where ?? {}, limit: 10_000 }, t).length;
            expect(await Promise.all(stores.map((s) => s.count(q.where)))).toEqual([counted, counted]);
          }
          for (const p of providers) expect((await checkIntegrity(p)).problems).toEqual([]);
        }
      }
    } finally {
      await Promise.all(providers.map((p) => p.close()));
    }
  });
});
