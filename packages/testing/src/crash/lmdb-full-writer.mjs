// Disk-full child: writes to an LMDB store on a small file system with no free-space reserve, so a commit
// meets the full disk. Prints "ack <key>" after each awaited write and "refused <status> <retryable>
// <message>" for each refused one; after some refusals prints "ping <outcome>" and exits.
import { createLmdbStoreProvider } from '@anchor/common/storage';

const [dir] = process.argv.slice(2);
const provider = createLmdbStoreProvider({ dataDir: dir, sweepIntervalMs: 0, minFreeBytes: 0 });
const store = await provider.open('records', { indexes: ['n'] });
console.log('ready');

const big = 'x'.repeat(6000);
let seq = 0;
let refusals = 0;
async function worker() {
  while (refusals < 40) {
    const key = `k${seq++}`;
    try {
      await store.put(key, { n: seq, big });
      console.log(`ack ${key}`);
    } catch (error) {
      refusals++;
      console.log(`refused ${error.status} ${error.retryable} ${error.message}`);
    }
  }
}
await Promise.all([worker(), worker(), worker(), worker()]);
console.log(
  `ping ${await provider.ping().then(
    () => 'ok',
    (error) => `${error.status} ${error.message}`,
  )}`,
);
process.exit(0);
