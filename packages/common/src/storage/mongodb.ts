/**
 * The production adapter: one MongoDB collection per store (`<prefix>_<store>`), each record one document
 * `{_id: key, ...record}`, so indexed fields are real fields with real MongoDB indexes (created at open:
 * one per materialised prefix index, each followed by `_id` so key-order and (value, key)-order reads are
 * index scans; plus one on the expiry field for the sweeper).
 *
 * Validation and query planning are the ones of the mem and LMDB adapters (records.ts, query-plan.ts), so a
 * query rejected there is rejected here. Ranges are type-bracketed as MongoDB's own; sort order across
 * types (numbers < strings < booleans) is BSON's.
 *
 * Batches: on a replica set or sharded cluster a batch runs in a transaction (all or nothing). On a
 * standalone server, which has no transactions, it is an ordered bulk write: inserts are checked before
 * anything is written, but a failure in the middle (or a racing writer taking an inserted key) leaves the
 * operations before it applied.
 */
import { MongoClient, MongoServerError, type AnyBulkWriteOperation, type ClientSession, type Collection, type Db, type Document, type Filter, type Sort } from 'mongodb';
import { badRequest, conflict, unavailable } from '../errors/index.js';
import { entriesOf } from './kv-layout.js';
import { checkStoreName, prefixedName } from './kv-provider.js';
import { encodeCursor, planQuery, planScan, type ScanPlan } from './query-plan.js';
import { checkKey, encodeRecord, expiryOf, isExpired } from './records.js';
import { buildSchema, type StoreSchema } from './schema.js';
import type { BatchOp, Entry, IndexValue, Page, ProviderBatchOp, Query, Store, StoreOptions, StoreProvider } from './types.js';

export interface MongoStoreOptions {
  /** mongodb:// or mongodb+srv:// connection string. */
  url: string;
  /** Collection name prefix (DATABASE_PREFIX). */
  prefix?: string;
  /** Database name; default: the one in the URL, else "anchor". */
  database?: string;
  /** Batches in transactions: "auto" (when the deployment supports them), "always" or "never". */
  transactions?: 'auto' | 'always' | 'never';
  /** Period of the expiry sweep; 0 disables. Default 60 s. */
  sweepIntervalMs?: number;
  onSweepError?: (error: unknown, store: string) => void;
  /** Server selection timeout for connecting and for each operation (default 10 s). */
  serverSelectionTimeoutMs?: number;
}

type RecordDoc = Document & { _id: string };

const DUPLICATE_KEY = 11000;
const isDuplicateKey = (e: unknown): boolean =>
  e instanceof MongoServerError && (e.code === DUPLICATE_KEY || (e as MongoServerError & { writeErrors?: Array<{ code?: number }> }).writeErrors?.some((w) => w.code === DUPLICATE_KEY) === true);

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
    readonly collection: Collection<RecordDoc>,
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

  async get(key: string): Promise<T | undefined> {
    this.provider.assertOpen();
    checkKey(key, this.name);
    const doc = await this.collection.findOne({ _id: key });
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
    for await (const doc of this.collection.find({ _id: { $in: [...new Set(keys)] } })) {
      const record = fromDoc<T>(doc);
      if (!isExpired(expiryOf(record, this.schema.expiryField), now)) found.set(doc._id, record);
    }
    return keys.map((k) => found.get(k));
  }

  async put(key: string, value: T): Promise<void> {
    const { doc } = this.prepare(key, value);
    this.provider.assertOpen();
    await this.collection.replaceOne({ _id: key }, doc, { upsert: true });
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
      if (this.schema.expiryField === undefined) await this.collection.insertOne(doc);
      else await this.collection.replaceOne(this.insertFilter(key, Date.now()), doc, { upsert: true });
      return true;
    } catch (error) {
      if (isDuplicateKey(error)) return false;
      throw error;
    }
  }

  async delete(key: string): Promise<boolean> {
    this.provider.assertOpen();
    checkKey(key, this.name);
    const doc = await this.collection.findOneAndDelete({ _id: key });
    if (!doc) return false;
    return !isExpired(expiryOf(fromDoc<T>(doc), this.schema.expiryField), Date.now());
  }

  async batch(ops: readonly BatchOp<T>[]): Promise<void> {
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
    const docs = await this.collection
      .find(clauses.length === 0 ? {} : { $and: clauses })
      .sort(sort)
      .hint(this.hintOf(plan))
      .skip(plan.offset)
      .limit(plan.limit + 1)
      .toArray();
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
    return this.collection.countDocuments(clauses.length === 0 ? {} : { $and: clauses }, { hint: this.hintOf(plan) });
  }

  async sweepExpired(now = Date.now()): Promise<number> {
    this.provider.assertOpen();
    const field = this.schema.expiryField;
    if (field === undefined) return 0;
    const result = await this.collection.deleteMany({ [field]: { $lte: now } } as Filter<RecordDoc>);
    return result.deletedCount;
  }
}

