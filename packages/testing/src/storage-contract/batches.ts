import { describe, expect, it } from 'vitest';
import { expectAppError } from '../contract-kit/index.js';
import type { ContractContext } from './context.js';

interface Op {
  name: string;
  status?: string;
  [k: string]: unknown;
}

export function registerBatches(ctx: ContractContext): void {
  describe('batches', () => {
    it('applies puts, inserts and deletes together', async () => {
      const s = await ctx.openStore<Op>({ indexes: ['status'] });
      await s.put('old', { name: 'old', status: 'done' });
      await s.batch([
        { op: 'put', key: 'a', value: { name: 'a', status: 'new' } },
        { op: 'insert', key: 'b', value: { name: 'b', status: 'new' } },
        { op: 'delete', key: 'old' },
      ]);
      expect(await s.getMany(['a', 'b', 'old'])).toEqual([
        { name: 'a', status: 'new' },
        { name: 'b', status: 'new' },
        undefined,
      ]);
      expect((await s.query({ where: { status: 'new' } })).items.map((e) => e.key)).toEqual(['a', 'b']);
      expect(await s.count({ status: 'done' })).toBe(0);
    });

    it('applies operations on one key in order', async () => {
      const s = await ctx.openStore<Op>({ indexes: ['status'] });
      await s.put('x', { name: 'before', status: 'a' });
      await s.batch([
        { op: 'put', key: 'x', value: { name: 'mid', status: 'b' } },
        { op: 'delete', key: 'x' },
        { op: 'insert', key: 'x', value: { name: 'after', status: 'c' } },
        { op: 'put', key: 'y', value: { name: 'y', status: 'b' } },
        { op: 'delete', key: 'y' },
      ]);
      expect(await s.get('x')).toEqual({ name: 'after', status: 'c' });
      expect(await s.get('y')).toBeUndefined();
      expect(await s.count({ status: 'a' })).toBe(0);
      expect(await s.count({ status: 'b' })).toBe(0);
      expect(await s.count({ status: 'c' })).toBe(1);
    });

    it('deletes from a store without indexes, present or absent keys, in order with the other operations', async () => {
      const s = await ctx.openStore<Op>();
      await s.put('gone', { name: 'gone' });
      await s.put('kept', { name: 'kept' });
      await s.batch([
        { op: 'delete', key: 'gone' },
        { op: 'delete', key: 'never' },
        { op: 'insert', key: 'gone', value: { name: 'again' } },
        { op: 'put', key: 'brief', value: { name: 'brief' } },
        { op: 'delete', key: 'brief' },
        { op: 'delete', key: 'kept' },
        { op: 'insert', key: 'kept', value: { name: 'replaced' } },
      ]);
      expect(await s.getMany(['gone', 'never', 'brief', 'kept'])).toEqual([
        { name: 'again' },
        undefined,
        undefined,
        { name: 'replaced' },
      ]);
      expect(await s.count()).toBe(2);
      // An insert after the batch still finds a deleted key free and a live one taken.
      await s.batch([{ op: 'delete', key: 'gone' }]);
      expect(await s.insert('gone', { name: 'third' })).toBe(true);
      expect(await s.insert('kept', { name: 'no' })).toBe(false);
    });

    it('writes nothing when an insert finds its key taken', async () => {
      const s = await ctx.openStore<Op>({ indexes: ['status'] });
      await s.put('taken', { name: 'original', status: 'kept' });
      await s.put('victim', { name: 'victim', status: 'kept' });
      await expectAppError(
        s.batch([
          { op: 'put', key: 'fresh', value: { name: 'fresh', status: 'ghost' } },
          { op: 'delete', key: 'victim' },
          { op: 'insert', key: 'taken', value: { name: 'intruder', status: 'ghost' } },
        ]),
        'conflict',
        /taken/,
      );
      expect(await s.getMany(['fresh', 'victim', 'taken'])).toEqual([
        undefined,
        { name: 'victim', status: 'kept' },
        { name: 'original', status: 'kept' },
      ]);
      expect(await s.count({ status: 'ghost' })).toBe(0);
      expect(await s.count({ status: 'kept' })).toBe(2);
    });

    it('writes nothing when an insert collides with an earlier operation of the same batch', async () => {
      const s = await ctx.openStore<Op>();
      await expectAppError(
        s.batch([
          { op: 'put', key: 'a', value: { name: 'a' } },
          { op: 'insert', key: 'a', value: { name: 'again' } },
        ]),
        'conflict',
      );
      expect(await s.get('a')).toBeUndefined();
    });

    it('writes nothing when any operation is invalid', async () => {
      const s = await ctx.openStore<Op>({ indexes: ['status'] });
      await expectAppError(
        s.batch([
          { op: 'put', key: 'a', value: { name: 'a', status: 'x' } },
          { op: 'put', key: 'b', value: { name: 'b', status: null as unknown as string } },
        ]),
        'bad_request',
      );
      await expectAppError(s.batch([{ op: 'put', key: '', value: { name: 'a' } }]), 'bad_request');
      await expectAppError(
        s.batch([{ op: 'upsert', key: 'a', value: { name: 'a' } } as never]),
        'bad_request',
        /unknown op/,
      );
      await expectAppError(s.batch('nope' as never), 'bad_request');
      expect(await s.count()).toBe(0);
      await s.batch([]);
      expect(await s.count()).toBe(0);
    });

    it('writes across stores atomically through the provider', async () => {
      const names = [`xa-${Math.random().toString(36).slice(2, 10)}`, `xb-${Math.random().toString(36).slice(2, 10)}`];
      const a = await ctx.provider.open<Op>(names[0]!);
      const b = await ctx.provider.open<Op>(names[1]!, { indexes: ['status'] });
      await b.put('held', { name: 'held' });
      await ctx.provider.batch([
        { store: names[0]!, op: 'put', key: 'k', value: { name: 'in a' } },
        { store: names[1]!, op: 'insert', key: 'k', value: { name: 'in b', status: 's' } },
      ]);
      expect(await a.get('k')).toEqual({ name: 'in a' });
      expect(await b.get('k')).toEqual({ name: 'in b', status: 's' });

      await expectAppError(
        ctx.provider.batch([
          { store: names[0]!, op: 'delete', key: 'k' },
          { store: names[1]!, op: 'put', key: 'k2', value: { name: 'k2', status: 's' } },
          { store: names[1]!, op: 'insert', key: 'held', value: { name: 'intruder' } },
        ]),
        'conflict',
      );
      expect(await a.get('k')).toEqual({ name: 'in a' });
      expect(await b.get('k2')).toBeUndefined();
      expect(await b.count({ status: 's' })).toBe(1);

      await expectAppError(
        ctx.provider.batch([{ store: 'never-opened', op: 'delete', key: 'k' }]),
        'bad_request',
        /not open/,
      );
    });
  });
}
