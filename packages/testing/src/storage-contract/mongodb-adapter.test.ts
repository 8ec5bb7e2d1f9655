import { Writable } from 'node:stream';
import { MongoClient } from 'mongodb';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { configureLogging } from '@anchor/common/log';
import {
  createMemStoreProvider,
  createMongoStoreProvider,
  type MongoStoreOptions,
  type MongoStoreProvider,
  type Query,
  type StoreOptions,
  type StoreProvider,
} from '@anchor/common/storage';
import { expectAppError, uniqueName } from '../contract-kit/index.js';
import { mongoServerForTests, mongoThroughProxy, type MongoTestServer } from '../ferretdb/index.js';
import { TcpProxy } from '../tcp-proxy/index.js';
import { waitFor } from '../process/wait-for.js';

// What the contract suite cannot see: the adapter's own MongoDB indexes, the elected expiry sweeper, paging
// against mem, racing writers, connection loss and start-up retries. Against MONGODB_URL when set, else FerretDB.

class Lines extends Writable {
  readonly lines: string[] = [];
  override _write(chunk: Buffer, _encoding: string, done: () => void): void {
    this.lines.push(
      ...chunk
        .toString('utf8')
        .split('\n')
        .filter((line) => line !== ''),
    );
    done();
  }
}

let server: MongoTestServer;
let raw: MongoClient;
const prefix = uniqueName('adapter').replaceAll('-', '');
const providers: StoreProvider[] = [];

async function provider(options: Partial<MongoStoreOptions> = {}): Promise<MongoStoreProvider> {
  const opened = (await createMongoStoreProvider({
    url: server.url,
    prefix,
    sweepIntervalMs: 0,
    ...options,
  })) as MongoStoreProvider;
  providers.push(opened);
  return opened;
}

/** A proxy in front of the server, and the server's URL aimed at it. */
async function startProxy(): Promise<{ proxy: TcpProxy; url: string }> {
  const mongo = mongoThroughProxy(server.url);
  const proxy = await TcpProxy.start(mongo.target);
  return { proxy, url: mongo.urlVia(proxy.port) };
}

async function indexesOf(store: string): Promise<Array<{ name: string; key: Record<string, number> }>> {
  const indexes = await raw.db().collection(`${prefix}_${store}`).listIndexes().toArray();
  return indexes
    .map((i) => ({ name: i['name'] as string, key: i['key'] as Record<string, number> }))
    .sort((a, b) => a.name.localeCompare(b.name));
}

beforeAll(async () => {
  server = await mongoServerForTests();
  raw = await MongoClient.connect(server.url);
  console.info(`[mongodb adapter] running against ${server.label}`);
}, 20 * 60_000);
afterEach(async () => {
  await Promise.all(providers.splice(0).map((p) => p.close()));
  configureLogging({ format: 'json', levels: 'info' });
});
afterAll(async () => {
  const db = raw?.db();
  for (const c of (await db?.listCollections({ name: { $regex: `^${prefix}_` } }, { nameOnly: true }).toArray()) ?? [])
    await db!.dropCollection(c.name);
  await raw?.close();
  await server?.stop();
});

