/**
 * A Store over an ordered key space (mem or LMDB). Writes run in two phases: plan (read the current
 * records, validate, collect every put and remove, throw on a conflict) and then apply, so an aborted batch
 * never leaves a half-written record or a stale index entry behind. Plans normally run on the event loop
 * and are applied as one queued backend write (see kv-writer.ts for why that is exact); while a
 * transaction callback is queued they run inside a transaction instead.
 */
import { badRequest, conflict } from '../errors/index.js';
import { afterPrefix, compareBytes, KeyBuilder, typeTag } from './key-codec.js';
import {
  allExpiryEntries,
  allIndexEntries,
  allRecords,
  decodeIndexEntry,
  entriesOf,
  expiredUpTo,
  indexPrefix,
  keyOfExpiryEntry,
  keyOfRecordKey,
  LAYOUT_FORMAT,
  META_KEY,
  prefixRange,
  recordKey,
  type DerivedEntry,
  type StoreMeta,
} from './kv-layout.js';
import type { KvEntry, KvMutation, KvRange, KvSpace } from './ordered-kv.js';
import type { KvWriter, PlannedWrite, QueuedRecords } from './kv-writer.js';
import { encodeCursor, planQuery, planScan, type Cursor, type QueryPlan, type ScanPlan } from './query-plan.js';
import { checkKey, checkWhere, decodeRecord, encodeRecord, expiryOf, isExpired } from './records.js';
import { indexId, type StoreSchema } from './schema.js';
import type { BatchOp, Entry, IndexValue, Page, Query, Store } from './types.js';

/** Records the sweeper deletes per write transaction (keeps transactions short under a large backlog). */
const SWEEP_CHUNK = 500;

interface PreparedValue {
  json: string;
  /** Derived entries, computed for `schema` (recomputed in the write if the store's schema changed since). */
  entries: DerivedEntry[];
  schema: StoreSchema;
  record: object;
}

/** The plan phase of one backend write, possibly spanning several stores of a provider. */
export class WritePlan {
  private readonly overlay = new Map<KvStore<object>, Map<string, string | null>>();
  private readonly mutations: KvMutation[] = [];
  /** Outcomes of the queued writes whose records this plan read. */
  readonly observed = new Set<Promise<void>>();

  /** `queued`: the records of writes queued but not yet committed, when the plan runs outside a transaction. */
  constructor(
    readonly now: number,
    private readonly queued?: QueuedRecords,
  ) {}

  private current(store: KvStore<object>, key: string): string | undefined {
    // null: deleted earlier in this plan or by a queued write.
    let pending = this.overlay.get(store)?.get(key);
    if (pending === undefined) {
      const queued = this.queued?.(store, key);
      if (queued !== undefined) {
        this.observed.add(queued.written);
        pending = queued.json;
      }
    }
    if (pending !== undefined) return pending ?? undefined;
    return store.space.get(recordKey(key));
  }

  private remember(store: KvStore<object>, key: string, json: string | null): void {
    let m = this.overlay.get(store);
    if (!m) this.overlay.set(store, (m = new Map()));
    m.set(key, json);
  }

  private isLive(store: KvStore<object>, json: string | undefined): json is string {
    if (json === undefined) return false;
    const { expiryField } = store.schema;
    return expiryField === undefined || !isExpired(expiryOf(decodeRecord<object>(json), expiryField), this.now);
  }

  private oldEntries(store: KvStore<object>, key: string, json: string | undefined): DerivedEntry[] {
    if (json === undefined || !derivesEntries(store.schema)) return [];
    return entriesOf(store.name, store.schema, key, decodeRecord<object>(json));
  }

  put(store: KvStore<object>, key: string, value: PreparedValue): void {
    // A store with no index and no expiry keeps nothing derived from the old record: it need not be read.
    const old = derivesEntries(store.schema) ? this.current(store, key) : undefined;
    const entries =
      value.schema === store.schema ? value.entries : entriesOf(store.name, store.schema, key, value.record);
    if (old !== undefined) {
      const fresh = new Set(entries.map((e) => e.key.toString('latin1')));
      for (const e of this.oldEntries(store, key, old)) {
        if (!fresh.has(e.key.toString('latin1'))) this.mutations.push({ space: store.space, key: e.key });
      }
    }
    for (const e of entries) this.mutations.push({ space: store.space, key: e.key, value: e.value });
    this.mutations.push({ space: store.space, key: recordKey(key), value: value.json });
    this.remember(store, key, value.json);
  }

