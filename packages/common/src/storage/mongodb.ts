/**
 * The production adapter: one MongoDB collection per store (`<prefix>_<store>`), each record one document
 * `{_id: key, ...record}`, so indexed fields are real fields with real MongoDB indexes, kept in step with the
 * store's declaration at every open (mongodb-indexes.ts).
 *
 * Validation and query planning are the ones of the mem and LMDB adapters (records.ts, query-plan.ts), so a
 * query rejected there is rejected here. Ranges are type-bracketed as MongoDB's own; sort order across
 * types (numbers < strings < booleans) is BSON's.
 *
 * Writes are acknowledged by a majority of the replica set and reads use the majority read concern, so an
 * acknowledged write survives a failover and every read sees only what will not be rolled back. Driver
 * errors leave as AppErrors (mongodb-errors.ts). Start-up retries an unreachable server with backoff. Every
 * driver call has a deadline (mongodb-deadline.ts): past it the caller gets a 503. A client whose server monitor
 * got stuck (mongodb-heartbeat-watch.ts), or one of whose operations outlived the deadline, is replaced by a new one.
 *
 * Batches: on a replica set or sharded cluster a batch runs in a transaction (all or nothing), one bulk write
 * per run of operations on one store. On a server without transactions (a standalone MongoDB, FerretDB) it
 * is an ordered bulk write per run: inserts are checked before anything is written (one query per store),
 * but a failure in the middle (or a racing writer taking an inserted key) leaves the operations before it
 * applied.
 *
 * Expiry: reads hide expired records; one elected replica deletes them periodically (mongodb-sweeper.ts).
 */
import { randomUUID } from 'node:crypto';
import {
  MongoAPIError,
  MongoClient,
  MongoParseError,
  type AnyBulkWriteOperation,
  type ClientSession,
  type Collection,
  type Db,
  type Document,
  type Filter,
  type Sort,
} from 'mongodb';
import { KeyedMutex } from '../concurrency/index.js';
import { badRequest, conflict, errorMessage } from '../errors/index.js';
import { getLogger } from '../log/index.js';
import { entriesOf } from './kv-layout.js';
import { checkStoreName, prefixedName } from './kv-provider.js';
import { encodeCursor, planQuery, planScan, type ScanPlan } from './query-plan.js';
import { checkKey, checkWhere, encodeRecord, expiryOf, isExpired } from './records.js';
import { buildSchema, type StoreSchema } from './schema.js';
import type {
  BatchOp,
  Entry,
  IndexValue,
  Page,
  ProviderBatchOp,
  Query,
  Store,
  StoreOptions,
  StoreProvider,
} from './types.js';
import {
  duplicateKeyIndex,
  isDuplicateKey,
  isTransientMongoError,
  LostPutRace,
  mapMongoError,
  retryLostPutRaces,
} from './mongodb-errors.js';
import { withDeadline } from './mongodb-deadline.js';
import { HeartbeatWatch } from './mongodb-heartbeat-watch.js';
import { indexSpecsOf, reconcileIndexes } from './mongodb-indexes.js';
import { LEASE_COLLECTION, SweeperLease } from './mongodb-sweeper.js';
import { storeUnavailable } from './unavailable.js';

const log = getLogger('mongodb-storage');

export interface MongoStoreOptions {
  /** mongodb:// or mongodb+srv:// connection string. */
  url: string;
  /** Collection name prefix (DATABASE_PREFIX). */
  prefix?: string;
  /** Database name; default: the one in the URL, else "anchor". */
  database?: string;
  /** Batches in transactions: "auto" (when the deployment supports them), "always" or "never". */
  transactions?: 'auto' | 'always' | 'never';
  /**
   * Period of the expiry sweep; 0 disables. Default 60 s. Of all providers on one database and prefix, the
   * one holding the sweeper lease (3 periods long, renewed at each sweep) sweeps.
   */
  sweepIntervalMs?: number;
  onSweepError?: (error: unknown, store: string) => void;
  /** Server selection timeout for connecting and for each operation (default 10 s). */
  serverSelectionTimeoutMs?: number;
  /**
   * How long start-up keeps retrying a server that cannot be reached, with backoff from 0.5 s doubling to
   * 10 s between attempts (default 30 s; 0 makes one attempt).
   */
  connectTimeoutMs?: number;
  /** The driver's timeout for opening one connection (default 10 s); it also bounds a heartbeat. */
  socketConnectTimeoutMs?: number;
  /**
   * How long a call may wait for the server before its caller gets a 503 and the client is replaced (default
   * 30 s: three server selection timeouts; a 2,000-operation batch takes about a second).
   */
  operationTimeoutMs?: number;
}

