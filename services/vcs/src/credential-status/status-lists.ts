import { randomUUID } from 'node:crypto';
import { AppError, badRequest, conflict, notFound } from '@anchor/common/errors';
import { formatDateTimeStamp } from '@anchor/common/jsonld';
import type { Store, StoreProvider } from '@anchor/common/storage';
import type { ProfileRecord, StatusPurpose } from '../profiles/profile-model.js';
import { GroupedInserts } from './grouped-inserts.js';
import {
  bitAt,
  checkState,
  emptyList,
  newAllocator,
  reserveIndexes,
  statusEntry,
  statusListCredential,
  withBit,
  type AllocatorState,
  type ListFormat,
} from '../status-list-model/index.js';

/** One status entry of an issued credential. */
export interface StatusEntryRef {
  listId: string;
  index: number;
  purpose: StatusPurpose;
  format: ListFormat;
}

/** What the service remembers of an issued credential (revocation is by credential id). */
export interface IssuedRecord {
  profile: string;
  issued: string;
  status: StatusEntryRef[];
  receipt?: { id: string; timestamp: number; signature: string } | undefined;
}

interface ListRecord {
  profile: string;
  listId: string;
  format: ListFormat;
  purpose: StatusPurpose;
  /** The raw bits, base64. */
  bits: string;
  /** Bumped on every change; the signed list credential is cached per version. */
  version: number;
}

interface AllocatorRecord {
  listId: string;
  state: AllocatorState;
}

/**
 * A record that says "this version was written": inserted (insert-if-absent) in the same atomic batch as the write
 * it stands for, so of two processes writing the same version only one succeeds (a compare-and-set over the
 * common store, which has no conditional put).
 */
interface VersionMarker {
  marker: true;
}

/** Attempts at a compare-and-set before giving up (each retry re-reads what the other writer wrote). */
const CAS_ATTEMPTS = 20;

/** Indices handed out per durable allocator write: a crash skips at most this many (never reuses one). */
const RESERVATION = 64;

/**
 * Status lists per issuer profile (StatusList2021 for VC 1.1 credentials, Bitstring Status List for VC 2.0): index
 * allocation without reuse, the status entries issued credentials carry, revocation and suspension (durable before
 * they are acknowledged), and the list credentials' contents.
 */
export class StatusLists {
  private readonly reserved = new Map<string, { listId: string; indices: number[] }>();
  private readonly issuedInserts: GroupedInserts<IssuedRecord>;
  private readonly locks = new Map<string, Promise<unknown>>();

  private constructor(
    private readonly lists: Store<ListRecord | VersionMarker>,
    private readonly allocators: Store<AllocatorRecord | VersionMarker>,
    readonly issued: Store<IssuedRecord>,
    private readonly baseUrl: () => string,
  ) {
    this.issuedInserts = new GroupedInserts(issued);
  }

  /** Indexes an issued credential durably (false: the id was issued before); concurrent calls share a commit. */
  recordIssued(credentialId: string, record: IssuedRecord): Promise<boolean> {
    return this.issuedInserts.insert(credentialId, record);
  }

  static async open(storage: StoreProvider, baseUrl: () => string): Promise<StatusLists> {
    return new StatusLists(
      await storage.open<ListRecord | VersionMarker>('vcs-status-lists'),
      await storage.open<AllocatorRecord | VersionMarker>('vcs-status-allocators'),
      await storage.open<IssuedRecord>('vcs-issued-credentials'),
      baseUrl,
    );
  }

  listUrl(profile: string, listId: string): string {
    return `${this.baseUrl()}/${encodeURIComponent(profile)}/status/${encodeURIComponent(listId)}`;
  }

  /** Allocates one entry per purpose and returns the credentialStatus value (one object, or an array for several). */
  async allocate(
    profile: ProfileRecord,
    format: ListFormat,
  ): Promise<{ refs: StatusEntryRef[]; credentialStatus: unknown }> {
    const purposes = profile.credentialStatusPurposes ?? ['revocation'];
    const refs: StatusEntryRef[] = [];
    for (const purpose of purposes) refs.push(await this.nextEntry(profile.name, format, purpose));
    const entries = refs.map((ref) =>
      statusEntry(ref.format, this.listUrl(profile.name, ref.listId), ref.index, ref.purpose),
    );
    return { refs, credentialStatus: entries.length === 1 ? entries[0] : entries };
  }

  private nextEntry(profile: string, format: ListFormat, purpose: StatusPurpose): Promise<StatusEntryRef> {
    const key = `${profile}:${format}:${purpose}`;
    return this.locked(`alloc:${key}`, async () => {
      let block = this.reserved.get(key);
      if (!block || block.indices.length === 0) {
        block = await this.reserve(profile, key, format, purpose);
        this.reserved.set(key, block);
      }
      return { listId: block.listId, index: block.indices.shift() as number, purpose, format };
    });
  }