describe('mongodb adapter: indexes', () => {
  it('creates one index per declared index prefix, each ending in _id, and one on the expiry field, at open', async () => {
    const p = await provider();
    const name = uniqueName('idx');
    await p.open(name, {
      indexes: [['kind', 'rank'], { fields: ['owner', 'time'], sortedOnly: true }],
      expiryField: 'expiresAt',
    });
    expect(await indexesOf(name)).toEqual([
      { name: '_id_', key: { _id: 1 } },
      { name: 'expiresAt_1', key: { expiresAt: 1 } },
      { name: 'kind_1__id_1', key: { kind: 1, _id: 1 } },
      { name: 'kind_1_rank_1__id_1', key: { kind: 1, rank: 1, _id: 1 } },
      { name: 'owner_1_time_1__id_1', key: { owner: 1, time: 1, _id: 1 } },
    ]);
  });

  it('drops an index no longer declared and rebuilds one whose definition changed, saying so in the log', async () => {
    const name = uniqueName('stale');
    const collection = raw.db().collection(`${prefix}_${name}`);
    await collection.insertOne({ _id: 'k' as never, kind: 'a', old: 1 });
    await collection.createIndexes([
      { name: 'old_1__id_1', key: { old: 1, _id: 1 } },
      { name: 'kind_1__id_1', key: { kind: -1, _id: 1 } },
    ]);
    const out = new Lines();
    configureLogging({ format: 'json', destination: out, levels: 'info' });
    const p = await provider();
    const s = await p.open<{ kind: string }>(name, { indexes: ['kind'] });
    expect(await indexesOf(name)).toEqual([
      { name: '_id_', key: { _id: 1 } },
      { name: 'kind_1__id_1', key: { kind: 1, _id: 1 } },
    ]);
    const logged = out.lines
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .filter((l) => l['module'] === 'mongodb-storage');
    expect(logged).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          message: 'dropping an index the store no longer declares',
          store: name,
          index: 'old_1__id_1',
        }),
        expect.objectContaining({
          message: 'rebuilding an index whose definition changed',
          store: name,
          index: 'kind_1__id_1',
        }),
      ]),
    );
    expect((await s.query({ where: { kind: 'a' } })).items.map((e) => e.key)).toEqual(['k']);
    // A second open with the same declaration changes nothing and logs nothing.
    out.lines.length = 0;
    const again = await provider();
    await again.open(name, { indexes: ['kind'] });
    expect(out.lines.filter((l) => l.includes('mongodb-storage'))).toEqual([]);
  });
});

describe('mongodb adapter: expiry', () => {
  it('has one elected sweeper among the providers sharing a prefix; another takes over when it closes', async () => {
    const name = uniqueName('expiry');
    const options: StoreOptions = { indexes: ['status'], expiryField: 'expiresAt' };
    const [a, b] = [await provider({ sweepIntervalMs: 100 }), await provider({ sweepIntervalMs: 100 })];
    const [sa] = [await a.open<{ status: string; expiresAt?: number }>(name, options), await b.open(name, options)];
    const now = Date.now();
    for (let i = 0; i < 20; i++) await sa.put(`old${i}`, { status: 'x', expiresAt: now - 1_000 });
    await sa.put('live', { status: 'x', expiresAt: now + 3_600_000 });
    await sa.put('forever', { status: 'x' });
    const collection = raw.db().collection(`${prefix}_${name}`);
    await waitFor(async () => (await collection.countDocuments({})) === 2, {
      timeoutMs: 10_000,
      description: 'the expired records to be swept',
    });
    expect([a.isExpirySweeper, b.isExpirySweeper].filter(Boolean)).toHaveLength(1);
    const [holder, other] = a.isExpirySweeper ? [a, b] : [b, a];
    await holder.close();
    await waitFor(() => other.isExpirySweeper, {
      timeoutMs: 5_000,
      description: 'the other provider to take the sweeper lease',
    });
    const sb = await other.open<{ status: string; expiresAt?: number }>(name, options);
    await sb.put('late', { status: 'x', expiresAt: Date.now() - 1 });
    await waitFor(async () => (await collection.countDocuments({ _id: 'late' as never })) === 0, {
      timeoutMs: 10_000,
      description: 'the new sweeper to sweep',
    });
    expect((await sb.query({ where: { status: 'x' } })).items.map((e) => e.key)).toEqual(['forever', 'live']);
  });
});

