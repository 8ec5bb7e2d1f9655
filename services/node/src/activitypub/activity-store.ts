import { queryAll, type ProviderBatchOp, type Store, type StoreProvider } from '@anchor/common/storage';
import type { RefChange, RefType } from './activity-refs.js';
import type { StoredActivity } from './vocabulary.js';

export const ACTIVITY_STORES = {
  activities: 'activity',
  refs: 'activity-ref',
} as const;

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
 * collection page is an index range scan with an offset, and totals (also per activity type, for NodeInfo)
 * are index counts.
 */
export class ActivityStore {
  private constructor(
    readonly provider: StoreProvider,
    readonly activities: Store<StoredActivityRecord>,
    readonly refs: Store<ActivityRef>,
  ) {}

  static async open(provider: StoreProvider): Promise<ActivityStore> {
    return new ActivityStore(
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
    );
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
    return this.refs.insert(op.key, op.value);
  }

  async deleteRef(refType: RefType, objectIri: string, refIri: string): Promise<boolean> {
    return this.refs.delete(ActivityStore.refKey(refType, objectIri, refIri));
  }

  async count(refType: RefType, objectIri: string | undefined, activityType?: string): Promise<number> {
    // Every reference has a timeAdded (epoch microseconds): the range makes the sorted-only indexes answer.
    const timeAdded = { gte: 0 };
    if (objectIri === undefined) return this.refs.count({ refType, timeAdded });
    return this.refs.count(
      activityType !== undefined ? { refType, objectIri, activityType, timeAdded } : { refType, objectIri, timeAdded },
    );
  }

  /** One page of a collection in the order items were added; `objectIri` undefined: across all objects (every like, every share). */
  async page(refType: RefType, objectIri: string | undefined, offset: number, limit: number): Promise<ActivityRef[]> {
    const where: Record<string, string> = objectIri === undefined ? { refType } : { refType, objectIri };
    const page = await this.refs.query({ where, orderBy: { field: 'timeAdded' }, offset, limit });
    return page.items.map((item) => item.value);
  }

  /** Every `refIri` of a collection (followers, witnesses: the recipients of a fan-out), paged through. */
  async allRefIris(refType: RefType, objectIri: string): Promise<string[]> {
    const refs = await queryAll(this.refs, { where: { refType, objectIri }, orderBy: { field: 'timeAdded' } });
    return refs.map((ref) => ref.value.refIri);
  }
}