  /** Insert-if-absent: false (and nothing planned) when a live record holds the key. */
  insert(store: KvStore<object>, key: string, value: PreparedValue): boolean {
    if (this.isLive(store, this.current(store, key))) return false;
    this.put(store, key, value);
    return true;
  }

  /** Compare-and-set: false (and nothing planned) unless a live record holds every `where` field's value. */
  replaceIf(
    store: KvStore<object>,
    key: string,
    where: Readonly<Record<string, IndexValue>>,
    value: PreparedValue,
  ): boolean {
    const old = this.current(store, key);
    if (!this.isLive(store, old)) return false;
    const record = decodeRecord<Record<string, unknown>>(old);
    for (const [field, expected] of Object.entries(where)) if (record[field] !== expected) return false;
    this.put(store, key, value);
    return true;
  }

  /** Removes the record (live or expired); returns whether a live record was deleted. */
  delete(store: KvStore<object>, key: string): boolean {
    const old = this.current(store, key);
    if (old === undefined) return false;
    for (const e of this.oldEntries(store, key, old)) this.mutations.push({ space: store.space, key: e.key });
    this.mutations.push({ space: store.space, key: recordKey(key) });
    this.remember(store, key, null);
    return this.isLive(store, old);
  }

  /**
   * A batch's delete, whose outcome nobody is told: where the store derives nothing from its records, the
   * record is removed without being read (removing an absent key changes nothing).
   */
  remove(store: KvStore<object>, key: string): void {
    if (derivesEntries(store.schema)) {
      this.delete(store, key);
      return;
    }
    this.mutations.push({ space: store.space, key: recordKey(key) });
    this.remember(store, key, null);
  }

  /** Removes the record if it is expired at the plan's time (it may have been replaced since a scan found it). */
  deleteIfExpired(store: KvStore<object>, key: string): boolean {
    const old = this.current(store, key);
    if (old === undefined || this.isLive(store, old)) return false;
    this.delete(store, key);
    return true;
  }

  /** Applies the plan inside the open backend transaction. */
  apply(): void {
    for (const m of this.mutations) {
      if (m.value === undefined) m.space.remove(m.key);
      else m.space.put(m.key, m.value);
    }
  }

  get planned(): PlannedWrite {
    return { mutations: this.mutations, records: this.overlay };
  }
}

/** Whether a record of the schema has index or expiry entries besides itself. */
function derivesEntries(schema: StoreSchema): boolean {
  return schema.indexes.size > 0 || schema.expiryField !== undefined;
}

/**
 * Plans a write and applies it: queued when no transaction callback is pending, else inside a transaction.
 * `inTransaction` always plans inside one: on LMDB its reads then see what other processes sharing the
 * environment committed, under LMDB's write lock, so an insert-if-absent is exact across processes.
 */
export async function planAndWrite<R>(
  writer: KvWriter,
  plan: (p: WritePlan) => R,
  now?: number,
  inTransaction = false,
): Promise<R> {
  if (inTransaction || writer.planInTransaction) {
    return writer.transaction(() => {
      const p = new WritePlan(now ?? Date.now());
      const result = plan(p);
      p.apply();
      return result;
    });
  }
  writer.assertUsable();
  const p = new WritePlan(now ?? Date.now(), writer.recordOf);
  let result: R;
  try {
    result = plan(p);
  } catch (error) {
    // A refusal (a conflict) read the queued record that caused it: the caller may read it next.
    await writer.settled(p.observed);
    throw error;
  }
  const planned = p.planned;
  // A write is queued after the writes it read, so it is durable after them; one that writes nothing waits.
  if (planned.mutations.length === 0) await writer.settled(p.observed);
  else await writer.apply(planned);
  return result;
}

/** Hooks a store needs from its provider. */
export interface KvStoreHost {
  readonly writer: KvWriter;
  assertOpen(): void;
  /** Whether writes to the store are planned inside the backend's write transaction (`StoreOptions.exclusive`). */
  isExclusive(store: string): boolean;
}

export class KvStore<T extends object> implements Store<T> {
  constructor(
    readonly name: string,
    readonly space: KvSpace,
    private readonly host: KvStoreHost,
    public schema: StoreSchema,
  ) {}