/** The driver's heartbeat period (its default): how often a server monitor checks its server. */
const HEARTBEAT_FREQUENCY_MS = 10_000;
const OPERATION_TIMEOUT_MS = 30_000;
/** Statements per bulk write on FerretDB (see `writeRun`). */
const FERRET_BULK_SLICE = 8;
/** Key lookups in flight for one `findByIds` on a server that plans only exact `_id` filters. */
const ID_LOOKUPS_IN_FLIGHT = 8;
/** Upserts of one key that lose an insert race are repeated (see `MongoStore.put`); one retry settles it. */
const PUT_RACE_ATTEMPTS = 3;

type RecordDoc = Document & { _id: string };

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

function toDoc(key: string, json: string): RecordDoc {
  return { ...(JSON.parse(json) as Document), _id: key };
}

function fromDoc<T>(doc: Document): T {
  const { _id: _ignored, ...record } = doc;
  return record as T;
}

/** BSON type names that sort after (or before, descending) a value of `v`'s type. */
function typesBeyond(v: IndexValue, direction: 'asc' | 'desc'): string[] {
  const order = ['number', 'string', 'bool'];
  const at = order.indexOf(typeof v === 'boolean' ? 'bool' : typeof v);
  return direction === 'asc' ? order.slice(at + 1) : order.slice(0, at);
}

interface PreparedDoc {
  key: string;
  doc: RecordDoc;
}

class MongoStore<T extends object> implements Store<T> {
  constructor(
    readonly name: string,
    /** Replaced along with the provider's client. */
    public collection: Collection<RecordDoc>,
    private readonly provider: MongoStoreProvider,
    public schema: StoreSchema,
  ) {}

  prepare(key: unknown, value: unknown): PreparedDoc {
    checkKey(key, this.name);
    const json = encodeRecord(value, this.name, this.schema.indexedFields, this.schema.expiryField);
    entriesOf(this.name, this.schema, key, value as object); // the same entry-size limits as the other adapters
    return { key, doc: toDoc(key, json) };
  }

  private liveFilter(now: number): Filter<RecordDoc> {
    const field = this.schema.expiryField;
    return field === undefined ? {} : ({ [field]: { $not: { $lte: now } } } as Filter<RecordDoc>);
  }

  /** Runs a driver call under the deadline, its failure mapped to an AppError naming the store and the operation. */
  private guard<R>(operation: string, call: () => Promise<R>): Promise<R> {
    return this.provider.guarded(`store ${this.name}: ${operation}`, call);
  }

  async get(key: string): Promise<T | undefined> {
    this.provider.assertOpen();
    checkKey(key, this.name);
    const doc = await this.guard('get', () => this.collection.findOne({ _id: key }));
    if (!doc) return undefined;
    const record = fromDoc<T>(doc);
    return isExpired(expiryOf(record, this.schema.expiryField), Date.now()) ? undefined : record;
  }

  async getMany(keys: readonly string[]): Promise<Array<T | undefined>> {
    this.provider.assertOpen();
    if (!Array.isArray(keys)) throw badRequest(`store ${this.name}: getMany takes an array of keys`);
    for (const k of keys) checkKey(k, this.name);
    const now = Date.now();
    const found = new Map<string, T>();
    const docs = await this.guard('getMany', () => this.provider.findByIds(this.collection, [...new Set(keys)]));
    for (const doc of docs) {
      const record = fromDoc<T>(doc);
      if (!isExpired(expiryOf(record, this.schema.expiryField), now)) found.set(doc._id, record);
    }
    return keys.map((k) => found.get(k));
  }

  async put(key: string, value: T): Promise<void> {
    const { doc } = this.prepare(key, value);
    this.provider.assertOpen();
    // Two upserts of one new key can both miss and both insert: the loser meets the unique _id. The record
    // exists by then, so the same upsert again replaces it (servers retry this themselves since 4.2,
    // FerretDB does not). A put never reports a key as taken.
    await this.guard('put', async () => {
      for (let attempt = 1; ; attempt++) {
        try {
          return await this.collection.replaceOne({ _id: key }, doc, { upsert: true });
        } catch (error) {
          if (!isDuplicateKey(error) || attempt >= PUT_RACE_ATTEMPTS) throw error;
        }
      }
    });
  }

