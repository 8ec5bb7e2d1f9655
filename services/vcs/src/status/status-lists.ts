import { randomUUID } from 'node:crypto';
import { badRequest, conflict, notFound } from '@anchor/common/errors';
import { formatDateTimeStamp } from '@anchor/common/jsonld';
import type { Store, StoreProvider } from '@anchor/common/storage';
import type { ProfileRecord, StatusPurpose } from '../profiles/profile-model.js';
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
} from '../status-list/index.js';

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

/** Indices handed out per durable allocator write: a crash skips at most this many (never reuses one). */
const RESERVATION = 64;

/**
 * Status lists per issuer profile (StatusList2021 for VC 1.1 credentials, Bitstring Status List for VC 2.0): index
 * allocation without reuse, the status entries issued credentials carry, revocation and suspension (durable before
 * they are acknowledged), and the list credentials' contents.
 */
export class StatusLists {
  private readonly reserved = new Map<string, { listId: string; indices: number[] }>();
  private readonly locks = new Map<string, Promise<unknown>>();

  private constructor(
    private readonly lists: Store<ListRecord>,
    private readonly allocators: Store<AllocatorRecord>,
    readonly issued: Store<IssuedRecord>,
    private readonly baseUrl: () => string,
  ) {}

  static async open(storage: StoreProvider, baseUrl: () => string): Promise<StatusLists> {
    return new StatusLists(
      await storage.open<ListRecord>('vcs-status-lists'),
      await storage.open<AllocatorRecord>('vcs-status-allocators'),
      await storage.open<IssuedRecord>('vcs-issued-credentials'),
      baseUrl,
    );
  }

  listUrl(profile: string, listId: string): string {
    return `${this.baseUrl()}/${encodeURIComponent(profile)}/status/${encodeURIComponent(listId)}`;
  }

  /** Allocates one entry per purpose and returns the credentialStatus value (one object, or an array for several). */
  async allocate(profile: ProfileRecord, format: ListFormat): Promise<{ refs: StatusEntryRef[]; credentialStatus: unknown }> {
    const purposes = profile.credentialStatusPurposes ?? ['revocation'];
    const refs: StatusEntryRef[] = [];
    for (const purpose of purposes) refs.push(await this.nextEntry(profile.name, format, purpose));
    const entries = refs.map((ref) => statusEntry(ref.format, this.listUrl(profile.name, ref.listId), ref.index, ref.purpose));
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

  /** Takes the next indices of the current list durably; a full list is followed by a new one. */
  private async reserve(profile: string, key: string, format: ListFormat, purpose: StatusPurpose): Promise<{ listId: string; indices: number[] }> {
    const stored = await this.allocators.get(key);
    let record = stored ? { listId: stored.listId, state: checkState(stored.state) } : await this.newList(profile, format, purpose);
    let reserved = reserveIndexes(record.state, RESERVATION);
    if (reserved === undefined) {
      record = await this.newList(profile, format, purpose);
      reserved = reserveIndexes(record.state, RESERVATION) as NonNullable<typeof reserved>;
    }
    await this.allocators.put(key, { listId: record.listId, state: reserved.state });
    return { listId: record.listId, indices: reserved.indexes };
  }

  private async newList(profile: string, format: ListFormat, purpose: StatusPurpose): Promise<AllocatorRecord> {
    const listId = randomUUID();
    const list: ListRecord = { profile, listId, format, purpose, bits: Buffer.from(emptyList()).toString('base64'), version: 0 };
    if (!(await this.lists.insert(`${profile}:${listId}`, list))) throw conflict(`status list ${listId} exists`);
    // The Bitstring Status List spec: indexes SHOULD be assigned in random order (the list reveals less about issuance order).
    return { listId, state: newAllocator({ shuffle: true }) };
  }

  /** Sets or clears a credential's status bit for a purpose; resolves once the change is durable. */
  async update(profile: string, credentialId: string, purpose: StatusPurpose, value: boolean): Promise<void> {
    const record = await this.issued.get(credentialId);
    if (!record || record.profile !== profile) throw notFound(`credential ${credentialId} was not issued by profile ${profile}`);
    const ref = record.status.find((entry) => entry.purpose === purpose);
    if (!ref) throw badRequest(`credential ${credentialId} has no ${purpose} status entry`);
    await this.locked(`list:${profile}:${ref.listId}`, async () => {
      const list = await this.lists.get(`${profile}:${ref.listId}`);
      if (!list) throw notFound(`status list ${ref.listId} not found`);
      const bits = Buffer.from(list.bits, 'base64');
      if (purpose === 'revocation' && !value && bitAt(bits, ref.index))
        throw badRequest(`credential ${credentialId} is revoked; revocation cannot be undone`);
      if (bitAt(bits, ref.index) === value) return;
      const updated = withBit(bits, ref.index, value);
      await this.lists.put(`${profile}:${ref.listId}`, {
        ...list,
        bits: Buffer.from(updated).toString('base64'),
        version: list.version + 1,
      });
    });
  }

  /** The unsigned list credential of a list, and its version (for caching the signed form). */
  async listCredential(profile: ProfileRecord, listId: string): Promise<{ credential: Record<string, unknown>; version: number }> {
    const list = await this.lists.get(`${profile.name}:${listId}`);
    if (!list) throw notFound(`status list ${listId} of profile ${profile.name} not found`);
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
  async readList(profile: string, listId: string): Promise<{ purpose: StatusPurpose; format: ListFormat; bits: Uint8Array } | undefined> {
    const list = await this.lists.get(`${profile}:${listId}`);
    return list ? { purpose: list.purpose, format: list.format, bits: Buffer.from(list.bits, 'base64') } : undefined;
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