  /**
   * Takes the next indices of the current list durably; a full list is followed by a new one. Claimed with a
   * compare-and-set, so processes sharing a store never take the same indices.
   */
  private async reserve(
    profile: string,
    key: string,
    format: ListFormat,
    purpose: StatusPurpose,
  ): Promise<{ listId: string; indices: number[] }> {
    for (let attempt = 1; ; attempt++) {
      const stored = (await this.allocators.get(key)) as AllocatorRecord | undefined;
      let record = stored
        ? { listId: stored.listId, state: checkState(stored.state) }
        : await this.newList(profile, format, purpose);
      let reserved = reserveIndexes(record.state, RESERVATION);
      if (reserved === undefined) {
        record = await this.newList(profile, format, purpose);
        reserved = reserveIndexes(record.state, RESERVATION) as NonNullable<typeof reserved>;
      }
      const next: AllocatorRecord = { listId: record.listId, state: reserved.state };
      if (await this.compareAndPut(this.allocators, key, `${record.listId}:${reserved.state.next}`, next))
        return { listId: record.listId, indices: reserved.indexes };
      if (attempt >= CAS_ATTEMPTS)
        throw conflict(`status index allocation for ${key} keeps colliding with another process`, { retryable: true });
    }
  }

  /** Writes `value` under `key` unless another writer wrote `version` first (see `VersionMarker`). */
  private async compareAndPut<T extends object>(
    store: Store<T | VersionMarker>,
    key: string,
    version: string,
    value: T,
  ): Promise<boolean> {
    try {
      await store.batch([
        { op: 'insert', key: `${key}@${version}`, value: { marker: true } },
        { op: 'put', key, value },
      ]);
      return true;
    } catch (error) {
      if (error instanceof AppError && error.code === 'conflict') return false;
      throw error;
    }
  }

  private async newList(profile: string, format: ListFormat, purpose: StatusPurpose): Promise<AllocatorRecord> {
    const listId = randomUUID();
    const list: ListRecord = {
      profile,
      listId,
      format,
      purpose,
      bits: Buffer.from(emptyList()).toString('base64'),
      version: 0,
    };
    if (!(await this.lists.insert(`${profile}:${listId}`, list))) throw conflict(`status list ${listId} exists`);
    // The Bitstring Status List spec: indexes SHOULD be assigned in random order (the list reveals less about issuance order).
    return { listId, state: newAllocator({ shuffle: true }) };
  }

  /** Sets or clears a credential's status bit for a purpose; resolves once the change is durable. */
  async update(profile: string, credentialId: string, purpose: StatusPurpose, value: boolean): Promise<void> {
    const record = await this.issued.get(credentialId);
    if (!record || record.profile !== profile)
      throw notFound(`credential ${credentialId} was not issued by profile ${profile}`);
    const ref = record.status.find((entry) => entry.purpose === purpose);
    if (!ref) throw badRequest(`credential ${credentialId} has no ${purpose} status entry`);
    const listKey = `${profile}:${ref.listId}`;
    await this.locked(`list:${listKey}`, async () => {
      for (let attempt = 1; ; attempt++) {
        const list = (await this.lists.get(listKey)) as ListRecord | undefined;
        if (!list) throw notFound(`status list ${ref.listId} not found`);
        const bits = Buffer.from(list.bits, 'base64');
        if (purpose === 'revocation' && !value && bitAt(bits, ref.index))
          throw badRequest(`credential ${credentialId} is revoked; revocation cannot be undone`);
        if (bitAt(bits, ref.index) === value) return;
        const updated = {
          ...list,
          bits: Buffer.from(withBit(bits, ref.index, value)).toString('base64'),
          version: list.version + 1,
        };
        // Another process sharing the store may have changed the list since it was read: then read it again.
        if (await this.compareAndPut(this.lists, listKey, String(updated.version), updated)) return;
        if (attempt >= CAS_ATTEMPTS)
          throw conflict(`status list ${ref.listId} keeps changing under another process`, { retryable: true });
      }
    });
  }

  /** The unsigned list credential of a list, and its version (for caching the signed form). */
  async listCredential(
    profile: ProfileRecord,
    listId: string,
  ): Promise<{ credential: Record<string, unknown>; version: number }> {
    const list = (await this.lists.get(`${profile.name}:${listId}`)) as ListRecord | undefined;
    if (!list || !('bits' in list)) throw notFound(`status list ${listId} of profile ${profile.name} not found`);
    const credential = statusListCredential({
      format: list.format,
      id: this.listUrl(profile.name, listId),
      issuer: profile.did,
      purpose: list.purpose,
      bits: Buffer.from(list.bits, 'base64'),
      issued: formatDateTimeStamp(new Date()),
    });
    return { credential, version: list.version };
  }

  /** A list's purpose and bits, read from the store (the service's own lists). */
  async readList(
    profile: string,
    listId: string,
  ): Promise<{ purpose: StatusPurpose; format: ListFormat; bits: Uint8Array } | undefined> {
    const list = (await this.lists.get(`${profile}:${listId}`)) as ListRecord | undefined;
    return list && 'bits' in list
      ? { purpose: list.purpose, format: list.format, bits: Buffer.from(list.bits, 'base64') }
      : undefined;
  }

  /** One at a time per key, in this process. */
  private locked<T>(key: string, work: () => Promise<T>): Promise<T> {
    const previous = this.locks.get(key) ?? Promise.resolve();
    const next = previous.then(work, work);
    const tail = next.catch(() => undefined);
    this.locks.set(key, tail);
    void tail.then(() => {
      if (this.locks.get(key) === tail) this.locks.delete(key);
    });
    return next;
  }
}