  /** Replaces an expired record or creates one; a live record makes the upsert's insert hit the unique _id. */
  insertFilter(key: string, now: number): Filter<RecordDoc> {
    const field = this.schema.expiryField;
    return field === undefined ? { _id: key } : ({ _id: key, [field]: { $lte: now } } as Filter<RecordDoc>);
  }

  async insert(key: string, value: T): Promise<boolean> {
    const { doc } = this.prepare(key, value);
    this.provider.assertOpen();
    try {
      await this.provider.bounded(`store ${this.name}: insert`, async () => {
        if (this.schema.expiryField === undefined) await this.collection.insertOne(doc);
        else await this.collection.replaceOne(this.insertFilter(key, Date.now()), doc, { upsert: true });
      });
      return true;
    } catch (error) {
      if (isDuplicateKey(error)) return false;
      throw mapMongoError(error, `store ${this.name}: insert`);
    }
  }

  async replaceIf(key: string, where: Readonly<Record<string, IndexValue>>, value: T): Promise<boolean> {
    const { doc } = this.prepare(key, value);
    checkWhere(where, this.name);
    this.provider.assertOpen();
    // One conditional replace: the server compares and writes atomically. `$eq` matches a string only as a
    // string, a number only as a number; an array field is excluded, since `$eq` would match its elements.
    const filter = {
      _id: key,
      $and: [
        this.liveFilter(Date.now()),
        ...Object.entries(where).map(([field, expected]) => ({
          [field]: { $eq: expected, $not: { $type: 'array' } },
        })),
      ],
    } as Filter<RecordDoc>;
    const result = await this.guard('replaceIf', () => this.collection.replaceOne(filter, doc));
    return result.matchedCount === 1;
  }

  async delete(key: string): Promise<boolean> {
    this.provider.assertOpen();
    checkKey(key, this.name);
    const doc = await this.guard('delete', () => this.collection.findOneAndDelete({ _id: key }));
    if (!doc) return false;
    return !isExpired(expiryOf(fromDoc<T>(doc), this.schema.expiryField), Date.now());
  }

  async batch(ops: readonly BatchOp<T>[]): Promise<void> {
    if (!Array.isArray(ops)) throw badRequest(`store ${this.name}: a batch is an array of operations`);
    await this.provider.batch(ops.map((o) => ({ ...(o as BatchOp<object>), store: this.name })));
  }

  private filterOf(plan: ScanPlan, now: number): Document[] {
    const clauses: Document[] = [];
    const live = this.liveFilter(now);
    if (Object.keys(live).length > 0) clauses.push(live);
    if (plan.index) {
      const eqFields = plan.index.fields.slice(0, plan.index.fields.length - (plan.tail ? 1 : 0));
      eqFields.forEach((field, i) => {
        const values = [...new Map(plan.prefixes.map((p) => [`${typeof p[i]}:${String(p[i])}`, p[i]!])).values()];
        clauses.push({ [field]: values.length === 1 ? values[0] : { $in: values } });
      });
      if (plan.tail) {
        const r = plan.tail.range;
        if (!r) clauses.push({ [plan.tail.field]: { $exists: true } });
        else {
          const cond: Document = {};
          if (r.lower) cond[r.lower.inclusive ? '$gte' : '$gt'] = r.lower.value;
          if (r.upper) cond[r.upper.inclusive ? '$lte' : '$lt'] = r.upper.value;
          clauses.push({ [plan.tail.field]: cond });
        }
      }
    }
    return clauses;
  }

  private hintOf(plan: ScanPlan): Document {
    const hint: Document = {};
    for (const f of plan.index?.fields ?? []) hint[f] = 1;
    hint['_id'] = 1;
    return hint;
  }