  prepare(key: unknown, value: unknown): PreparedValue {
    checkKey(key, this.name);
    const schema = this.schema;
    const json = encodeRecord(value, this.name, schema.indexedFields, schema.expiryField);
    return { json, entries: entriesOf(this.name, schema, key, value as object), schema, record: value as object };
  }

  private write<R>(plan: (p: WritePlan) => R): Promise<R> {
    this.host.assertOpen();
    return planAndWrite(this.host.writer, plan, undefined, this.host.isExclusive(this.name));
  }

  private readLive(key: string, now: number): T | undefined {
    const json = this.space.get(recordKey(key));
    if (json === undefined) return undefined;
    const record = decodeRecord<T>(json);
    return isExpired(expiryOf(record, this.schema.expiryField), now) ? undefined : record;
  }

  async get(key: string): Promise<T | undefined> {
    this.host.assertOpen();
    checkKey(key, this.name);
    return this.readLive(key, Date.now());
  }

  async getMany(keys: readonly string[]): Promise<Array<T | undefined>> {
    this.host.assertOpen();
    if (!Array.isArray(keys)) throw badRequest(`store ${this.name}: getMany takes an array of keys`);
    for (const k of keys) checkKey(k, this.name);
    const now = Date.now();
    return keys.map((k) => this.readLive(k, now));
  }

  async put(key: string, value: T): Promise<void> {
    const prepared = this.prepare(key, value);
    await this.write((p) => p.put(this as KvStore<object>, key, prepared));
  }

  async insert(key: string, value: T): Promise<boolean> {
    const prepared = this.prepare(key, value);
    return this.write((p) => p.insert(this as KvStore<object>, key, prepared));
  }

  async replaceIf(key: string, where: Readonly<Record<string, IndexValue>>, value: T): Promise<boolean> {
    const prepared = this.prepare(key, value);
    checkWhere(where, this.name);
    return this.write((p) => p.replaceIf(this as KvStore<object>, key, where, prepared));
  }

  async delete(key: string): Promise<boolean> {
    checkKey(key, this.name);
    return this.write((p) => p.delete(this as KvStore<object>, key));
  }

  async batch(ops: readonly BatchOp<T>[]): Promise<void> {
    const planned = prepareBatch(this.name, ops, () => this as KvStore<object>);
    if (planned.length === 0) return;
    await this.write((p) => runBatch(p, planned));
  }

  async query(query: Query = {}): Promise<Page<T>> {
    this.host.assertOpen();
    const plan = planQuery(this.name, this.schema, query);
    if (plan.empty) return { items: [] };
    const now = Date.now();
    const items: Array<Entry<T>> = [];
    let skip = plan.offset;
    let last: Cursor | undefined;
    let more = false;
    for (const hit of this.scan(plan, plan.after)) {
      if (hit.expiry !== undefined && hit.expiry <= now) continue;
      if (skip > 0) {
        skip--;
        continue;
      }
      if (items.length === plan.limit) {
        more = true;
        break;
      }
      const value = (hit.record as T | undefined) ?? this.readLive(hit.key, now);
      if (value === undefined) continue;
      items.push({ key: hit.key, value });
      last = hit.value === undefined ? { key: hit.key } : { key: hit.key, value: hit.value };
    }
    const page: Page<T> = { items };
    if (more && last) page.next = encodeCursor(last);
    return page;
  }

  async count(where?: Query['where']): Promise<number> {
    this.host.assertOpen();
    const plan = planScan(this.name, this.schema, where, undefined);
    if (plan.empty) return 0;
    const now = Date.now();
    if (!plan.index) {
      const all = this.space.count(allRecords());
      return this.schema.expiryField === undefined ? all : all - this.space.count(expiredUpTo(now));
    }
    let n = 0;
    for (const r of this.ranges(plan, undefined)) {
      if (this.schema.expiryField === undefined) {
        n += this.space.count(r.range);
        continue;
      }
      for (const e of this.space.scan(r.range)) if (!isExpired(parseExpiry(e.value), now)) n++;
    }
    return n;
  }

