/**
 * Store throughput, mem and LMDB, through the public Store interface (validation, JSON, index upkeep and
 * durability included): batched puts, single puts, gets, indexed queries.
 * Targets: LMDB >= 50,000 batched puts/s and >= 200,000 gets/s on the 2-core reference machine.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  createLmdbStoreProvider,
  createMemStoreProvider,
  type BatchOp,
  type Store,
  type StoreProvider,
} from '@anchor/common/storage';
import { atLeast, rate, report, summary } from './lib/report.js';

interface Operation {
  suffix: string;
  status: string;
  time: number;
  payload: string;
}

const RECORDS = 100_000;
const BATCH = 1_000;
const PAYLOAD = 'x'.repeat(120);

const record = (i: number): Operation => ({
  suffix: `EiD${i.toString(36).padStart(8, '0')}`,
  status: i % 10 === 0 ? 'pending' : 'done',
  time: i,
  payload: PAYLOAD,
});
const keyOf = (i: number): string => `op-${i.toString(36).padStart(8, '0')}`;

async function run(kind: 'mem' | 'lmdb', provider: StoreProvider): Promise<void> {
  const store: Store<Operation> = await provider.open<Operation>('operations', {
    indexes: ['suffix', ['status', 'time']],
  });

  let start = performance.now();
  // A few batches in flight at once, as concurrent request handlers would have.
  const inFlight = 4;
  let next = 0;
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (next < RECORDS) {
        const from = next;
        next += BATCH;
        const ops: BatchOp<Operation>[] = [];
        for (let i = from; i < Math.min(from + BATCH, RECORDS); i++)
          ops.push({ op: 'put', key: keyOf(i), value: record(i) });
        await store.batch(ops);
      }
    }),
  );
  const batched = RECORDS / ((performance.now() - start) / 1000);
  report(
    'store',
    `${kind}: batched puts (batches of ${BATCH}, 2 indexes)`,
    batched,
    'puts/s',
    kind === 'lmdb' ? atLeast(50_000) : undefined,
  );

  // Unbatched puts from 64 concurrent callers, each awaiting its own durable write.
  const singles = 10_000;
  let n = 0;
  start = performance.now();
  await Promise.all(
    Array.from({ length: 64 }, async () => {
      while (n < singles) {
        const i = RECORDS + n++;
        await store.put(keyOf(i), record(i));
      }
    }),
  );
  report(
    'store',
    `${kind}: single puts (64 concurrent callers)`,
    singles / ((performance.now() - start) / 1000),
    'puts/s',
  );

  let g = 0;
  const gets = await rate(
    async () => {
      g = (g + 7919) % RECORDS;
      if ((await store.get(keyOf(g))) === undefined) throw new Error(`missing ${keyOf(g)}`);
    },
    { ms: 2000, batch: 256 },
  );
  report(
    'store',
    `${kind}: gets (random keys, ${RECORDS.toLocaleString('en-US')} records)`,
    gets,
    'gets/s',
    kind === 'lmdb' ? atLeast(200_000) : undefined,
  );

  let q = 0;
  const queries = await rate(
    async () => {
      q = (q + 104_729) % RECORDS;
      const page = await store.query({
        where: { status: 'pending', time: { gte: q } },
        orderBy: { field: 'time' },
        limit: 20,
      });
      if (page.items.length === 0 && q < RECORDS - 100) throw new Error('empty page');
    },
    { ms: 2000, batch: 16 },
  );
  report('store', `${kind}: indexed range queries (20 records a page)`, queries, 'queries/s');

  let e = 0;
  const lookups = await rate(
    async () => {
      e = (e + 7919) % RECORDS;
      const page = await store.query({ where: { suffix: record(e).suffix } });
      if (page.items.length !== 1) throw new Error('lookup missed');
    },
    { ms: 2000, batch: 64 },
  );
  report('store', `${kind}: equality lookups by an index`, lookups, 'queries/s');

  await provider.close();
}

const dir = mkdtempSync(join(tmpdir(), 'anchor-store-bench-'));
try {
  await run('mem', createMemStoreProvider({ sweepIntervalMs: 0 }));
  await run('lmdb', createLmdbStoreProvider({ dataDir: dir, sweepIntervalMs: 0 }));
} finally {
  rmSync(dir, { recursive: true, force: true });
}
summary();
