import { describe, expect, it } from 'vitest';
import { MAX_LIMIT, type Page, type Query, type Store } from '@anchor/common/storage';
import { expectAppError } from '../contract-kit/index.js';
import type { ContractContext } from './context.js';

interface Ref {
  refType?: string;
  object?: string;
  activityType?: string;
  timeAdded?: number | string | boolean;
  status?: string;
  [k: string]: unknown;
}

const keys = <T>(page: Page<T>): string[] => page.items.map((e) => e.key);

/** Every page of a query, following `next` cursors. */
async function allPages<T extends object>(store: Store<T>, query: Query): Promise<{ keys: string[]; pages: number }> {
  const out: string[] = [];
  let after: string | undefined;
  let pages = 0;
  for (;;) {
    const page = await store.query(after === undefined ? query : { ...query, after });
    pages++;
    out.push(...keys(page));
    if (!page.next) return { keys: out, pages };
    after = page.next;
    if (pages > 1000) throw new Error('paging does not end');
  }
}

async function refStore(ctx: ContractContext): Promise<Store<Ref>> {
  const s = await ctx.openStore<Ref>({
    indexes: [['refType', 'object', 'timeAdded'], ['status'], ['activityType', 'timeAdded']],
  });
  const rows: Array<[string, Ref]> = [
    ['r01', { refType: 'follower', object: 'alice', timeAdded: 30, activityType: 'Follow' }],
    ['r02', { refType: 'follower', object: 'alice', timeAdded: 10, activityType: 'Follow' }],
    ['r03', { refType: 'follower', object: 'alice', timeAdded: 20, activityType: 'Follow' }],
    ['r04', { refType: 'follower', object: 'bob', timeAdded: 15, activityType: 'Follow' }],
    ['r05', { refType: 'following', object: 'alice', timeAdded: 5, activityType: 'Accept' }],
    ['r06', { refType: 'follower', object: 'alice', timeAdded: 20, activityType: 'Follow' }],
    ['r07', { refType: 'follower', object: 'alice', activityType: 'Follow' }],
    ['r08', { refType: 'follower', object: 'carol', timeAdded: 1, activityType: 'Like' }],
  ];
  for (const [k, v] of rows) await s.put(k, v);
  return s;
}

