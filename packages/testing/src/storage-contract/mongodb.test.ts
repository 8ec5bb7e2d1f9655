import { MongoClient } from 'mongodb';
import { afterAll, beforeAll } from 'vitest';
import { createMongoStoreProvider, type MongoStoreOptions } from '@anchor/common/storage';
import { uniqueName } from '../contract-kit/index.js';
import { mongoServerForTests, type MongoTestServer } from '../ferretdb/index.js';
import { testStoreProvider } from './index.js';

// The whole contract, twice: collections named `<prefix>_<store>`, and unprefixed in a database of their own.
// The server is MONGODB_URL's when set, else FerretDB (test/ferretdb), which has no multi-document
// transactions: there the adapter's non-transactional batches run (ordered bulk writes); the transactional
// path runs only against a replica set given by MONGODB_URL. FerretDB's conditional replace is not atomic
// either, so racing compare-and-sets are held to one winner only against MONGODB_URL.
let server: MongoTestServer;
beforeAll(async () => {
  server = await mongoServerForTests();
  const probe = await createMongoStoreProvider({ url: server.url, sweepIntervalMs: 0 });
  const transactional = (probe as { atomicBatches?: boolean }).atomicBatches === true;
  await probe.close();
  console.info(
    `[storage contract] mongodb: running against ${server.label}; batches ${transactional ? 'in transactions' : 'as ordered bulk writes (no transactions on this server)'}`,
  );
}, 20 * 60_000);
afterAll(async () => {
  await server?.stop();
});

function harness(options: Omit<MongoStoreOptions, 'url'>) {
  const open = () => createMongoStoreProvider({ url: server.url, sweepIntervalMs: 0, ...options });
  return {
    create: open,
    reopen: open,
    // FerretDB (used unless MONGODB_URL names a server) reads, then writes, for a conditional replace.
    atomicConditionalWrites: Boolean(process.env['MONGODB_URL']),
    dispose: async () => {
      const client = await MongoClient.connect(server.url);
      try {
        const db = client.db(options.database);
        if (options.prefix === undefined) await db.dropDatabase();
        else
          for (const c of await db
            .listCollections({ name: { $regex: `^${options.prefix}_` } }, { nameOnly: true })
            .toArray())
            await db.dropCollection(c.name);
      } finally {
        await client.close();
      }
    },
  };
}

testStoreProvider('mongodb, prefixed collections', harness({ prefix: uniqueName('contract').replaceAll('-', '') }));
testStoreProvider('mongodb, no prefix', harness({ database: uniqueName('contract').replaceAll('-', '_') }));
