import { AppError, badRequest } from '@anchor/common/errors';
import { queryAll, type ProviderBatchOp, type Store, type StoreProvider } from '@anchor/common/storage';
import { CoalescedWrites } from '../util/coalesced-writes.js';
import type { RefChange, RefType } from './activity-refs.js';
import type { StoredActivity } from './vocabulary.js';

export const ACTIVITY_STORES = {
  activities: 'activity',
  refs: 'activity-ref',
  counts: 'activity-ref-count',
} as const;

/** A collection's size, kept on write: `<refType>|<objectIri>`, and `<refType>|*` over every object. */
export interface RefCountRecord {
  count: number;
}

/** The counts record saying the references stored before counts were kept have been counted. */
const COUNTED = '~counted';

export interface ActivityRef {
  refType: RefType;
  objectIri: string;
  refIri: string;
  /** The type of the referenced activity (inbox, outbox, like, share): counts by type are index scans. */
  activityType?: string;
  /** Microseconds since the epoch, strictly increasing within a process: the collection order. */
  timeAdded: number;
}

export interface StoredActivityRecord {
  activity: StoredActivity;
  /** When this node first stored it (epoch ms). */
  storedAt: number;
}

let lastTimeAdded = 0;
/** Insertion order for collections: epoch microseconds, never repeating within a process. */
function nextTimeAdded(): number {
  lastTimeAdded = Math.max(Date.now() * 1000, lastTimeAdded + 1);
  return lastTimeAdded;
}

/**
 * Activities by id (`activity`) and the collections they belong to (`activity-ref`), indexed so that a
 * collection page is an index range scan from a keyset seek (or an offset, for numbered pages), and totals (also per activity type, for NodeInfo)
 * are index counts.
 */