interface PlannedWrite {
  store: MongoStore<object>;
  op: 'put' | 'insert' | 'delete';
  key: string;
  doc?: RecordDoc;
}

export class MongoStoreProvider implements StoreProvider {
  readonly kind = 'mongodb' as const;
  private readonly stores = new Map<string, MongoStore<object>>();
  private readonly opening = new Map<string, Promise<unknown>>();
  private sweepTimer: NodeJS.Timeout | undefined;
  private closed = false;

  private constructor(
    private readonly client: MongoClient,
    private readonly db: Db,
    private readonly useTransactions: boolean,
    private readonly options: MongoStoreOptions,
  ) {
    const interval = options.sweepIntervalMs ?? 60_000;
    if (interval > 0) {
      this.sweepTimer = setInterval(() => void this.sweepAll(), interval);
      this.sweepTimer.unref();
    }
  }

  static async connect(options: MongoStoreOptions): Promise<MongoStoreProvider> {
    if (typeof options.url !== 'string' || !/^mongodb(\+srv)?:\/\//.test(options.url)) {
      throw badRequest('mongodb storage needs a mongodb:// or mongodb+srv:// URL');
    }
    const client = new MongoClient(options.url, { serverSelectionTimeoutMS: options.serverSelectionTimeoutMs ?? 10_000 });
    try {
      await client.connect();
      const db = client.db(options.database ?? (new URL(options.url.replace(/^mongodb\+srv:/, 'mongodb:')).pathname.slice(1) || 'anchor'));
      const hello = await db.admin().command({ hello: 1 });
      const supported = typeof hello['setName'] === 'string' || hello['msg'] === 'isdbgrid';
      const mode = options.transactions ?? 'auto';
      if (mode === 'always' && !supported) throw badRequest('mongodb transactions requested but the deployment is a standalone server');
      return new MongoStoreProvider(client, db, mode === 'always' || (mode === 'auto' && supported), options);
    } catch (error) {
      await client.close().catch(() => undefined);
      throw error;
    }
  }

  /** Whether batches run in transactions (atomic) or as ordered bulk writes (see the module comment). */
  get atomicBatches(): boolean {
    return this.useTransactions;
  }

  assertOpen(): void {
    if (this.closed) throw unavailable('mongodb storage provider is closed');
  }

  async open<T extends object>(name: string, options: StoreOptions = {}): Promise<Store<T>> {
    this.assertOpen();
    checkStoreName(name);
    const previous = this.opening.get(name) ?? Promise.resolve();
    const next = previous.catch(() => undefined).then(() => this.openNow(name, options));
    this.opening.set(name, next);
    try {
      return (await next) as unknown as Store<T>;
    } finally {
      if (this.opening.get(name) === next) this.opening.delete(name);
    }
  }