  async query(query: Query = {}): Promise<Page<T>> {
    this.provider.assertOpen();
    const plan = planQuery(this.name, this.schema, query);
    if (plan.empty) return { items: [] };
    const clauses = this.filterOf(plan, Date.now());
    // An anchored, case-sensitive regex with no metacharacters left is an _id index range.
    if (plan.keyPrefix !== undefined) clauses.push({ _id: { $regex: `^${escapeRegExp(plan.keyPrefix)}` } });
    const dir = plan.direction === 'desc' ? -1 : 1;
    const tail = plan.tail?.field;
    if (plan.after) {
      const gt = dir === 1 ? '$gt' : '$lt';
      const { key, value } = plan.after;
      if (tail === undefined || value === undefined) clauses.push({ _id: { [gt]: key } });
      else {
        const beyond = typesBeyond(value, plan.direction);
        const or: Document[] = [{ [tail]: { [gt]: value } }, { [tail]: value, _id: { [gt]: key } }];
        if (beyond.length > 0) or.push({ [tail]: { $type: beyond } });
        clauses.push({ $or: or });
      }
    }
    const sort: Sort = tail === undefined ? { _id: dir } : { [tail]: dir, _id: dir };
    const docs = await this.guard('query', () =>
      this.collection
        .find(clauses.length === 0 ? {} : { $and: clauses })
        .sort(sort)
        .hint(this.hintOf(plan))
        .skip(plan.offset)
        .limit(plan.limit + 1)
        .toArray(),
    );
    const items: Array<Entry<T>> = docs.slice(0, plan.limit).map((d) => ({ key: d._id, value: fromDoc<T>(d) }));
    const page: Page<T> = { items };
    const last = items[items.length - 1];
    if (docs.length > plan.limit && last) {
      const v = tail === undefined ? undefined : ((last.value as Record<string, unknown>)[tail] as IndexValue);
      page.next = encodeCursor(v === undefined ? { key: last.key } : { key: last.key, value: v });
    }
    return page;
  }

  async count(where?: Query['where']): Promise<number> {
    this.provider.assertOpen();
    const plan = planScan(this.name, this.schema, where, undefined);
    if (plan.empty) return 0;
    const clauses = this.filterOf(plan, Date.now());
    return this.guard('count', () =>
      this.collection.countDocuments(clauses.length === 0 ? {} : { $and: clauses }, { hint: this.hintOf(plan) }),
    );
  }

  async sweepExpired(now = Date.now()): Promise<number> {
    this.provider.assertOpen();
    const field = this.schema.expiryField;
    if (field === undefined) return 0;
    const result = await this.guard('sweep', () =>
      this.collection.deleteMany({ [field]: { $lte: now } } as Filter<RecordDoc>),
    );
    return result.deletedCount;
  }
}

interface PlannedWrite {
  store: MongoStore<object>;
  op: 'put' | 'insert' | 'delete';
  key: string;
  doc?: RecordDoc;
}

/** Runs of consecutive operations on one store: each goes to the server as one ordered bulk write. */
function runsOf(planned: readonly PlannedWrite[]): PlannedWrite[][] {
  const runs: PlannedWrite[][] = [];
  for (const w of planned) {
    const last = runs[runs.length - 1];
    if (last && last[0]!.store === w.store) last.push(w);
    else runs.push([w]);
  }
  return runs;
}

const databaseOf = (options: MongoStoreOptions): string =>
  options.database ?? (new URL(options.url.replace(/^mongodb\+srv:/, 'mongodb:')).pathname.slice(1) || 'anchor');

export class MongoStoreProvider implements StoreProvider {
  readonly kind = 'mongodb' as const;
  private readonly stores = new Map<string, MongoStore<object>>();
  private readonly opening = new KeyedMutex();
  private readonly lease: SweeperLease | undefined;
  private sweepTimer: NodeJS.Timeout | undefined;
  private sweeping: Promise<void> | undefined;
  private closed = false;
  private db!: Db;
  private watch: HeartbeatWatch | undefined;
  private retiring: Promise<void> | undefined;
  /** Calls in flight, by the client they were made on: a replaced client's are abandoned (see `replaceClient`). */
  private readonly calls = new Set<{ client: MongoClient; what: string; abandon: (error: unknown) => void }>();
  private replaced = 0;

  private constructor(
    private client: MongoClient,
    private readonly useTransactions: boolean,
    private readonly options: MongoStoreOptions,
    /** The server plans only `{_id: <key>}` filters (FerretDB v1): keys are read one `_id` at a time. */
    readonly idLookupsOnly = false,
  ) {
    this.use(client);
    const interval = options.sweepIntervalMs ?? 60_000;
    if (interval > 0) {
      this.lease = new SweeperLease(
        () => this.db.collection(LEASE_COLLECTION),
        `expiry-sweeper:${options.prefix ?? ''}`,
        randomUUID(),
        3 * interval,
      );
      this.sweepTimer = setInterval(() => this.sweepIfElected(), interval);
      this.sweepTimer.unref();
    }
  }

