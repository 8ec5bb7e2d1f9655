import { describe, expect, it } from 'vitest';
import { expectAppError, uniqueName } from '../contract-kit/index.js';
import type { ContractContext } from './context.js';

interface Item {
  kind?: string;
  rank?: number;
  expiresAt?: number;
}

export function registerLifecycle(ctx: ContractContext): void {
  describe('provider lifecycle', () => {
    it('answers ping while open and refuses work once closed', async () => {
      await ctx.provider.ping();
      const s = await ctx.openStore<Item>();
      await s.put('k', { kind: 'a' });
      await ctx.provider.close();
      await ctx.provider.close();
      await expectAppError(ctx.provider.ping(), 'unavailable', /closed/);
      await expectAppError(s.get('k'), 'unavailable', /closed/);
      await expectAppError(s.put('k', { kind: 'b' }), 'unavailable', /closed/);
      await expectAppError(s.query(), 'unavailable', /closed/);
      await expectAppError(ctx.provider.open('another'), 'unavailable', /closed/);
      // Every adapter's "cannot serve now" is the one store error: a 503 that tells HTTP clients when to retry.
      const refused = (await s.get('k').catch((error: unknown) => error)) as { headers?: Record<string, string> };
      expect(refused.headers?.['Retry-After']).toMatch(/^\d+$/);
    });

    it('says whether a store exists without creating it', async () => {
      const name = uniqueName('exists');
      expect(await ctx.provider.exists(name)).toBe(false);
      // Asking creates nothing.
      expect(await ctx.provider.exists(name)).toBe(false);
      const s = await ctx.provider.open<Item>(name);
      expect(await ctx.provider.exists(name)).toBe(true);
      await s.put('k', { kind: 'a' });
      expect(await ctx.provider.exists(name)).toBe(true);
      await expectAppError(ctx.provider.exists(''), 'bad_request');
    });

    if (!ctx.durable) return;

    it('knows a store that holds records after a restart, and still not one never opened', async () => {
      const name = uniqueName('exists-durable');
      const never = uniqueName('exists-never');
      await (await ctx.provider.open<Item>(name)).put('k', { kind: 'a' });
      const reopened = await ctx.reopen();
      expect(await reopened.exists(name)).toBe(true);
      expect(await reopened.exists(never)).toBe(false);
      expect(await (await reopened.open<Item>(name)).get('k')).toEqual({ kind: 'a' });
    });

    it('keeps records, indexes and expiry across a restart', async () => {
      const name = uniqueName('durable');
      const options = { indexes: [['kind', 'rank']], expiryField: 'expiresAt' };
      const s = await ctx.provider.open<Item>(name, options);
      await s.batch([
        { op: 'put', key: 'a', value: { kind: 'x', rank: 2 } },
        { op: 'put', key: 'b', value: { kind: 'x', rank: 1, expiresAt: Date.now() + 3_600_000 } },
        { op: 'put', key: 'c', value: { kind: 'y', rank: 3, expiresAt: Date.now() - 1 } },
      ]);
      const reopened = await ctx.reopen();
      const again = await reopened.open<Item>(name, options);
      expect(await again.get('a')).toEqual({ kind: 'x', rank: 2 });
      expect((await again.query({ where: { kind: 'x' }, orderBy: { field: 'rank' } })).items.map((e) => e.key)).toEqual(
        ['b', 'a'],
      );
      expect(await again.count()).toBe(2);
      expect(await again.sweepExpired()).toBe(1);
    });

    it('rebuilds index entries when a store is reopened with other indexes', async () => {
      const name = uniqueName('reindex');
      const s = await ctx.provider.open<Item>(name, { indexes: ['kind'] });
      for (let i = 0; i < 20; i++)
        await s.put(`k${String(i).padStart(2, '0')}`, { kind: i % 2 ? 'odd' : 'even', rank: 20 - i });
      const reopened = await ctx.reopen();
      const again = await reopened.open<Item>(name, { indexes: ['rank'] });
      expect((await again.query({ orderBy: { field: 'rank' }, limit: 3 })).items.map((e) => e.key)).toEqual([
        'k19',
        'k18',
        'k17',
      ]);
      await expectAppError(again.query({ where: { kind: 'odd' } }), 'bad_request', /not an indexed field/);
      const third = await ctx.reopen();
      const back = await third.open<Item>(name, { indexes: ['kind'] });
      await back.put('k00', { kind: 'odd', rank: 0 });
      expect(await back.count({ kind: 'odd' })).toBe(11);
      expect(await back.count({ kind: 'even' })).toBe(9);
    });
  });
}