  private async openNow(name: string, options: StoreOptions): Promise<MongoStore<object>> {
    const existing = this.stores.get(name);
    const schema = buildSchema(name, options, existing?.schema);
    const collection = existing?.collection ?? this.db.collection<RecordDoc>(prefixedName(this.options.prefix, name));
    const specs: Array<{ key: Record<string, 1> }> = [...schema.indexes.values()].map((def) => ({
      key: Object.fromEntries([...def.fields.map((f) => [f, 1 as const]), ['_id', 1 as const]]),
    }));
    if (schema.expiryField !== undefined) specs.push({ key: { [schema.expiryField]: 1 } });
    if (specs.length > 0) await collection.createIndexes(specs);
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
      if (o.op !== 'put' && o.op !== 'insert') throw badRequest(`provider batch: operation ${i} has unknown op "${String((o as { op: unknown }).op)}"`);
      return { store, op: o.op, key: o.key, doc: store.prepare(o.key, o.value).doc };
    });
  }

  async batch(ops: readonly ProviderBatchOp[]): Promise<void> {
    this.assertOpen();
    const planned = this.plan(ops);
    if (planned.length === 0) return;
    if (this.useTransactions) {
      const session = this.client.startSession();
      try {
        await session.withTransaction(async () => {
          const now = Date.now();
          for (const w of planned) await this.applyOne(w, now, session);
        });
      } finally {
        await session.endSession();
      }
      return;
    }
    await this.checkInserts(planned);
    const now = Date.now();
    // Consecutive operations on one collection go in one ordered bulk write.
    let i = 0;
    while (i < planned.length) {
      const store = planned[i]!.store;
      const group: AnyBulkWriteOperation<RecordDoc>[] = [];
      for (; i < planned.length && planned[i]!.store === store; i++) group.push(this.bulkOp(planned[i]!, now));
      try {
        await store.collection.bulkWrite(group, { ordered: true });
      } catch (error) {
        if (isDuplicateKey(error)) throw conflict(`store ${store.name}: a key inserted by the batch already exists (standalone MongoDB: earlier operations of the batch were applied)`);
        throw error;
      }
    }
  }

  private bulkOp(w: PlannedWrite, now: number): AnyBulkWriteOperation<RecordDoc> {
    if (w.op === 'delete') return { deleteOne: { filter: { _id: w.key } } };
    if (w.op === 'put') return { replaceOne: { filter: { _id: w.key }, replacement: w.doc!, upsert: true } };
    if (w.store.schema.expiryField === undefined) return { insertOne: { document: w.doc! } };
    return { replaceOne: { filter: w.store.insertFilter(w.key, now), replacement: w.doc!, upsert: true } };
  }

  private async applyOne(w: PlannedWrite, now: number, session: ClientSession): Promise<void> {
    const c = w.store.collection;
    if (w.op === 'delete') await c.deleteOne({ _id: w.key }, { session });
    else if (w.op === 'put') await c.replaceOne({ _id: w.key }, w.doc!, { upsert: true, session });
    else {
      try {
        if (w.store.schema.expiryField === undefined) await c.insertOne(w.doc!, { session });
        else await c.replaceOne(w.store.insertFilter(w.key, now), w.doc!, { upsert: true, session });
      } catch (error) {
        if (isDuplicateKey(error)) throw conflict(`store ${w.store.name}: key "${w.key}" already exists (batch aborted, nothing written)`);
        throw error;
      }
    }
  }

  /** Without transactions: refuses the batch before writing when an insert's key already holds a live record. */
  private async checkInserts(planned: readonly PlannedWrite[]): Promise<void> {
    const now = Date.now();
    // Whether each key touched so far holds a live record, as the batch itself leaves it.
    const live = new Map<string, boolean>();
    for (const w of planned) {
      const id = `${w.store.name}\u0000${w.key}`;
      if (w.op === 'insert') {
        let exists = live.get(id);
        if (exists === undefined) {
          const doc = await w.store.collection.findOne({ _id: w.key });
          exists = doc !== null && !isExpired(expiryOf(fromDoc<object>(doc), w.store.schema.expiryField), now);
        }
        if (exists) throw conflict(`store ${w.store.name}: key "${w.key}" already exists (batch aborted, nothing written)`);
      }
      live.set(id, w.op !== 'delete');
    }
  }

  async ping(): Promise<void> {
    this.assertOpen();
    await this.db.admin().command({ ping: 1 });
  }

  async sweepAll(now = Date.now()): Promise<number> {
    let removed = 0;
    for (const store of this.stores.values()) {
      if (this.closed) break;
      try {
        removed += await store.sweepExpired(now);
      } catch (error) {
        if (this.closed) break;
        (this.options.onSweepError ?? ((e, s) => console.error(`storage: sweeping store ${s} failed:`, e)))(error, store.name);
      }
    }
    return removed;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.sweepTimer) clearInterval(this.sweepTimer);
    await Promise.allSettled([...this.opening.values()]);
    await this.client.close();
  }
}

export function createMongoStoreProvider(options: MongoStoreOptions): Promise<StoreProvider> {
  return MongoStoreProvider.connect(options);
}

/** The string as a regular expression matching it literally. */
function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