  /** Connects, retrying a server that cannot be reached (yet) with backoff for up to `connectTimeoutMs`. */
  static async connect(options: MongoStoreOptions): Promise<MongoStoreProvider> {
    if (typeof options.url !== 'string' || !/^mongodb(\+srv)?:\/\//.test(options.url)) {
      throw badRequest('mongodb storage needs a mongodb:// or mongodb+srv:// URL');
    }
    const started = Date.now();
    const deadline = started + (options.connectTimeoutMs ?? 30_000);
    for (let attempt = 1; ; attempt++) {
      try {
        return await MongoStoreProvider.connectOnce(options);
      } catch (error) {
        if (error instanceof MongoParseError || error instanceof MongoAPIError)
          throw badRequest(`mongodb storage: invalid connection string: ${error.message}`);
        const delay = Math.min(500 * 2 ** (attempt - 1), 10_000);
        if (!isTransientMongoError(error) || Date.now() + delay >= deadline) {
          throw mapMongoError(
            error,
            `connecting (${attempt} attempt${attempt === 1 ? '' : 's'} in ${Math.round((Date.now() - started) / 1000)} s)`,
          );
        }
        log.warn('mongodb cannot be reached yet; retrying', { attempt, retryInMs: delay, error: errorMessage(error) });
        await sleep(delay);
      }
    }
  }

  private static newClient(options: MongoStoreOptions): MongoClient {
    return new MongoClient(options.url, {
      serverSelectionTimeoutMS: options.serverSelectionTimeoutMs ?? 10_000,
      connectTimeoutMS: options.socketConnectTimeoutMs ?? 10_000,
      heartbeatFrequencyMS: HEARTBEAT_FREQUENCY_MS,
      writeConcern: { w: 'majority' },
      readConcern: { level: 'majority' },
    });
  }

  private static async connectOnce(options: MongoStoreOptions): Promise<MongoStoreProvider> {
    const client = MongoStoreProvider.newClient(options);
    try {
      await client.connect();
      const db = client.db(databaseOf(options));
      const hello = await db.admin().command({ hello: 1 });
      const supported = typeof hello['setName'] === 'string' || hello['msg'] === 'isdbgrid';
      const mode = options.transactions ?? 'auto';
      if (mode === 'always' && !supported)
        throw badRequest('mongodb transactions requested but the deployment is a standalone server');
      // FerretDB names itself in buildInfo. Its v1 backends turn only a filter that is exactly `{_id: <string>}`
      // into an indexed lookup; any other (`$in` of keys included) reads and decodes every document.
      const build = await db.admin().command({ buildInfo: 1 });
      const ferret = typeof build['ferretdbVersion'] === 'string';
      return new MongoStoreProvider(client, mode === 'always' || (mode === 'auto' && supported), options, ferret);
    } catch (error) {
      await client.close().catch(() => undefined);
      throw error;
    }
  }

  /** Makes `client` the one every store and the lease work through, watching its server monitors. */
  private use(client: MongoClient): void {
    this.client = client;
    this.db = client.db(databaseOf(this.options));
    for (const store of this.stores.values())
      store.collection = this.db.collection<RecordDoc>(prefixedName(this.options.prefix, store.name));
    this.watch?.stop();
    this.watch = new HeartbeatWatch(client, {
      connectTimeoutMs: this.options.socketConnectTimeoutMs ?? 10_000,
      heartbeatFrequencyMs: HEARTBEAT_FREQUENCY_MS,
      onStuck: (server, pendingMs) =>
        this.replaceClient(client, 'a server monitor has been stuck in one heartbeat', { server, pendingMs }),
    });
  }

  private get operationTimeoutMs(): number {
    return this.options.operationTimeoutMs ?? OPERATION_TIMEOUT_MS;
  }

  /**
   * Runs a driver call under the deadline (mongodb-deadline.ts). Past it the caller gets a 503, and the client
   * the call was made on is replaced: one of its connections may be stuck for good, holding a pool slot.
   */
  bounded<R>(what: string, call: () => Promise<R>): Promise<R> {
    const client = this.client;
    const timeoutMs = this.operationTimeoutMs;
    let abandon: (error: unknown) => void = () => undefined;
    const abandoned = new Promise<never>((_, reject) => (abandon = reject));
    abandoned.catch(() => undefined); // the race below reports it; a call that threw at once never raced it
    const entry = { client, what, abandon };
    this.calls.add(entry);
    return withDeadline(
      () => Promise.race([call(), abandoned]),
      timeoutMs,
      () => {
        this.replaceClient(client, 'an operation has had no answer within the deadline', {
          operation: what,
          timeoutMs,
        });
        return storeUnavailable(`mongodb unavailable (${what}): no answer within ${timeoutMs} ms`);
      },
    ).finally(() => this.calls.delete(entry));
  }

