import { describe, expect, it } from 'vitest';
import { MAX_KEY_BYTES } from '@anchor/common/storage';
import { expectAppError } from '../contract-kit/index.js';
import type { ContractContext } from './context.js';

interface Doc {
  name: string;
  n?: number;
  tags?: string[];
  nested?: { deep: boolean };
  [k: string]: unknown;
}

export function registerBasics(ctx: ContractContext): void {
  describe('records', () => {
    it('returns what was put, and undefined for a key never written', async () => {
      const s = await ctx.openStore<Doc>();
      await s.put('a', { name: 'alpha', n: 1, tags: ['x', 'y'], nested: { deep: true } });
      expect(await s.get('a')).toEqual({ name: 'alpha', n: 1, tags: ['x', 'y'], nested: { deep: true } });
      expect(await s.get('missing')).toBeUndefined();
    });

    it('stores the JSON form of a value, as a copy', async () => {
      const s = await ctx.openStore<Record<string, unknown>>();
      const value: Record<string, unknown> = { name: 'x', gone: undefined, when: new Date(0), list: [1, 2] };
      await s.put('k', value);
      (value['list'] as number[]).push(3);
      const read = await s.get('k');
      expect(read).toEqual({ name: 'x', when: '1970-01-01T00:00:00.000Z', list: [1, 2] });
      expect(read && 'gone' in read).toBe(false);
      (read!['list'] as number[]).push(4);
      expect((await s.get('k'))!['list']).toEqual([1, 2]);
    });

    it('overwrites on put and keeps keys distinct (case, unicode, NUL)', async () => {
      const s = await ctx.openStore<Doc>();
      const keys = ['k', 'K', 'k\u0000', 'ké', 'k😀', 'did:node:uEiA/x?y#z'];
      for (const [i, k] of keys.entries()) await s.put(k, { name: `v${i}` });
      await s.put('k', { name: 'replaced' });
      expect(await s.getMany(keys)).toEqual([
        { name: 'replaced' },
        ...keys.slice(1).map((_, i) => ({ name: `v${i + 1}` })),
      ]);
    });

    it('getMany keeps the order of the keys, with undefined for missing ones', async () => {
      const s = await ctx.openStore<Doc>();
      await s.put('b', { name: 'b' });
      await s.put('a', { name: 'a' });
      expect(await s.getMany(['a', 'nope', 'b', 'a'])).toEqual([
        { name: 'a' },
        undefined,
        { name: 'b' },
        { name: 'a' },
      ]);
      expect(await s.getMany([])).toEqual([]);
    });

    it('inserts only when the key is absent', async () => {
      const s = await ctx.openStore<Doc>();
      expect(await s.insert('lease', { name: 'first' })).toBe(true);
      expect(await s.insert('lease', { name: 'second' })).toBe(false);
      expect(await s.get('lease')).toEqual({ name: 'first' });
    });

    it('replaces a record only when its fields hold the values compared (compare-and-set)', async () => {
      const s = await ctx.openStore<Doc>({ indexes: ['name'] });
      expect(await s.replaceIf('lease', { name: 'first' }, { name: 'second' })).toBe(false);
      expect(await s.get('lease')).toBeUndefined();
      await s.put('lease', { name: 'first', n: 1, tags: ['first'] });
      expect(await s.replaceIf('lease', { name: 'other' }, { name: 'second' })).toBe(false);
      expect(await s.replaceIf('lease', { name: 'first', n: 2 }, { name: 'second' })).toBe(false);
      // A string never equals a number, nor an array its element.
      expect(await s.replaceIf('lease', { n: '1' }, { name: 'second' })).toBe(false);
      expect(await s.replaceIf('lease', { tags: 'first' }, { name: 'second' })).toBe(false);
      expect(await s.replaceIf('lease', { missing: false }, { name: 'second' })).toBe(false);
      expect(await s.get('lease')).toEqual({ name: 'first', n: 1, tags: ['first'] });
      expect(await s.replaceIf('lease', { name: 'first', n: 1 }, { name: 'second', n: 2 })).toBe(true);
      expect(await s.get('lease')).toEqual({ name: 'second', n: 2 });
      // The index follows the replacement.
      expect((await s.query({ where: { name: 'second' } })).items.map((e) => e.key)).toEqual(['lease']);
      expect((await s.query({ where: { name: 'first' } })).items).toEqual([]);
    });

    it('lets exactly one of many concurrent compare-and-sets from one state win', async () => {
      const s = await ctx.openStore<Doc>();
      await s.put('lease', { name: 'start' });
      const results = await Promise.all(
        Array.from({ length: 20 }, (_, i) => s.replaceIf('lease', { name: 'start' }, { name: `holder-${i}` })),
      );
      const winners = results.flatMap((won, i) => (won ? [`holder-${i}`] : []));
      if (ctx.atomicConditionalWrites) expect(winners).toHaveLength(1);
      else expect(winners.length).toBeGreaterThanOrEqual(1);
      expect(winners).toContain((await s.get('lease'))?.name);
    });

    it('refuses a compare-and-set with no field, a reserved field or a value that is not a scalar', async () => {
      const s = await ctx.openStore<Doc>();
      await s.put('k', { name: 'v' });
      const bad: unknown[] = [{}, { _id: 'k' }, { name: { $ne: 'x' } }, { name: ['v'] }, { n: Number.NaN }, null];
      for (const where of bad)
        await expectAppError(
          s.replaceIf('k', where as Record<string, string>, { name: 'w' }),
          'bad_request',
          /replaceIf/,
        );
      expect(await s.get('k')).toEqual({ name: 'v' });
    });

    it('lets exactly one of many concurrent inserts of a key win', async () => {
      const s = await ctx.openStore<Doc>();
      const results = await Promise.all(
        Array.from({ length: 20 }, (_, i) => s.insert('permit', { name: `holder-${i}` })),
      );
      expect(results.filter(Boolean)).toHaveLength(1);
      const winner = results.indexOf(true);
      expect(await s.get('permit')).toEqual({ name: `holder-${winner}` });
    });

    it('takes many concurrent puts of one new key, alone and in batches, leaving one of them', async () => {
      // Upserts that race to create a key must not report it taken: a put is never refused for a key.
      const s = await ctx.openStore<Doc>();
      const values = Array.from({ length: 20 }, (_, i) => `v${i}`);
      await Promise.all(values.map((name) => s.put('fresh', { name })));
      expect(values).toContain((await s.get('fresh'))?.name);
      await Promise.all(
        values.map((name, i) =>
          s.batch([
            { op: 'put', key: `other-${i}`, value: { name } },
            { op: 'put', key: 'fresh-in-batch', value: { name } },
          ]),
        ),
      );
      expect(values).toContain((await s.get('fresh-in-batch'))?.name);
      expect((await s.getMany(values.map((_, i) => `other-${i}`))).map((v) => v?.name)).toEqual(values);
    });

    it('deletes, telling whether there was a record', async () => {
      const s = await ctx.openStore<Doc>();
      await s.put('a', { name: 'a' });
      expect(await s.delete('a')).toBe(true);
      expect(await s.delete('a')).toBe(false);
      expect(await s.get('a')).toBeUndefined();
      expect(await s.insert('a', { name: 'again' })).toBe(true);
    });

    it('keeps stores of one provider apart', async () => {
      const one = await ctx.openStore<Doc>();
      const two = await ctx.openStore<Doc>();
      await one.put('k', { name: 'one' });
      expect(await two.get('k')).toBeUndefined();
      expect(await two.count()).toBe(0);
    });

    it('returns an equivalent store when a name is opened twice, with the indexes of both opens', async () => {
      const name = `twice-${Math.random().toString(36).slice(2, 10)}`;
      const first = await ctx.provider.open<Doc>(name, { indexes: ['name'] });
      await first.put('a', { name: 'x', n: 2 });
      const second = await ctx.provider.open<Doc>(name, { indexes: ['n'] });
      expect(await second.get('a')).toEqual({ name: 'x', n: 2 });
      expect((await second.query({ where: { n: 2 } })).items.map((e) => e.key)).toEqual(['a']);
      expect((await first.query({ where: { name: 'x' } })).items.map((e) => e.key)).toEqual(['a']);
      await second.put('b', { name: 'x', n: 3 });
      expect((await first.query({ where: { name: 'x' } })).items.map((e) => e.key)).toEqual(['a', 'b']);
    });
  });

  describe('bad input is refused and nothing is written', () => {
    it('refuses bad keys', async () => {
      const s = await ctx.openStore<Doc>();
      await expectAppError(s.put('', { name: 'x' }), 'bad_request', /key/);
      await expectAppError(s.put(42 as unknown as string, { name: 'x' }), 'bad_request', /key/);
      await expectAppError(s.put('x'.repeat(MAX_KEY_BYTES + 1), { name: 'x' }), 'bad_request', /longer/);
      await expectAppError(s.get(''), 'bad_request');
      await expectAppError(s.getMany(['ok', '']), 'bad_request');
      await expectAppError(s.delete(''), 'bad_request');
      await s.put('é'.repeat(MAX_KEY_BYTES / 2), { name: 'longest key' });
      expect(await s.count()).toBe(1);
    });

    it('refuses values that are not JSON objects', async () => {
      const s = await ctx.openStore<Record<string, unknown>>();
      for (const bad of [null, 'text', 7, [1, 2], undefined]) {
        await expectAppError(s.put('k', bad as unknown as Record<string, unknown>), 'bad_request', /JSON object/);
      }
      const circular: Record<string, unknown> = { name: 'c' };
      circular['self'] = circular;
      await expectAppError(s.put('k', circular), 'bad_request', /JSON/);
      await expectAppError(s.put('k', { big: 10n }), 'bad_request', /JSON/);
      await expectAppError(s.put('k', { _id: 'mine' }), 'bad_request', /_id/);
      expect(await s.get('k')).toBeUndefined();
    });

    it('refuses values whose indexed fields cannot be indexed', async () => {
      const s = await ctx.openStore<Record<string, unknown>>({
        indexes: ['status', ['owner', 'rank']],
        expiryField: 'expiresAt',
      });
      for (const bad of [
        { status: null },
        { status: { a: 1 } },
        { status: ['a'] },
        { rank: Number.NaN },
        { owner: 'o', rank: Infinity },
      ]) {
        await expectAppError(s.put('k', bad), 'bad_request', /indexed field/);
        await expectAppError(s.insert('k', bad), 'bad_request', /indexed field/);
      }
      await expectAppError(s.put('k', { expiresAt: '2030-01-01' }), 'bad_request', /expiry field/);
      await expectAppError(s.put('k', { status: 'x'.repeat(3000) }), 'bad_request', /too long/);
      expect(await s.count()).toBe(0);
      expect((await s.query({ where: { status: 'x'.repeat(3000) } })).items).toEqual([]);
    });

    it('refuses bad store names and index declarations', async () => {
      for (const name of ['', 'has space', 'a/b', '.hidden', 'x'.repeat(121), 'a$b']) {
        await expectAppError(ctx.provider.open(name), 'bad_request', /store name/);
      }
      await expectAppError(ctx.openStore({ indexes: [''] }), 'bad_request');
      await expectAppError(ctx.openStore({ indexes: [['a', 'a']] }), 'bad_request', /repeats/);
      await expectAppError(ctx.openStore({ indexes: ['a.b'] }), 'bad_request', /cannot be indexed/);
      await expectAppError(ctx.openStore({ indexes: ['$where'] }), 'bad_request', /cannot be indexed/);
      await expectAppError(ctx.openStore({ indexes: ['_id'] }), 'bad_request', /cannot be indexed/);
      await expectAppError(ctx.openStore({ indexes: [[]] }), 'bad_request', /at least one field/);
    });

    it('refuses to reopen a store with a different expiry field', async () => {
      const name = `exp-${Math.random().toString(36).slice(2, 10)}`;
      await ctx.provider.open(name, { expiryField: 'a' });
      await expectAppError(ctx.provider.open(name, { expiryField: 'b' }), 'bad_request', /expiry field/);
    });
  });
}
