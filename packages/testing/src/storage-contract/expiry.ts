import { describe, expect, it } from 'vitest';
import { sleep } from '../contract-kit/index.js';
import type { ContractContext } from './context.js';

interface Lease {
  status?: string;
  expiresAt?: number;
  owner?: string;
}

const HOUR = 3_600_000;

export function registerExpiry(ctx: ContractContext): void {
  describe('expiry', () => {
    it('hides expired records from every read', async () => {
      const s = await ctx.openStore<Lease>({ indexes: [['status', 'owner']], expiryField: 'expiresAt' });
      const now = Date.now();
      await s.put('live', { status: 'pending', owner: 'a', expiresAt: now + HOUR });
      await s.put('dead', { status: 'pending', owner: 'b', expiresAt: now - 1000 });
      await s.put('forever', { status: 'pending', owner: 'c' });
      expect(await s.get('dead')).toBeUndefined();
      expect(await s.getMany(['live', 'dead', 'forever'])).toEqual([
        { status: 'pending', owner: 'a', expiresAt: now + HOUR },
        undefined,
        { status: 'pending', owner: 'c' },
      ]);
      expect((await s.query()).items.map((e) => e.key)).toEqual(['forever', 'live']);
      expect((await s.query({ where: { status: 'pending' } })).items.map((e) => e.key)).toEqual(['forever', 'live']);
      expect(
        (await s.query({ where: { status: 'pending' }, orderBy: { field: 'owner', direction: 'desc' } })).items.map(
          (e) => e.key,
        ),
      ).toEqual(['forever', 'live']);
      expect((await s.query({ where: { status: 'pending' }, offset: 1 })).items.map((e) => e.key)).toEqual(['live']);
      expect(await s.count()).toBe(2);
      expect(await s.count({ status: 'pending' })).toBe(2);
      expect(await s.count({ status: 'pending', owner: { in: ['a', 'b'] } })).toBe(1);
    });

    it('treats an expired key as absent for insert and delete', async () => {
      const s = await ctx.openStore<Lease>({ expiryField: 'expiresAt' });
      await s.put('lease', { owner: 'old', expiresAt: Date.now() - 1 });
      expect(await s.insert('lease', { owner: 'new', expiresAt: Date.now() + HOUR })).toBe(true);
      expect((await s.get('lease'))?.owner).toBe('new');
      expect(await s.insert('lease', { owner: 'third' })).toBe(false);
      await s.put('gone', { owner: 'x', expiresAt: Date.now() - 1 });
      expect(await s.delete('gone')).toBe(false);
      expect(await s.insert('gone', { owner: 'y' })).toBe(true);
      await s.put('b', { owner: 'x', expiresAt: Date.now() - 1 });
      await s.batch([{ op: 'insert', key: 'b', value: { owner: 'batched' } }]);
      expect(await s.get('b')).toEqual({ owner: 'batched' });
    });

    it('does not compare-and-set an expired record, whatever its fields hold', async () => {
      const s = await ctx.openStore<Lease>({ expiryField: 'expiresAt' });
      const expiredAt = Date.now() - 1;
      await s.put('lease', { owner: 'old', expiresAt: expiredAt });
      expect(await s.replaceIf('lease', { owner: 'old' }, { owner: 'old', expiresAt: Date.now() + HOUR })).toBe(false);
      expect(await s.replaceIf('lease', { expiresAt: expiredAt }, { owner: 'x', expiresAt: Date.now() + HOUR })).toBe(
        false,
      );
      expect(await s.get('lease')).toBeUndefined();
      const until = Date.now() + HOUR;
      await s.put('live', { owner: 'me', expiresAt: until });
      expect(await s.replaceIf('live', { owner: 'me', expiresAt: until }, { owner: 'me', expiresAt: until + 1 })).toBe(
        true,
      );
      expect(await s.get('live')).toEqual({ owner: 'me', expiresAt: until + 1 });
    });

    it('lets a record expire while stored', async () => {
      const s = await ctx.openStore<Lease>({ indexes: ['status'], expiryField: 'expiresAt' });
      await s.put('short', { status: 'x', expiresAt: Date.now() + 300 });
      expect(await s.get('short')).toBeDefined();
      await sleep(400);
      expect(await s.get('short')).toBeUndefined();
      expect(await s.count({ status: 'x' })).toBe(0);
    });

    it('sweeps expired records (at or before now), on demand', async () => {
      const s = await ctx.openStore<Lease>({ indexes: ['status'], expiryField: 'expiresAt' });
      const now = Date.now();
      for (let i = 0; i < 30; i++) await s.put(`old${i}`, { status: 'x', expiresAt: now - 1000 - i });
      await s.put('edge', { status: 'x', expiresAt: now + 10 * HOUR });
      await s.put('later', { status: 'x', expiresAt: now + 20 * HOUR });
      await s.put('never', { status: 'x' });
      await s.put('renewed', { status: 'x', expiresAt: now - 5 });
      await s.put('renewed', { status: 'x' });
      expect(await s.sweepExpired()).toBe(30);
      expect(await s.sweepExpired()).toBe(0);
      expect(await s.sweepExpired(now + 10 * HOUR)).toBe(1);
      expect(await s.get('renewed')).toEqual({ status: 'x' });
      expect((await s.query({ where: { status: 'x' } })).items.map((e) => e.key)).toEqual([
        'later',
        'never',
        'renewed',
      ]);
      expect(await s.count()).toBe(3);
    });

    it('never expires anything in a store without an expiry field', async () => {
      const s = await ctx.openStore<Lease>();
      await s.put('k', { expiresAt: 1 });
      expect(await s.sweepExpired(Date.now() + HOUR)).toBe(0);
      expect(await s.get('k')).toEqual({ expiresAt: 1 });
    });
  });
}