  /** `bounded`, its failure mapped to an AppError naming `what` (mongodb-errors.ts). */
  async guarded<R>(what: string, call: () => Promise<R>): Promise<R> {
    try {
      return await this.bounded(what, call);
    } catch (error) {
      throw mapMongoError(error, what);
    }
  }

  /**
   * A new client in place of `client` (it connects at its first operation), unless that one was replaced
   * already. The old one's calls in flight fail at once as unavailable (503, retried by their callers): closing
   * it fails most of them anyway, but not one stuck in a write, which would keep its caller until the deadline.
   */
  private replaceClient(client: MongoClient, why: string, details: Record<string, unknown>): void {
    if (this.closed || client !== this.client) return;
    log.warn(`mongodb: ${why}; replacing the client`, details);
    const old = this.client;
    this.use(MongoStoreProvider.newClient(this.options));
    this.replaced++;
    for (const call of this.calls)
      if (call.client === old)
        call.abandon(storeUnavailable(`mongodb unavailable (${call.what}): the client was replaced (${why})`));
    const previous = this.retiring ?? Promise.resolve();
    // Its close may never end either (a stuck operation's connection): bounded, as every call.
    const close = (): Promise<void> => old.close();
    this.retiring = previous
      .then(() => withDeadline(close, this.operationTimeoutMs, () => new Error('closing the old client')))
      .catch(() => undefined);
  }

  /** How many times the client was replaced (a server monitor stuck, an operation past the deadline). */
  get replacedClients(): number {
    return this.replaced;
  }

  /** Whether batches run in transactions (atomic) or as ordered bulk writes (see the module comment). */
  get atomicBatches(): boolean {
    return this.useTransactions;
  }

  /** Whether this provider is the elected expiry sweeper (held the lease at its last sweep period). */
  get isExpirySweeper(): boolean {
    return this.lease?.isHolder ?? false;
  }

  assertOpen(): void {
    if (this.closed) throw storeUnavailable('mongodb storage provider is closed');
  }

  async open<T extends object>(name: string, options: StoreOptions = {}): Promise<Store<T>> {
    this.assertOpen();
    checkStoreName(name);
    return (await this.opening.run(name, () => this.openNow(name, options))) as unknown as Store<T>;
  }

  async exists(name: string): Promise<boolean> {
    this.assertOpen();
    checkStoreName(name);
    if (this.stores.has(name)) return true;
    const collections = await this.guarded(`store ${name}: exists`, () =>
      this.db.listCollections({ name: prefixedName(this.options.prefix, name) }, { nameOnly: true }).toArray(),
    );
    return collections.length > 0;
  }

  private async openNow(name: string, options: StoreOptions): Promise<MongoStore<object>> {
    const existing = this.stores.get(name);
    const schema = buildSchema(name, options, existing?.schema);
    const collection = existing?.collection ?? this.db.collection<RecordDoc>(prefixedName(this.options.prefix, name));
    await this.guarded(`store ${name}: open (indexes)`, () =>
      reconcileIndexes(collection as unknown as Collection<never>, name, indexSpecsOf(schema)),
    );
    const store = existing ?? new MongoStore<object>(name, collection, this, schema);
    store.schema = schema;
    this.stores.set(name, store);
    return store;
  }

  private plan(ops: readonly ProviderBatchOp[]): PlannedWrite[] {
    if (!Array.isArray(ops)) throw badRequest('provider batch: a batch is an array of operations');
    return ops.map((o, i) => {
      if (typeof o !== 'object' || o === null) throw badRequest(`provider batch: operation ${i} is not an object`);
      const store = typeof o.store === 'string' ? this.stores.get(o.store) : undefined;
      if (!store) throw badRequest(`provider batch: store ${JSON.stringify(o.store)} is not open on this provider`);
      if (o.op === 'delete') {
        checkKey(o.key, store.name);
        return { store, op: 'delete', key: o.key };
      }
      if (o.op !== 'put' && o.op !== 'insert')
        throw badRequest(`provider batch: operation ${i} has unknown op "${String((o as { op: unknown }).op)}"`);
      return { store, op: o.op, key: o.key, doc: store.prepare(o.key, o.value).doc };
    });
  }