describe('mongodb adapter: paging', () => {
  it('pages by cursor and offset through mixed-type sort values exactly as the mem adapter does', async () => {
    const options: StoreOptions = { indexes: [['group', 'rank']] };
    const mem = createMemStoreProvider();
    const p = await provider();
    const name = uniqueName('paging');
    const [m, s] = [
      await mem.open<Record<string, unknown>>(name, options),
      await p.open<Record<string, unknown>>(name, options),
    ];
    const ranks: unknown[] = [0, 1, 1, 1, 2.5, -3, 'a', 'a', 'b', '', true, false, true, undefined];
    const ops = Array.from({ length: 230 }, (_, i) => ({
      op: 'put' as const,
      key: `k${String((i * 37) % 230).padStart(3, '0')}`,
      value: { group: i % 3 === 0 ? 'g1' : 'g2', rank: ranks[i % ranks.length] },
    }));
    await m.batch(ops);
    await s.batch(ops);
    const queries: Query[] = [
      { limit: 17 },
      { limit: 17, orderBy: { field: 'group', direction: 'desc' } },
      { where: { group: 'g2' }, orderBy: { field: 'rank' }, limit: 9 },
      { where: { group: 'g2' }, orderBy: { field: 'rank', direction: 'desc' }, limit: 9 },
      { where: { group: { in: ['g1', 'g2'] } }, limit: 11 },
      { where: { group: 'g1', rank: { gte: 1 } }, limit: 4 },
      { where: { group: 'g1', rank: { lt: 'b' } }, limit: 3 },
    ];
    for (const query of queries) {
      const walk = async (store: typeof m): Promise<string[][]> => {
        const pages: string[][] = [];
        let page = await store.query(query);
        for (;;) {
          pages.push(page.items.map((e) => e.key));
          if (!page.next) return pages;
          page = await store.query({ ...query, after: page.next });
        }
      };
      expect(await walk(s), JSON.stringify(query)).toEqual(await walk(m));
      expect((await s.query({ ...query, offset: 5 })).items, JSON.stringify(query)).toEqual(
        (await m.query({ ...query, offset: 5 })).items,
      );
      expect(await s.count(query.where), JSON.stringify(query)).toBe(await m.count(query.where));
    }
    await mem.close();
  });
});

describe('mongodb adapter: insert-if-absent under concurrency', () => {
  it('lets exactly one of many racing inserts per key win, across providers, with and without an expiry field', async () => {
    const [a, b] = [await provider(), await provider()];
    for (const options of [{}, { expiryField: 'expiresAt' }] as StoreOptions[]) {
      const name = uniqueName('race');
      const stores = [
        await a.open<{ by: string; expiresAt?: number }>(name, options),
        await b.open<{ by: string; expiresAt?: number }>(name, options),
      ];
      const keys = Array.from({ length: 10 }, (_, i) => `key${i}`);
      const attempts = keys.flatMap((key) =>
        Array.from({ length: 8 }, (_, j) => ({ key, by: `w${j}`, store: stores[j % 2]! })),
      );
      const results = await Promise.all(
        attempts.map(({ key, by, store }) => store.insert(key, { by, expiresAt: Date.now() + 60_000 })),
      );
      for (const key of keys) {
        const winners = attempts.filter((x, i) => x.key === key && results[i]);
        expect(winners, `${name}/${key}`).toHaveLength(1);
        expect((await stores[0]!.get(key))?.by).toBe(winners[0]!.by);
      }
    }
  });

  it('lets exactly one of racing batches inserting the same key through, the other refused as a conflict', async () => {
    const [a, b] = [await provider(), await provider()];
    const name = uniqueName('race-batch');
    const [sa, sb] = [await a.open<{ by: string }>(name), await b.open<{ by: string }>(name)];
    for (let round = 0; round < 10; round++) {
      const key = `lease${round}`;
      const outcomes = await Promise.allSettled([
        sa.batch([{ op: 'insert', key, value: { by: 'a' } }]),
        sb.batch([{ op: 'insert', key, value: { by: 'b' } }]),
      ]);
      expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
      const refused = outcomes.find((o): o is PromiseRejectedResult => o.status === 'rejected')!;
      expect(refused.reason).toMatchObject({ code: 'conflict', status: 409 });
    }
  });
});

