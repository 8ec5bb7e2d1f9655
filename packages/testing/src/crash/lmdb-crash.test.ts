/**
 * LMDB crash safety: a child acknowledges writes (put, batch, cross-store batch, delete) and is SIGKILLed
 * at an arbitrary point; reopened, every acknowledged write is there, every batch is all-or-nothing, and
 * the indexes agree with the records. Three kill cycles on one directory.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkIntegrity, createLmdbStoreProvider } from '@anchor/common/storage';
import { Child, ensureCommonBuilt } from './built.js';

interface Rec {
  status: string;
  n: number;
  run: string;
  batch?: string;
  exp?: number;
}

const dir = mkdtempSync(join(tmpdir(), 'anchor-lmdb-crash-'));
beforeAll(() => ensureCommonBuilt(['storage', 'errors', 'encoding']));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('lmdb crash safety', () => {
  it(
    'keeps every acknowledged write, whole batches only and consistent indexes across SIGKILLs',
    { timeout: 120_000 },
    async () => {
      const acked: Array<{ kind: string; key: string; run: string }> = [];
      const deleting = new Set<string>();
      for (const run of ['r1', 'r2', 'r3']) {
        const child = new Child('./lmdb-writer.mjs', [dir, run]);
        await child.waitFor('ready', 1);
        const target = 150 + Math.floor(Math.random() * 650);
        await child.waitFor('ack ', target);
        await child.kill();
        for (const line of child.lines.filter((l) => l.startsWith('deleting ')))
          deleting.add(line.slice('deleting '.length));
        for (const line of child.lines.filter((l) => l.startsWith('ack '))) {
          const [, kind, key] = line.split(' ');
          acked.push({ kind: kind!, key: key!, run });
        }

        const provider = createLmdbStoreProvider({ dataDir: dir, sweepIntervalMs: 0 });
        try {
          const records = await provider.open<Rec>('records', {
            indexes: [['status', 'n'], 'batch'],
            expiryField: 'exp',
          });
          const ledger = await provider.open<{ run: string; record: string }>('ledger', { indexes: ['run'] });
          for (const a of acked) {
            const i = Number(a.key.slice(a.key.indexOf('-') + 1));
            if (a.kind === 'put' && !deleting.has(a.key)) {
              expect(await records.get(a.key), `acked put ${a.key}`).toEqual({
                status: i % 3 ? 'open' : 'done',
                n: i,
                run: a.run,
              });
            } else if (a.kind === 'batch') {
              const values = await records.getMany(Array.from({ length: 5 }, (_, j) => `${a.key}-b${j}`));
              expect(
                values.every((v) => v?.batch === a.key),
                `acked batch ${a.key}`,
              ).toBe(true);
            } else if (a.kind === 'xbatch') {
              expect(await ledger.get(a.key), `acked cross-store batch ${a.key}`).toEqual({
                run: a.run,
                record: `${a.key}-x`,
              });
              expect((await records.get(`${a.key}-x`))?.n).toBe(i);
            } else if (a.kind === 'delete') {
              expect(await records.get(a.key), `acked delete ${a.key}`).toBeUndefined();
            }
          }

          // Writes in flight at the kill may or may not have landed, but never in part.
          const all = await records.query({ limit: 10_000 });
          const batches = new Set(all.items.map((e) => e.value.batch).filter((b): b is string => b !== undefined));
          for (const b of batches) expect(await records.count({ batch: b }), `batch ${b} is whole`).toBe(5);
          const crossed = await ledger.query({ limit: 10_000 });
          for (const e of crossed.items)
            expect(await records.get(e.value.record), `ledger ${e.key} has its record`).toBeDefined();
          const xRecords = all.items.filter((e) => e.key.endsWith('-x'));
          expect(xRecords.length).toBe(crossed.items.length);

          // The indexes answer exactly what a scan of the records says.
          for (const status of ['open', 'done']) {
            const scanned = all.items.filter((e) => e.value.status === status).map((e) => e.key);
            const indexed = await records.query({ where: { status }, limit: 10_000 });
            expect(indexed.items.map((e) => e.key)).toEqual(scanned);
            const sorted = await records.query({
              where: { status },
              orderBy: { field: 'n', direction: 'desc' },
              limit: 10_000,
            });
            expect(sorted.items.map((e) => e.value.n)).toEqual(
              all.items
                .filter((e) => e.value.status === status)
                .map((e) => e.value.n)
                .sort((x, y) => y - x),
            );
          }
          expect(await ledger.count({ run })).toBe(crossed.items.filter((e) => e.value.run === run).length);
          const report = await checkIntegrity(provider);
          expect(report.problems).toEqual([]);
          expect(report.stores['records']!.records).toBe(all.items.length);
        } finally {
          await provider.close();
        }
      }
      expect(acked.length).toBeGreaterThan(450);
    },
  );
});