  async batch(ops: readonly ProviderBatchOp[]): Promise<void> {
    this.assertOpen();
    const planned = this.plan(ops);
    if (planned.length === 0) return;
    if (this.useTransactions) return this.guarded('batch', () => this.batchInTransaction(planned));
    // Without transactions a batch is many driver calls (a bulk write per run of one store, per slice on
    // FerretDB), each under the deadline on its own: one deadline for them all failed a large batch that was
    // making progress (the observer's 50-operation commit chunks took over 30 s on a loaded FerretDB), and
    // replaced the client under every other call of the process (node README, replicas).
    try {
      await this.batchWithoutTransaction(planned);
    } catch (error) {
      throw mapMongoError(error, 'batch');
    }
  }

  private async batchInTransaction(planned: readonly PlannedWrite[]): Promise<void> {
    // A put that lost an upsert race aborts the transaction without a TransientTransactionError: run it again.
    await retryLostPutRaces(PUT_RACE_ATTEMPTS, async () => {
      const session = this.client.startSession();
      try {
        // withTransaction retries the whole callback on a TransientTransactionError, so `now` is read inside it.
        await session.withTransaction(async () => {
          const now = Date.now();
          for (const run of runsOf(planned)) await this.writeRun(run, now, session, 'batch aborted, nothing written');
        });
      } finally {
        await session.endSession();
      }
    });
  }

  private async batchWithoutTransaction(planned: readonly PlannedWrite[]): Promise<void> {
    await this.bounded('batch: inserts check', () => this.checkInserts(planned));
    const now = Date.now();
    for (const run of runsOf(planned))
      await this.writeRun(
        run,
        now,
        undefined,
        'no transactions on this server: earlier operations of the batch were applied',
      );
  }

  private async writeRun(
    run: readonly PlannedWrite[],
    now: number,
    session: ClientSession | undefined,
    onConflict: string,
    attempt = 1,
  ): Promise<void> {
    const store = run[0]!.store;
    // FerretDB v1 keeps each update statement's read of its target open until the whole command ends, one of
    // its 100 SQLite connections apiece: a 100-statement command, or a few long ones at once, held them all
    // and the server answered nobody again (seen as every call past the deadline, the server idle). There a
    // run goes in ordered slices of FERRET_BULK_SLICE.
    const slice = this.idLookupsOnly ? FERRET_BULK_SLICE : run.length;
    let done = 0;
    try {
      for (; done < run.length; done += slice) {
        const writes = run.slice(done, done + slice).map((w) => this.bulkOp(w, now));
        // In a transaction the whole transaction is under one deadline (batchInTransaction's caller).
        if (session) await store.collection.bulkWrite(writes, { ordered: true, session });
        else
          await this.bounded(`batch: store ${store.name}`, () => store.collection.bulkWrite(writes, { ordered: true }));
      }
    } catch (error) {
      if (!isDuplicateKey(error)) throw error;
      const index = duplicateKeyIndex(error);
      const at = index === undefined ? undefined : done + index;
      const lostPutRace = at !== undefined && run[at]?.op === 'put';
      // A put that lost an upsert race (see MongoStore.put): without a transaction the ordered run stopped
      // there with the writes before it applied, so the run goes on from that put.
      if (session === undefined && lostPutRace && attempt < PUT_RACE_ATTEMPTS)
        return this.writeRun(run.slice(at), now, session, onConflict, attempt + 1);
      const key = at === undefined ? undefined : run[at]?.key;
      const taken = conflict(
        `store ${store.name}: ${key === undefined ? 'a key inserted by the batch' : `key "${key}"`} already exists (${onConflict})`,
        { cause: error },
      );
      // In a transaction the whole transaction is run again (batchInTransaction).
      throw session !== undefined && lostPutRace ? new LostPutRace(taken) : taken;
    }
  }

  private bulkOp(w: PlannedWrite, now: number): AnyBulkWriteOperation<RecordDoc> {
    if (w.op === 'delete') return { deleteOne: { filter: { _id: w.key } } };
    if (w.op === 'put') return { replaceOne: { filter: { _id: w.key }, replacement: w.doc!, upsert: true } };
    if (w.store.schema.expiryField === undefined) return { insertOne: { document: w.doc! } };
    return { replaceOne: { filter: w.store.insertFilter(w.key, now), replacement: w.doc!, upsert: true } };
  }