  async sweepExpired(now = Date.now()): Promise<number> {
    this.host.assertOpen();
    if (this.schema.expiryField === undefined) return 0;
    let removed = 0;
    for (;;) {
      const keys: string[] = [];
      for (const e of this.space.scan(expiredUpTo(now))) {
        keys.push(keyOfExpiryEntry(e.key));
        if (keys.length === SWEEP_CHUNK) break;
      }
      if (keys.length === 0) return removed;
      removed += await planAndWrite(
        this.host.writer,
        (p) => keys.filter((key) => p.deleteIfExpired(this as KvStore<object>, key)).length,
        now,
      );
      if (keys.length < SWEEP_CHUNK) return removed;
    }
  }

  /** The key ranges a scan reads, each with the offset of the tail value in its keys. */
  private ranges(
    plan: ScanPlan & Pick<QueryPlan, 'keyPrefix'>,
    after: Cursor | undefined,
  ): Array<{ range: KvRange; valueOffset: number }> {
    const reverse = plan.direction === 'desc';
    if (!plan.index) {
      const keyPrefix = plan.keyPrefix;
      // Record keys are 01 + the key's UTF-8, which never holds FF: the prefix's range ends at prefix + FF.
      const range = keyPrefix === undefined ? allRecords(reverse) : prefixRange(recordKey(keyPrefix), reverse);
      if (after) narrowAfter(range, recordKey(after.key));
      return [{ range, valueOffset: 1 }];
    }
    const out: Array<{ range: KvRange; valueOffset: number }> = [];
    for (const values of plan.prefixes) {
      const prefix = indexPrefix(plan.index, values);
      const range: KvRange = {
        low: prefix,
        lowInclusive: true,
        high: afterPrefix(prefix),
        highInclusive: false,
        reverse,
      };
      const r = plan.tail?.range;
      if (r) {
        const lowB = new KeyBuilder(prefix.length + 16).bytes(prefix);
        if (r.lower) {
          lowB.value(r.lower.value);
          range.low = r.lower.inclusive ? lowB.build() : afterPrefix(lowB.build());
        } else range.low = lowB.byte(typeTag(r.type)).build();
        const highB = new KeyBuilder(prefix.length + 16).bytes(prefix);
        if (r.upper) {
          highB.value(r.upper.value);
          range.high = r.upper.inclusive ? afterPrefix(highB.build()) : highB.build();
        } else range.high = highB.byte(typeTag(r.type) + 1).build();
      }
      if (after) {
        const position = new KeyBuilder(prefix.length + 32).bytes(prefix);
        if (plan.tail) {
          if (after.value === undefined) throw badRequest(`store ${this.name}: invalid "after" cursor`);
          position.value(after.value);
        }
        narrowAfter(range, position.string(after.key).build());
      }
      if (compareBytes(range.low, range.high) < 0) out.push({ range, valueOffset: prefix.length });
    }
    return out;
  }

  /** Entries of a scan in result order (merging the ranges of `in` lists). */
  private *scan(plan: ScanPlan & Pick<QueryPlan, 'keyPrefix'>, after: Cursor | undefined): Generator<Hit> {
    const ranges = this.ranges(plan, after);
    if (!plan.index) {
      for (const r of ranges) {
        for (const e of this.space.scan(r.range)) {
          const record = decodeRecord<object>(e.value);
          yield { key: keyOfRecordKey(e.key), record, expiry: expiryOf(record, this.schema.expiryField) };
        }
      }
      return;
    }
    const hasTail = plan.tail !== undefined;
    const toHit = (e: KvEntry, offset: number): Hit => {
      const decoded = decodeIndexEntry(e.key, offset, hasTail);
      const hit: Hit = { key: decoded.key, expiry: parseExpiry(e.value) };
      if (decoded.value !== undefined) hit.value = decoded.value;
      return hit;
    };
    if (ranges.length === 1) {
      const only = ranges[0]!;
      for (const e of this.space.scan(only.range)) yield toHit(e, only.valueOffset);
      return;
    }
    // k-way merge by the part of the key after each range's prefix: (tail value, record key).
    const sign = plan.direction === 'desc' ? -1 : 1;
    const heads = ranges.map((r) => {
      const it = this.space.scan(r.range)[Symbol.iterator]();
      return { it, offset: r.valueOffset, cur: it.next() };
    });
    for (;;) {
      let best: (typeof heads)[number] | undefined;
      for (const h of heads) {
        if (h.cur.done) continue;
        if (
          !best ||
          sign * compareBytes(h.cur.value.key.subarray(h.offset), best.cur.value!.key.subarray(best.offset)) < 0
        )
          best = h;
      }
      if (!best) return;
      const entry = best.cur.value as KvEntry;
      best.cur = best.it.next();
      yield toHit(entry, best.offset);
    }
  }

