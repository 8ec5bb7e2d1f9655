/**
 * test/ferretdb adds the `_id` index FerretDB v1.24's SQLite backend queries by but never creates (its README):
 * without it every `_id` lookup, update and delete scans the table. The plan is read from the database file by
 * a connection of its own (Python's sqlite3): FerretDB's own explain answers from a connection that may have
 * loaded the schema before the index existed, where SQLite does not re-plan an EXPLAIN (a real query is).
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { MongoClient } from 'mongodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFerretDb, type MongoTestServer } from './index.js';

const PLAN = `
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
(table,) = db.execute("SELECT table_name FROM _ferretdb_collections WHERE name = 'records'").fetchone()
for row in db.execute(f"EXPLAIN QUERY PLAN SELECT _ferretdb_sjson FROM \\"{table}\\" WHERE _ferretdb_sjson->'$._id' = ?", ('"k7"',)):
    print(row[3])
`;

async function sqlitePlan(server: MongoTestServer): Promise<string> {
  const { stdout } = await promisify(execFile)('python3', ['-c', PLAN, join(server.dataDir!, 'anchor.sqlite')]);
  return stdout;
}

async function planOf(server: MongoTestServer, wait: boolean): Promise<string> {
  const client = await MongoClient.connect(server.url);
  try {
    const records = client.db().collection<{ _id: string; n: number }>('records');
    await records.insertMany(Array.from({ length: 50 }, (_, n) => ({ _id: `k${n}`, n })));
    expect(await records.findOne({ _id: 'k7' })).toEqual({ _id: 'k7', n: 7 });
  } finally {
    await client.close();
  }
  const deadline = Date.now() + 10_000;
  for (;;) {
    const plan = await sqlitePlan(server);
    // The server adds the index within a tick of seeing the collection; stock FerretDB never does.
    if (!wait || plan.includes('USING INDEX') || Date.now() > deadline) return plan;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const python = await promisify(execFile)('python3', ['-c', 'import sqlite3'])
  .then(() => true)
  .catch(() => false);

describe.skipIf(!python)('test/ferretdb _id index (needs python3 with sqlite3)', () => {
  let withIndex: MongoTestServer;
  let stock: MongoTestServer;
  beforeAll(async () => {
    [withIndex, stock] = await Promise.all([startFerretDb(), startFerretDb({ args: ['--id-index=false'] })]);
  }, 120_000);
  afterAll(async () => {
    await Promise.all([withIndex?.stop(), stock?.stop()]);
  });

  it('seeks a document by _id through the index it adds', async () => {
    expect(await planOf(withIndex, true)).toMatch(/SEARCH \S+ USING INDEX \S+_anchor_id/);
  });

  it('scans the whole table for it without that index (stock FerretDB v1.24)', async () => {
    const plan = await planOf(stock, false);
    expect(plan).toMatch(/SCAN /);
    expect(plan).not.toMatch(/USING INDEX/);
  });
});