  /**
   * Without transactions: refuses the batch before writing when an insert's key already holds a live record
   * (as the batch itself leaves it), reading the inserted keys with one query per store.
   */
  private async checkInserts(planned: readonly PlannedWrite[]): Promise<void> {
    const inserted = new Map<MongoStore<object>, Set<string>>();
    for (const w of planned)
      if (w.op === 'insert') inserted.set(w.store, (inserted.get(w.store) ?? new Set()).add(w.key));
    if (inserted.size === 0) return;
    const now = Date.now();
    const idOf = (store: MongoStore<object>, key: string): string => `${store.name}\u0000${key}`;
    const stored = new Set<string>();
    for (const [store, keys] of inserted) {
      const field = store.schema.expiryField;
      const docs = await this.findByIds(store.collection, [...keys], field === undefined ? { _id: 1 } : { [field]: 1 });
      for (const doc of docs) if (!isExpired(expiryOf(doc, field), now)) stored.add(idOf(store, doc._id));
    }
    // Whether each key touched so far holds a live record, as the batch leaves it.
    const live = new Map<string, boolean>();
    for (const w of planned) {
      const id = idOf(w.store, w.key);
      if (w.op === 'insert' && (live.get(id) ?? stored.has(id)))
        throw conflict(`store ${w.store.name}: key "${w.key}" already exists (batch aborted, nothing written)`);
      live.set(id, w.op !== 'delete');
    }
  }

  /**
   * The documents of `ids` (those that exist): one `$in` query, or on a server that plans only exact `_id`
   * filters one lookup per key, ID_LOOKUPS_IN_FLIGHT at a time. There `$in` reads and decodes the whole
   * collection: the node's intake checked each create's queue insert that way, so every create read every
   * queued one (a `$in` in a 600-document collection: 260 ms at load 17, one lookup 6 ms), and
   * the observer's reads of DIDs' latest anchors scan the operation store, which holds every DID.
   */
  async findByIds(
    collection: Collection<RecordDoc>,
    ids: readonly string[],
    projection?: Document,
  ): Promise<RecordDoc[]> {
    if (!this.idLookupsOnly)
      return collection.find({ _id: { $in: [...ids] } }, projection ? { projection } : {}).toArray();
    const found: RecordDoc[] = [];
    let next = 0;
    const lookup = async (): Promise<void> => {
      while (next < ids.length) {
        const doc = await collection.findOne({ _id: ids[next++]! }, projection ? { projection } : {});
        if (doc) found.push(doc);
      }
    };
    await Promise.all(Array.from({ length: Math.min(ID_LOOKUPS_IN_FLIGHT, ids.length) }, lookup));
    return found;
  }

  async ping(): Promise<void> {
    this.assertOpen();
    await this.guarded('ping', () => this.db.admin().command({ ping: 1 }));
  }

  /** One sweep period: sweeps when this provider holds (or takes) the sweeper lease. */
  private sweepIfElected(): void {
    if (this.sweeping || this.closed || !this.lease) return;
    const lease = this.lease;
    this.sweeping = (async () => {
      try {
        if (await this.bounded('expiry sweeper lease', () => lease.acquire())) await this.sweepAll();
      } catch (error) {
        if (!this.closed) this.reportSweepError(error, LEASE_COLLECTION);
      }
    })().finally(() => {
      this.sweeping = undefined;
    });
  }

  private reportSweepError(error: unknown, store: string): void {
    if (this.options.onSweepError) this.options.onSweepError(error, store);
    else log.error('expiry sweep failed', { store, error: errorMessage(error) });
  }

  async sweepAll(now = Date.now()): Promise<number> {
    let removed = 0;
    for (const store of this.stores.values()) {
      if (this.closed) break;
      try {
        removed += await store.sweepExpired(now);
      } catch (error) {
        if (this.closed) break;
        this.reportSweepError(error, store.name);
      }
    }
    return removed;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.watch?.stop();
    if (this.sweepTimer) clearInterval(this.sweepTimer);
    await Promise.allSettled([this.opening.settled(), this.sweeping]);
    // Another replica takes over at its next period instead of after the lease lapses.
    const lease = this.lease;
    if (lease) await this.bounded('expiry sweeper lease', () => lease.release()).catch(() => undefined);
    await this.retiring;
    await this.bounded('close', () => this.client.close());
  }
}

export function createMongoStoreProvider(options: MongoStoreOptions): Promise<StoreProvider> {
  return MongoStoreProvider.connect(options);
}

/** The string as a regular expression matching it literally. */
function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