describe('mongodb adapter: batches', () => {
  it('writes a 2,000-operation batch across two stores', async () => {
    const p = await provider();
    const [x, y] = [uniqueName('bulk-x'), uniqueName('bulk-y')];
    const [sx, sy] = [await p.open<{ n: number }>(x, { indexes: ['n'] }), await p.open<{ n: number }>(y)];
    const ops = Array.from({ length: 2_000 }, (_, i) => ({
      store: i % 3 === 0 ? y : x,
      op: i % 2 === 0 ? ('insert' as const) : ('put' as const),
      key: `k${i}`,
      value: { n: i },
    }));
    await p.batch(ops);
    expect((await sx.count()) + (await sy.count())).toBe(2_000);
    expect(await sx.get('k1')).toEqual({ n: 1 });
    expect(await sy.get('k3')).toEqual({ n: 3 });
  });

  it('writes long runs of puts to existing keys, several batches at once (FerretDB held a connection per statement)', async () => {
    // FerretDB v1 keeps a connection per update statement until its command ends, of 100: one 300-statement
    // command never answered. The adapter sends such runs in slices there.
    const p = await provider({ operationTimeoutMs: 20_000 });
    const name = uniqueName('long-runs');
    const store = await p.open<{ n: number }>(name);
    const keys = Array.from({ length: 300 }, (_, i) => `k${i}`);
    await store.batch(keys.map((key) => ({ op: 'put' as const, key, value: { n: 0 } })));
    await Promise.all(
      [1, 2, 3].map((n) => p.batch(keys.map((key) => ({ store: name, op: 'put' as const, key, value: { n } })))),
    );
    // Without transactions the three may interleave: each key holds one of them.
    for (const value of await store.getMany(keys)) expect([1, 2, 3]).toContain(value?.n);
  }, 60_000);

  it('bounds each write of a batch by the deadline, not the whole batch (FerretDB gets it in slices)', async () => {
    // The node's observer commits 50 DIDs a chunk (~150 statements, 19 slices on FerretDB): on a loaded FerretDB
    // a chunk took over 30 s though every slice answered, and the one deadline failed it and replaced the client.
    const mongo = mongoThroughProxy(server.url);
    const proxy = await TcpProxy.start(mongo.target, { answerDelayMs: 700 });
    try {
      const p = await provider({ url: mongo.urlVia(proxy.port), operationTimeoutMs: 2_000 });
      const name = uniqueName('slow-slices');
      await p.open<{ n: number }>(name);
      // 40 puts: on FerretDB five slices, each answered 0.7 s late, 3.5 s in all (elsewhere one bulk write).
      const keys = Array.from({ length: 40 }, (_, i) => `k${i}`);
      await p.batch(keys.map((key) => ({ store: name, op: 'put' as const, key, value: { n: 1 } })));
      // Read back past the proxy: getMany is one call of many lookups on FerretDB, under one deadline.
      const direct = await (await provider()).open<{ n: number }>(name);
      for (const value of await direct.getMany(keys)) expect(value).toEqual({ n: 1 });
    } finally {
      await proxy.close();
    }
  }, 60_000);

  it('runs batches in transactions where the server has them, and refuses transactions: "always" where it has not', async () => {
    const auto = await provider();
    const hello = await raw.db().admin().command({ hello: 1 });
    const replicated = typeof hello['setName'] === 'string' || hello['msg'] === 'isdbgrid';
    expect(auto.atomicBatches).toBe(replicated);
    if (replicated) expect((await provider({ transactions: 'always' })).atomicBatches).toBe(true);
    else await expectAppError(provider({ transactions: 'always' }), 'bad_request', /standalone/);
  });
});