export function registerQueries(ctx: ContractContext): void {
  describe('queries', () => {
    it('lists all records in key order (code point order), forwards and backwards', async () => {
      const s = await ctx.openStore<Ref>();
      const ks = ['b', 'a', 'B', 'é', '😀', '\uffff', 'a\u0000', 'ab'];
      for (const k of ks) await s.put(k, {});
      const sorted = ['B', 'a', 'a\u0000', 'ab', 'b', 'é', '\uffff', '😀'];
      expect(keys(await s.query())).toEqual(sorted);
      expect(keys(await s.query({ limit: 3 }))).toEqual(sorted.slice(0, 3));
    });

    it('answers equality on an index in key order', async () => {
      const s = await refStore(ctx);
      expect(keys(await s.query({ where: { refType: 'follower' } }))).toEqual([
        'r01',
        'r02',
        'r03',
        'r04',
        'r06',
        'r07',
        'r08',
      ]);
      expect(keys(await s.query({ where: { refType: 'follower', object: 'alice' } }))).toEqual([
        'r01',
        'r02',
        'r03',
        'r06',
        'r07',
      ]);
      expect(keys(await s.query({ where: { object: 'alice', refType: 'follower', timeAdded: 20 } }))).toEqual([
        'r03',
        'r06',
      ]);
      expect(keys(await s.query({ where: { refType: 'nobody' } }))).toEqual([]);
    });

    it('sorts by the field after the equality fields, ties broken by key', async () => {
      const s = await refStore(ctx);
      const q = { where: { refType: 'follower', object: 'alice' }, orderBy: { field: 'timeAdded' } } as const;
      expect(keys(await s.query(q))).toEqual(['r02', 'r03', 'r06', 'r01']);
      expect(keys(await s.query({ ...q, orderBy: { field: 'timeAdded', direction: 'desc' } }))).toEqual([
        'r01',
        'r06',
        'r03',
        'r02',
      ]);
      // Sorting by a field fixed by equality is sorting by key.
      expect(
        keys(
          await s.query({
            where: { refType: 'follower', object: 'bob' },
            orderBy: { field: 'object', direction: 'desc' },
          }),
        ),
      ).toEqual(['r04']);
      expect(keys(await s.query({ where: { status: 'none' }, orderBy: { field: 'status' } }))).toEqual([]);
    });

    it('sorts a whole store by the first field of an index, leaving out records without it', async () => {
      const s = await refStore(ctx);
      await s.put('r09', { status: 'open' });
      expect(keys(await s.query({ orderBy: { field: 'activityType' } }))).toEqual([
        'r05',
        'r01',
        'r02',
        'r03',
        'r04',
        'r06',
        'r07',
        'r08',
      ]);
      expect(keys(await s.query({ orderBy: { field: 'status', direction: 'desc' } }))).toEqual(['r09']);
    });

    it('answers ranges (ordered by the range field), inclusive and exclusive', async () => {
      const s = await refStore(ctx);
      const where = (timeAdded: object) => ({ refType: 'follower', object: 'alice', timeAdded });
      expect(keys(await s.query({ where: where({ gte: 20 }) }))).toEqual(['r03', 'r06', 'r01']);
      expect(keys(await s.query({ where: where({ gt: 20 }) }))).toEqual(['r01']);
      expect(keys(await s.query({ where: where({ lt: 20 }) }))).toEqual(['r02']);
      expect(keys(await s.query({ where: where({ lte: 20, gt: 10 }) }))).toEqual(['r03', 'r06']);
      expect(keys(await s.query({ where: where({ gt: 30 }) }))).toEqual([]);
      expect(keys(await s.query({ where: where({ gt: 25, lt: 15 }) }))).toEqual([]);
      expect(
        keys(await s.query({ where: where({ gte: 10, lte: 30 }), orderBy: { field: 'timeAdded', direction: 'desc' } })),
      ).toEqual(['r01', 'r06', 'r03', 'r02']);
      expect(keys(await s.query({ where: { activityType: 'Follow', timeAdded: { lt: 16 } } }))).toEqual(['r02', 'r04']);
    });

    it('orders values numbers < strings < booleans, each naturally, and brackets ranges by type', async () => {
      const s = await ctx.openStore<Ref>({ indexes: [['refType', 'timeAdded']] });
      const values: Array<[string, number | string | boolean]> = [
        ['t01', true],
        ['t02', 'b'],
        ['t03', -1.5],
        ['t04', 'B'],
        ['t05', 1e21],
        ['t06', false],
        ['t07', '10'],
        ['t08', 0],
        ['t09', -0],
        ['t10', 'é'],
        ['t11', 2],
        ['t12', -1e21],
        ['t13', '\uffff'],
        ['t14', '😀'],
        ['t15', 10],
      ];
      for (const [k, v] of values) await s.put(k, { refType: 't', timeAdded: v });
      const sorted = [
        't12',
        't03',
        't08',
        't09',
        't11',
        't15',
        't05',
        't07',
        't04',
        't02',
        't10',
        't13',
        't14',
        't06',
        't01',
      ];
      expect(keys(await s.query({ where: { refType: 't' }, orderBy: { field: 'timeAdded' } }))).toEqual(sorted);
      expect(
        keys(await s.query({ where: { refType: 't' }, orderBy: { field: 'timeAdded', direction: 'desc' } })),
      ).toEqual([...sorted].reverse());
      expect(keys(await s.query({ where: { refType: 't', timeAdded: { gte: 0 } } }))).toEqual([
        't08',
        't09',
        't11',
        't15',
        't05',
      ]);
      expect(keys(await s.query({ where: { refType: 't', timeAdded: { lt: 'a' } } }))).toEqual(['t07', 't04']);
      expect(keys(await s.query({ where: { refType: 't', timeAdded: { gt: false } } }))).toEqual(['t01']);
      expect(keys(await s.query({ where: { refType: 't', timeAdded: 0 } }))).toEqual(['t08', 't09']);
      expect(keys(await s.query({ where: { refType: 't', timeAdded: '10' } }))).toEqual(['t07']);
      expect(keys(await s.query({ where: { refType: 't', timeAdded: 10 } }))).toEqual(['t15']);
    });

    it('answers "in" lists, merged into one order', async () => {
      const s = await refStore(ctx);
      expect(keys(await s.query({ where: { object: { in: ['bob', 'alice'] }, refType: 'follower' } }))).toEqual([
        'r01',
        'r02',
        'r03',
        'r04',
        'r06',
        'r07',
      ]);
      expect(
        keys(
          await s.query({
            where: { refType: { in: ['follower', 'following'] }, object: 'alice' },
            orderBy: { field: 'timeAdded' },
          }),
        ),
      ).toEqual(['r05', 'r02', 'r03', 'r06', 'r01']);
      expect(
        keys(
          await s.query({
            where: { refType: 'follower', object: { in: ['alice', 'bob', 'alice'] }, timeAdded: { gt: 12 } },
            orderBy: { field: 'timeAdded', direction: 'desc' },
          }),
        ),
      ).toEqual(['r01', 'r06', 'r03', 'r04']);
      expect(keys(await s.query({ where: { status: { in: [] } } }))).toEqual([]);
      expect(await s.count({ activityType: { in: ['Like', 'Accept', 'Nope'] } })).toBe(2);
    });

    it('counts what a query would return', async () => {
      const s = await refStore(ctx);
      expect(await s.count()).toBe(8);
      expect(await s.count({})).toBe(8);
      expect(await s.count({ refType: 'follower', object: 'alice' })).toBe(5);
      expect(await s.count({ refType: 'follower', object: 'alice', timeAdded: { gte: 20 } })).toBe(3);
      expect(await s.count({ status: 'x' })).toBe(0);
      await expectAppError(s.count({ object: 'alice' }), 'bad_request', /no index/);
    });

    it('keeps indexes in step with updates and deletes', async () => {
      const s = await refStore(ctx);
      await s.put('r02', { refType: 'follower', object: 'bob', timeAdded: 99, activityType: 'Follow' });
      await s.put('r03', { refType: 'follower', object: 'alice' });
      await s.delete('r01');
      expect(
        keys(await s.query({ where: { refType: 'follower', object: 'alice' }, orderBy: { field: 'timeAdded' } })),
      ).toEqual(['r06']);
      expect(keys(await s.query({ where: { refType: 'follower', object: 'alice' } }))).toEqual(['r03', 'r06', 'r07']);
      expect(
        keys(
          await s.query({
            where: { refType: 'follower', object: 'bob' },
            orderBy: { field: 'timeAdded', direction: 'desc' },
          }),
        ),
      ).toEqual(['r02', 'r04']);
      expect(await s.count({ activityType: 'Follow' })).toBe(4);
    });

    it('pages with cursors through every record exactly once, in both directions', async () => {
      const s = await ctx.openStore<Ref>({ indexes: [['status', 'timeAdded']] });
      const expected: Array<[string, number]> = [];
      for (let i = 0; i < 57; i++) {
        const key = `k${String(i).padStart(3, '0')}`;
        const t = i % 7; // many ties, broken by key
        await s.put(key, { status: 'open', timeAdded: t });
        expected.push([key, t]);
      }
      const asc = expected.sort((a, b) => a[1] - b[1] || (a[0] < b[0] ? -1 : 1)).map((e) => e[0]);
      const forward = await allPages(s, { where: { status: 'open' }, orderBy: { field: 'timeAdded' }, limit: 10 });
      expect(forward.keys).toEqual(asc);
      expect(forward.pages).toBe(6);
      const backward = await allPages(s, {
        where: { status: 'open' },
        orderBy: { field: 'timeAdded', direction: 'desc' },
        limit: 8,
      });
      expect(backward.keys).toEqual([...asc].reverse());
      const byKey = await allPages(s, { where: { status: 'open' }, limit: 57 });
      expect(byKey).toEqual({ keys: [...asc].sort(), pages: 1 });
      const ranged = await allPages(s, { where: { status: 'open', timeAdded: { gte: 2, lt: 5 } }, limit: 4 });
      expect(ranged.keys).toEqual(asc.filter((k) => [2, 3, 4].includes(Number(k.slice(1)) % 7)));
      const all = await allPages(s, { limit: 5, orderBy: { field: 'status', direction: 'desc' } });
      expect(all.keys).toEqual([...asc].sort().reverse());
    });

    it('continues a cursor after records change around it', async () => {
      const s = await ctx.openStore<Ref>({ indexes: [['status', 'timeAdded']] });
      for (let i = 1; i <= 6; i++) await s.put(`k${i}`, { status: 'open', timeAdded: i * 10 });
      const q: Query = { where: { status: 'open' }, orderBy: { field: 'timeAdded' }, limit: 3 };
      const first = await s.query(q);
      expect(keys(first)).toEqual(['k1', 'k2', 'k3']);
      await s.put('early', { status: 'open', timeAdded: 5 });
      await s.delete('k3');
      await s.put('k4', { status: 'open', timeAdded: 31 });
      const second = await s.query({ ...q, after: first.next! });
      expect(keys(second)).toEqual(['k4', 'k5', 'k6']);
      expect(second.next).toBeUndefined();
    });

    it('pages by offset', async () => {
      const s = await refStore(ctx);
      const q: Query = { where: { refType: 'follower', object: 'alice' }, orderBy: { field: 'timeAdded' }, limit: 2 };
      expect(keys(await s.query({ ...q, offset: 0 }))).toEqual(['r02', 'r03']);
      expect(keys(await s.query({ ...q, offset: 2 }))).toEqual(['r06', 'r01']);
      const last = await s.query({ ...q, offset: 3 });
      expect(keys(last)).toEqual(['r01']);
      expect(last.next).toBeUndefined();
      expect(keys(await s.query({ ...q, offset: 10 }))).toEqual([]);
      const page = await s.query({ ...q, offset: 1 });
      expect(keys(page)).toEqual(['r03', 'r06']);
      expect(keys(await s.query({ ...q, after: page.next! }))).toEqual(['r01']);
    });

    it('marks the last page by leaving out next', async () => {
      const s = await refStore(ctx);
      const exact = await s.query({ where: { refType: 'follower', object: 'alice' }, limit: 5 });
      expect(keys(exact)).toHaveLength(5);
      expect(exact.next).toBeUndefined();
      const more = await s.query({ where: { refType: 'follower', object: 'alice' }, limit: 4 });
      expect(more.next).toEqual(expect.any(String));
    });

    it('answers a sortedOnly index when the query sorts or ranges on its last field, and refuses the rest', async () => {
      const s = await ctx.openStore<Ref>({ indexes: [{ fields: ['object', 'timeAdded'], sortedOnly: true }] });
      for (const [k, v] of [
        ['a', { object: 'alice', timeAdded: 3 }],
        ['b', { object: 'alice', timeAdded: 1 }],
        ['c', { object: 'bob', timeAdded: 2 }],
        ['d', { object: 'alice', timeAdded: 2 }],
      ] as const)
        await s.put(k, v);
      await s.put('a', { object: 'alice', timeAdded: 0 });
      await s.delete('d');
      expect(keys(await s.query({ where: { object: 'alice' }, orderBy: { field: 'timeAdded' } }))).toEqual(['a', 'b']);
      expect(keys(await s.query({ where: { object: 'alice', timeAdded: { gte: 1 } } }))).toEqual(['b']);
      expect(keys(await s.query({ where: { object: 'bob', timeAdded: 2 } }))).toEqual(['c']);
      expect(await s.count({ object: 'alice', timeAdded: { lt: 5 } })).toBe(2);
      await expectAppError(s.query({ where: { object: 'alice' } }), 'bad_request', /no index answers.*sorted only/);
      await expectAppError(
        ctx.openStore({ indexes: [{ fields: ['object'], sortedOnly: true }] }),
        'bad_request',
        /at least two fields/,
      );
      await expectAppError(ctx.openStore({ indexes: [{ fieldz: ['object'] } as never] }), 'bad_request', /sortedOnly/);
    });

    it('answers a key prefix in key order, with paging, without an index, and never beyond the prefix', async () => {
      const s = await ctx.openStore<Ref & { expiresAt?: number }>({ expiryField: 'expiresAt' });
      const inside = ['EiA:1', 'EiA:2', 'EiA:10', 'EiA:é', 'EiA:😀', 'EiA:\uffff', 'EiA:'];
      const outside = ['EiA', 'EiA;', 'EiA9', 'EiB:1', 'EiA\u0000:1', 'Ei', 'a.b*:1', 'a.bc:1'];
      for (const k of [...inside, ...outside]) await s.put(k, { status: k });
      await s.put('EiA:expired', { status: 'gone', expiresAt: Date.now() - 1_000 });
      const expected = ['EiA:', 'EiA:1', 'EiA:10', 'EiA:2', 'EiA:é', 'EiA:\uffff', 'EiA:😀'];
      expect(keys(await s.query({ keyPrefix: 'EiA:' }))).toEqual(expected);
      expect((await allPages(s, { keyPrefix: 'EiA:', limit: 2 })).keys).toEqual(expected);
      expect(keys(await s.query({ keyPrefix: 'EiA:', offset: 5 }))).toEqual(expected.slice(5));
      expect((await s.query({ keyPrefix: 'EiA:1' })).items.map((e) => e.value.status)).toEqual(['EiA:1', 'EiA:10']);
      // Characters that mean something to a regular expression or a range bound are matched literally.
      expect(keys(await s.query({ keyPrefix: 'a.b*' }))).toEqual(['a.b*:1']);
      expect(keys(await s.query({ keyPrefix: 'EiA\u0000' }))).toEqual(['EiA\u0000:1']);
      expect(keys(await s.query({ keyPrefix: 'none' }))).toEqual([]);
      expect(keys(await s.query({ keyPrefix: '' }))).toHaveLength(inside.length + outside.length);
    });

    it('refuses a key prefix combined with where or orderBy, or one that is not a string', async () => {
      const s = await refStore(ctx);
      await expectAppError(
        s.query({ keyPrefix: 'r0', where: { status: 'x' } }),
        'bad_request',
        /keyPrefix cannot be combined/,
      );
      await expectAppError(
        s.query({ keyPrefix: 'r0', orderBy: { field: 'status' } }),
        'bad_request',
        /keyPrefix cannot be combined/,
      );
      await expectAppError(s.query({ keyPrefix: 5 as never }), 'bad_request', /keyPrefix must be a string/);
      expect(keys(await s.query({ keyPrefix: 'r0', limit: 3 }))).toEqual(['r01', 'r02', 'r03']);
    });

    it('rejects queries no index answers, and malformed ones', async () => {
      const s = await refStore(ctx);
      await expectAppError(s.query({ where: { unindexed: 'x' } }), 'bad_request', /not an indexed field/);
      await expectAppError(s.query({ where: { object: 'alice' } }), 'bad_request', /no index answers/);
      await expectAppError(
        s.query({ where: { refType: 'follower' }, orderBy: { field: 'timeAdded' } }),
        'bad_request',
        /no index answers/,
      );
      await expectAppError(s.query({ orderBy: { field: 'object' } }), 'bad_request', /no index answers/);
      await expectAppError(s.query({ orderBy: { field: 'nope' } }), 'bad_request', /not an indexed field/);
      await expectAppError(
        s.query({ where: { refType: { gt: 'a' }, object: { gt: 'b' } } }),
        'bad_request',
        /one field/,
      );
      await expectAppError(
        s.query({
          where: { refType: 'follower', object: 'alice', timeAdded: { gt: 1 } },
          orderBy: { field: 'object' },
        }),
        'bad_request',
        /only be sorted by "timeAdded"/,
      );
      await expectAppError(
        s.query({ where: { refType: { in: ['a', 'b'] } }, orderBy: { field: 'refType' } }),
        'bad_request',
        /"in"/,
      );
      await expectAppError(s.query({ where: { status: { gt: 1, gte: 2 } } }), 'bad_request', /both gt and gte/);
      await expectAppError(s.query({ where: { status: { lt: 1, lte: 2 } } }), 'bad_request', /both lt and lte/);
      await expectAppError(s.query({ where: { status: { gt: 1, lt: 'z' } } }), 'bad_request', /one type/);
      await expectAppError(s.query({ where: { status: { like: 'x' } as never } }), 'bad_request', /unknown operators/);
      await expectAppError(s.query({ where: { status: {} as never } }), 'bad_request', /unknown operators/);
      await expectAppError(s.query({ where: { status: null as never } }), 'bad_request');
      await expectAppError(s.query({ where: { status: { in: [null] } as never } }), 'bad_request', /"in"/);
      await expectAppError(s.query({ where: { status: Number.NaN } }), 'bad_request');
      await expectAppError(
        s.query({ orderBy: { field: 'status', direction: 'up' as never } }),
        'bad_request',
        /direction/,
      );
      for (const limit of [0, -1, 1.5, MAX_LIMIT + 1]) await expectAppError(s.query({ limit }), 'bad_request', /limit/);
      await expectAppError(s.query({ offset: -1 }), 'bad_request', /offset/);
      await expectAppError(s.query({ after: 'not a cursor' }), 'bad_request', /cursor/);
      await expectAppError(s.query({ after: '' }), 'bad_request', /cursor/);
      const withTail = await s.query({
        where: { refType: 'follower', object: 'alice' },
        orderBy: { field: 'timeAdded' },
        limit: 1,
      });
      await expectAppError(s.query({ after: withTail.next! }), 'bad_request', /cursor/);
      const many = Array.from({ length: 40 }, (_, i) => `v${i}`);
      await expectAppError(
        s.query({ where: { refType: { in: many }, object: { in: many } } }),
        'bad_request',
        /index ranges/,
      );
      expect((await s.query({ limit: MAX_LIMIT })).items).toHaveLength(8);
    });
  });
}
