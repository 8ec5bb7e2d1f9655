// Crash-test child: writes to an LMDB store with 8 concurrent writers and prints one "ack" line after each
// awaited write, until it is killed. Keys are unique per run; deletes only remove keys acked earlier.
import { createLmdbStoreProvider } from '@anchor/common/storage';

const [dir, run] = process.argv.slice(2);
const provider = createLmdbStoreProvider({ dataDir: dir, sweepIntervalMs: 0 });
const store = await provider.open('records', { indexes: [['status', 'n'], 'batch'], expiryField: 'exp' });
await provider.open('ledger', { indexes: ['run'] });
console.log('ready');

let seq = 0;
const deletable = [];
async function worker() {
  for (;;) {
    const i = seq++;
    const key = `${run}-${i}`;
    switch (i % 4) {
      case 0:
        await store.put(key, { status: i % 3 ? 'open' : 'done', n: i, run });
        deletable.push(key);
        console.log(`ack put ${key}`);
        break;
      case 1:
        await store.batch(
          Array.from({ length: 5 }, (_, j) => ({
            op: 'put',
            key: `${key}-b${j}`,
            value: { status: 'open', n: i, batch: key, run },
          })),
        );
        console.log(`ack batch ${key}`);
        break;
      case 2:
        await provider.batch([
          {
            store: 'records',
            op: 'put',
            key: `${key}-x`,
            value: { status: 'done', n: i, run, exp: Date.now() + 3_600_000 },
          },
          { store: 'ledger', op: 'insert', key, value: { run, record: `${key}-x` } },
        ]);
        console.log(`ack xbatch ${key}`);
        break;
      default: {
        const victim = deletable.shift();
        if (victim === undefined) break;
        // Announced first: once issued, a delete may land even if the kill comes before its ack.
        console.log(`deleting ${victim}`);
        await store.delete(victim);
        console.log(`ack delete ${victim}`);
      }
    }
  }
}
await Promise.all(Array.from({ length: 8 }, worker));