describe('mongodb adapter: key lookups', () => {
  it('reads keys one _id at a time on FerretDB (whose planner takes no $in) and with one $in elsewhere, alike', async () => {
    const p = await provider();
    const build = await raw.db().admin().command({ buildInfo: 1 });
    expect(p.idLookupsOnly).toBe(typeof build['ferretdbVersion'] === 'string');
    const name = uniqueName('lookups');
    const store = await p.open<{ n: number }>(name, { expiryField: 'expiresAt' });
    await store.batch(Array.from({ length: 30 }, (_, i) => ({ op: 'put' as const, key: `k${i}`, value: { n: i } })));
    await store.put('gone', { n: -1, expiresAt: Date.now() - 1 } as { n: number });
    const keys = ['k29', 'missing', 'k0', 'gone', 'k0', ...Array.from({ length: 20 }, (_, i) => `k${i + 5}`)];
    expect(await store.getMany(keys)).toEqual(
      keys.map((key) => (/^k\d+$/.test(key) ? { n: Number(key.slice(1)) } : undefined)),
    );
    // A batch's inserts are checked the same way: a live key refuses it, an expired one does not.
    await expectAppError(
      p.batch([
        { store: name, op: 'insert', key: 'new', value: { n: 1 } },
        { store: name, op: 'insert', key: 'k7', value: { n: 1 } },
      ]),
      'conflict',
      /k7/,
    );
    expect(await store.get('new')).toBeUndefined();
    await p.batch([{ store: name, op: 'insert', key: 'gone', value: { n: 2 } }]);
    expect(await store.get('gone')).toEqual({ n: 2 });
  });
});

describe('mongodb adapter: failures', () => {
  it('answers 503 (retryable) while the server cannot be reached, and recovers when it can', async () => {
    const { proxy, url } = await startProxy();
    try {
      const p = await provider({ url, serverSelectionTimeoutMs: 500 });
      const s = await p.open<{ v: number }>(uniqueName('cut'));
      await s.put('k', { v: 1 });
      proxy.refuse();
      proxy.cut();
      const down = await expectAppError(s.get('k'), 'unavailable', /mongodb unavailable/);
      expect(down.status).toBe(503);
      expect(down.retryable).toBe(true);
      await expectAppError(p.ping(), 'unavailable');
      await expectAppError(s.batch([{ op: 'put', key: 'k', value: { v: 2 } }]), 'unavailable');
      proxy.accept();
      await waitFor(async () => (await s.get('k'))?.v === 1, { timeoutMs: 10_000, description: 'reads to work again' });
      await p.ping();
    } finally {
      await proxy.close();
    }
  });

  it('retries the connection at start-up with backoff until the server answers, logging each attempt', async () => {
    const { proxy, url } = await startProxy();
    const out = new Lines();
    configureLogging({ format: 'json', destination: out, levels: 'info' });
    try {
      proxy.refuse();
      const connecting = provider({
        url,
        serverSelectionTimeoutMs: 200,
        connectTimeoutMs: 30_000,
      });
      await waitFor(() => out.lines.filter((l) => l.includes('mongodb cannot be reached yet')).length >= 2, {
        timeoutMs: 15_000,
        description: 'two retries logged',
      });
      proxy.accept();
      const p = await connecting;
      await p.ping();
      const attempts = out.lines
        .filter((l) => l.includes('mongodb cannot be reached yet'))
        .map((l) => JSON.parse(l) as { attempt: number; retryInMs: number });
      expect(attempts[0]).toMatchObject({ attempt: 1, retryInMs: 500 });
      expect(attempts[1]).toMatchObject({ attempt: 2, retryInMs: 1_000 });
    } finally {
      await proxy.close();
    }
  });

  it('gives up after connectTimeoutMs with a 503, and refuses a malformed connection string with a 400', async () => {
    const { proxy, url } = await startProxy();
    try {
      proxy.refuse();
      const started = Date.now();
      await expectAppError(
        provider({ url, serverSelectionTimeoutMs: 200, connectTimeoutMs: 1_000 }),
        'unavailable',
        /connecting \(\d attempts? in \d s\)/,
      );
      expect(Date.now() - started).toBeLessThan(5_000);
    } finally {
      await proxy.close();
    }
    await expectAppError(provider({ url: 'mongodb://127.0.0.1:1/x?replicaSet=' }), 'bad_request');
  });
});