export class ActivityStore {
  /** Reference writes go one merged write at a time: each reads the counts it changes. */
  readonly #writes = new CoalescedWrites((ops) => this.#write(ops), {
    maxMerged: 64,
    distinctKeys: true,
    failure: 'alone',
  });

  private constructor(
    readonly provider: StoreProvider,
    readonly activities: Store<StoredActivityRecord>,
    readonly refs: Store<ActivityRef>,
    readonly counts: Store<RefCountRecord>,
  ) {}

  static async open(provider: StoreProvider): Promise<ActivityStore> {
    const store = new ActivityStore(
      provider,
      await provider.open<StoredActivityRecord>(ACTIVITY_STORES.activities),
      // Sorted only: every read sorts or ranges on timeAdded (counts too, see `count`), so each index keeps
      // one entry per reference instead of one per prefix (4 writes per reference added or removed, not 7).
      await provider.open<ActivityRef>(ACTIVITY_STORES.refs, {
        indexes: [
          { fields: ['refType', 'objectIri', 'timeAdded'], sortedOnly: true },
          { fields: ['refType', 'objectIri', 'activityType', 'timeAdded'], sortedOnly: true },
          { fields: ['refType', 'timeAdded'], sortedOnly: true },
        ],
      }),
      await provider.open<RefCountRecord>(ACTIVITY_STORES.counts),
    );
    if (!(await store.counts.get(COUNTED))) await store.#countExisting();
    return store;
  }

  /**
   * Writes a batch (references, activities, anything else) with the collection counts it changes, in the same
   * atomic batch: an added reference already there, or a deleted one that is not, changes no count.
   * Reference writes of this process are merged while one commits (`CoalescedWrites`: no two on one record, a
   * failing merge halved until the spoiling write fails alone, so an insert of an id already stored fails only
   * its own post); serial, they held a node's deliveries to ~140/s (node README). Replicas writing the same
   * collection at the same instant could each count one change the other made (MongoDB), see the README.
   */
  write(ops: readonly ProviderBatchOp[]): Promise<void> {
    return this.#writes.write(ops);
  }

  /** A batch with the count changes of its reference operations, each seeing those before it. */
  async #write(ops: readonly ProviderBatchOp[]): Promise<void> {
    const refOps = ops.filter((op) => op.store === ACTIVITY_STORES.refs);
    if (refOps.length === 0) return this.provider.batch(ops);
    const keys = [...new Set(refOps.map((op) => op.key))];
    const present = new Map((await this.refs.getMany(keys)).map((ref, i) => [keys[i]!, ref !== undefined] as const));
    const deltas = new Map<string, number>();
    const bump = (key: string, by: number) => {
      const [refType, objectIri] = key.split('|');
      for (const counter of [`${refType}|${objectIri}`, `${refType}|*`])
        deltas.set(counter, (deltas.get(counter) ?? 0) + by);
    };
    for (const op of refOps) {
      const there = present.get(op.key) ?? false;
      if (op.op === 'delete') {
        if (there) bump(op.key, -1);
        present.set(op.key, false);
      } else if (op.op === 'put' || op.op === 'insert') {
        if (!there) bump(op.key, 1);
        present.set(op.key, true);
      }
    }
    const changed = [...deltas].filter(([, by]) => by !== 0);
    const current = await this.counts.getMany(changed.map(([key]) => key));
    const countOps: ProviderBatchOp[] = changed.map(([key, by], i) => ({
      store: ACTIVITY_STORES.counts,
      op: 'put',
      key,
      value: { count: Math.max(0, (current[i]?.count ?? 0) + by) } satisfies RefCountRecord,
    }));
    await this.provider.batch([...ops, ...countOps]);
  }

  /** Once, for references stored before counts were kept: one pass over them. */
  async #countExisting(): Promise<void> {
    const counts = new Map<string, number>();
    let after: string | undefined;
    do {
      const page = await this.refs.query({ limit: 10_000, ...(after !== undefined ? { after } : {}) });
      for (const { value } of page.items)
        for (const key of [`${value.refType}|${value.objectIri}`, `${value.refType}|*`])
          counts.set(key, (counts.get(key) ?? 0) + 1);
      after = page.next;
    } while (after !== undefined);
    const ops: ProviderBatchOp[] = [...counts].map(([key, count]) => ({
      store: ACTIVITY_STORES.counts,
      op: 'put',
      key,
      value: { count },
    }));
    ops.push({ store: ACTIVITY_STORES.counts, op: 'put', key: COUNTED, value: { count: 0 } });
    for (let i = 0; i < ops.length; i += 1_000) await this.provider.batch(ops.slice(i, i + 1_000));
  }

  /** A collection's size, from its count record (kept on write): no scan. */
  async size(refType: RefType, objectIri: string | undefined): Promise<number> {
    return (await this.counts.get(`${refType}|${objectIri ?? '*'}`))?.count ?? 0;
  }

  static refKey(refType: RefType, objectIri: string, refIri: string): string {
    return `${refType}|${objectIri}|${refIri}`;
  }

  async get(id: string): Promise<StoredActivity | undefined> {
    return (await this.activities.get(id))?.activity;
  }

  /** The activity with this id if it is in the collection (`refType` of `objectIri`), e.g. in my outbox. */
  async getIfIn(refType: RefType, objectIri: string, id: string): Promise<StoredActivity | undefined> {
    return (await this.hasRef(refType, objectIri, id)) ? this.get(id) : undefined;
  }

  async getMany(ids: readonly string[]): Promise<Array<StoredActivity | undefined>> {
    return (await this.activities.getMany(ids)).map((record) => record?.activity);
  }

  /** Stores the activity unless it is there already (activities never change). */
  putActivityOp(activity: StoredActivity): ProviderBatchOp & { op: 'put' } {
    return {
      store: ACTIVITY_STORES.activities,
      op: 'put',
      key: activity.id,
      value: { activity, storedAt: Date.now() } satisfies StoredActivityRecord,
    };
  }

  addRefOp(
    refType: RefType,
    objectIri: string,
    refIri: string,
    activityType?: string,
  ): ProviderBatchOp & { op: 'put'; value: ActivityRef } {
    const value: ActivityRef = { refType, objectIri, refIri, timeAdded: nextTimeAdded() };
    if (activityType !== undefined) value.activityType = activityType;
    return { store: ACTIVITY_STORES.refs, op: 'put', key: ActivityStore.refKey(refType, objectIri, refIri), value };
  }

  deleteRefOp(refType: RefType, objectIri: string, refIri: string): ProviderBatchOp {
    return { store: ACTIVITY_STORES.refs, op: 'delete', key: ActivityStore.refKey(refType, objectIri, refIri) };
  }

  /** A change as part of an atomic batch (an added reference is put: it takes its place now). */
  changeOp(change: RefChange): ProviderBatchOp {
    return change.op === 'add'
      ? this.addRefOp(change.refType, change.objectIri, change.refIri, change.activityType)
      : this.deleteRefOp(change.refType, change.objectIri, change.refIri);
  }

  /**
   * Changes as operations of an atomic batch with `apply`'s meaning: an added reference already there keeps
   * its place in the collection (it is left out). Only for references no concurrent writer adds (those of
   * one activity's handling), since the check happens before the batch.
   */
  async changeOpsKeepingPlace(changes: readonly RefChange[]): Promise<ProviderBatchOp[]> {
    const ops: ProviderBatchOp[] = [];
    for (const change of changes) {
      if (change.op === 'delete') ops.push(this.deleteRefOp(change.refType, change.objectIri, change.refIri));
      else if (!(await this.hasRef(change.refType, change.objectIri, change.refIri)))
        ops.push(this.addRefOp(change.refType, change.objectIri, change.refIri, change.activityType));
    }
    return ops;
  }

  /** Applies changes one by one; an added reference already there keeps its place in the collection. */
  async apply(changes: readonly RefChange[]): Promise<void> {
    for (const change of changes) {
      if (change.op === 'add') await this.addRef(change.refType, change.objectIri, change.refIri, change.activityType);
      else await this.deleteRef(change.refType, change.objectIri, change.refIri);
    }
  }

  async hasRef(refType: RefType, objectIri: string, refIri: string): Promise<boolean> {
    return (await this.refs.get(ActivityStore.refKey(refType, objectIri, refIri))) !== undefined;
  }

  /**
   * Adds a reference unless it exists, keeping its place in the collection (a second Follow from a follower
   * does not move it). Returns whether it was added.
   */
  async addRef(refType: RefType, objectIri: string, refIri: string, activityType?: string): Promise<boolean> {
    const op = this.addRefOp(refType, objectIri, refIri, activityType);
    try {
      await this.write([{ ...op, op: 'insert' }]);
      return true;
    } catch (error) {
      if (error instanceof AppError && error.code === 'conflict') return false;
      throw error;
    }
  }

  async deleteRef(refType: RefType, objectIri: string, refIri: string): Promise<boolean> {
    if (!(await this.hasRef(refType, objectIri, refIri))) return false;
    await this.write([this.deleteRefOp(refType, objectIri, refIri)]);
    return true;
  }

  async count(refType: RefType, objectIri: string | undefined, activityType?: string): Promise<number> {
    // Every reference has a timeAdded (epoch microseconds): the range makes the sorted-only indexes answer.
    const timeAdded = { gte: 0 };
    if (objectIri === undefined) return this.refs.count({ refType, timeAdded });
    return this.refs.count(
      activityType !== undefined ? { refType, objectIri, activityType, timeAdded } : { refType, objectIri, timeAdded },
    );
  }

  /**
   * One page of a collection in the order items were added; `objectIri` undefined: across all objects (every
   * like, every share). `after` (a previous page's `next`) seeks to the page's start in the index, so a page's
   * cost does not grow with its depth; `offset` skips (numbered pages). `next` is there when more follow.
   */
  async page(
    refType: RefType,
    objectIri: string | undefined,
    { offset = 0, after, limit }: { offset?: number; after?: string; limit: number },
  ): Promise<{ refs: ActivityRef[]; next?: string }> {
    const where: Record<string, string> = objectIri === undefined ? { refType } : { refType, objectIri };
    let page;
    try {
      page = await this.refs.query({
        where,
        orderBy: { field: 'timeAdded' },
        limit,
        ...(after !== undefined ? { after } : { offset }),
      });
    } catch (error) {
      if (after !== undefined && error instanceof AppError && error.code === 'bad_request')
        throw badRequest('query parameter after is not a cursor of this collection (pass a next link as it is)');
      throw error;
    }
    const refs = page.items.map((item) => item.value);
    return page.next !== undefined ? { refs, next: page.next } : { refs };
  }

  /** Every `refIri` of a collection (followers, witnesses: the recipients of a fan-out), paged through. */
  async allRefIris(refType: RefType, objectIri: string): Promise<string[]> {
    const refs = await queryAll(this.refs, { where: { refType, objectIri }, orderBy: { field: 'timeAdded' } });
    return refs.map((ref) => ref.value.refIri);
  }
}