  /**
   * Runs inside a backend write: replaces every derived entry with ones built for `schema` from the
   * records, and adopts `schema` (only once everything has been computed, so a bad record aborts cleanly).
   */
  rebuildInWrite(schema: StoreSchema): void {
    const removals: Buffer[] = [];
    for (const e of this.space.scan(allIndexEntries())) removals.push(e.key);
    for (const e of this.space.scan(allExpiryEntries())) removals.push(e.key);
    const additions: DerivedEntry[] = [];
    for (const e of this.space.scan(allRecords())) {
      additions.push(...entriesOf(this.name, schema, keyOfRecordKey(e.key), decodeRecord<object>(e.value)));
    }
    const meta: StoreMeta = {
      format: LAYOUT_FORMAT,
      indexes: [...schema.indexes.keys()].sort(),
      expiryField: schema.expiryField ?? null,
    };
    this.schema = schema;
    for (const k of removals) this.space.remove(k);
    for (const e of additions) this.space.put(e.key, e.value);
    this.space.put(META_KEY, JSON.stringify(meta));
  }

  /** Whether the derived entries on disk were built for `schema`. */
  builtFor(schema: StoreSchema): boolean {
    const text = this.space.get(META_KEY);
    if (text === undefined) return false;
    const meta = JSON.parse(text) as StoreMeta;
    if (meta.format !== LAYOUT_FORMAT)
      throw new Error(`store ${this.name}: unknown layout format ${String(meta.format)}`);
    return (
      (meta.expiryField ?? undefined) === schema.expiryField &&
      indexId(meta.indexes) === indexId([...schema.indexes.keys()].sort())
    );
  }
}

interface Hit {
  key: string;
  /** The record, when the scan reads records directly rather than an index. */
  record?: object;
  expiry?: number | undefined;
  /** The tail field's value, when the scan has a tail. */
  value?: IndexValue;
}

function parseExpiry(text: string): number | undefined {
  return text === '' ? undefined : Number(text);
}

/** Moves the start of a range (its end, for a reverse scan) to just past `position`. */
function narrowAfter(range: KvRange, position: Buffer): void {
  if (range.reverse) {
    if (compareBytes(position, range.high) < 0 || (compareBytes(position, range.high) === 0 && range.highInclusive)) {
      range.high = position;
      range.highInclusive = false;
    }
  } else if (compareBytes(position, range.low) >= 0) {
    range.low = position;
    range.lowInclusive = false;
  }
}

export interface PlannedOp {
  store: KvStore<object>;
  op: 'put' | 'insert' | 'delete';
  key: string;
  value?: PreparedValue;
}

/** Validates and serialises every op of a batch before the write starts. */
export function prepareBatch<O extends { op: string; key: string; value?: unknown }>(
  label: string,
  ops: readonly O[],
  storeOf: (op: O) => KvStore<object>,
): PlannedOp[] {
  if (!Array.isArray(ops)) throw badRequest(`${label}: a batch is an array of operations`);
  return ops.map((o, i) => {
    if (typeof o !== 'object' || o === null) throw badRequest(`${label}: batch operation ${i} is not an object`);
    const store = storeOf(o);
    if (o.op === 'delete') {
      checkKey(o.key, store.name);
      return { store, op: 'delete', key: o.key };
    }
    if (o.op !== 'put' && o.op !== 'insert')
      throw badRequest(`${label}: batch operation ${i} has unknown op "${String(o.op)}"`);
    return { store, op: o.op, key: o.key, value: store.prepare(o.key, o.value) };
  });
}

export function runBatch(p: WritePlan, ops: readonly PlannedOp[]): void {
  for (const o of ops) {
    if (o.op === 'delete') p.remove(o.store, o.key);
    else if (o.op === 'put') p.put(o.store, o.key, o.value!);
    else if (!p.insert(o.store, o.key, o.value!)) {
      throw conflict(`store ${o.store.name}: key "${o.key}" already exists (batch aborted, nothing written)`);
    }
  }
}
