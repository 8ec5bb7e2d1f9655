import { MongoClient } from 'mongodb';
import { createMongoStoreProvider } from '@anchor/common/storage';
import { uniqueName } from '../contract-kit/index.js';
import { testStoreProvider } from './index.js';

// MongoDB cannot run on every machine: the suite runs when MONGODB_URL points at a server, and is skipped
// (with a printed notice) otherwise.
const url = process.env['MONGODB_URL'];
const prefix = uniqueName('contract').replaceAll('-', '');

testStoreProvider(
  'mongodb',
  {
    create: () => createMongoStoreProvider({ url: url!, prefix, sweepIntervalMs: 0 }),
    reopen: () => createMongoStoreProvider({ url: url!, prefix, sweepIntervalMs: 0 }),
    dispose: async () => {
      const client = await MongoClient.connect(url!);
      try {
        const db = client.db();
        for (const c of await db.listCollections({ name: { $regex: `^${prefix}_` } }, { nameOnly: true }).toArray()) await db.dropCollection(c.name);
      } finally {
        await client.close();
      }
    },
  },
  url ? {} : { skip: 'MONGODB_URL is not set (no MongoDB server here); set it to run the MongoDB contract suite' },
);
