import { AppError, internal, notFound } from '@anchor/common/errors';
import { getLogger } from '@anchor/common/log';
import { EMPTY_TREE_ROOT, HASH_SIZE, MerkleTree } from '@anchor/common/merkle';
import type { ProviderBatchOp, StoreProvider } from '@anchor/common/storage';
import { hashTile, tilePath, tileWidth, type TileRef } from '@anchor/common/tlog';
import { leafHashOf } from '@anchor/common/vct';
import {
  indexKey,
  LEAF_HASH_CHUNK,
  openLogStores,
  parseQueueKey,
  queueKey,
  type LeafRecord,
  type LogStores,
  type TreeHeadRecord,
} from './log-records.js';

const log = getLogger('vct-log');

/** A committed tree head: what STHs are signed from and what every read is answered against. */
export interface TreeHead {
  size: number;
  root: Buffer;
  /** When this head was produced (ms). */
  timestamp: number;
}

/** A new entry to accept: its dedupe identity and its leaf (see `prepareEntry`). */
export interface NewEntry {
  identity: string;
  timestamp: number;
  leafInput: string;
  /** base64 of SHA-256(0x00 || leafInput). */
  leafHash: string;
  extraData: string | null;
}

/** A stored entry as get-entries serves it. */
export interface StoredEntry {
  leafInput: string;
  extraData: string | null;
}

export interface AcceptedEntry {
  /** The logged leaf's timestamp: the original one when the credential was already in the log. */
  timestamp: number;
  duplicate: boolean;
}

export interface IntegrationResult {
  integrated: number;
  /** Accept-to-integration delay of each integrated entry (ms), for the metrics. */
  delaysMs: number[];
}

/**
 * One alias's log: the durable accept path (a pending record per new credential, deduplicated by its
 * N-Quads hash), the integration of pending records into the tree in atomic batches, and the read side
 * (heads, proofs, entries), answered from an in-memory RFC 6962 tree rebuilt from stored leaf hashes.
 *
 * Reads see only the committed head: while a batch is being written the in-memory tree already holds its
 * leaves, but no answer uses them until the batch is durable, and a failed batch rolls them back.
 */
export class TransparencyLog {
  #tree: MerkleTree;
  #head: TreeHead;
  readonly #indexByLeafHash = new Map<string, number>();
  /** Serialises integration and catch-up (the only writers of the tree). */
  #writing: Promise<unknown> = Promise.resolve();
  /** How integration batches are written: the provider's batch, or the sequencer lease's fenced write. */
  #writeOps: (ops: readonly ProviderBatchOp[]) => Promise<void>;

  private constructor(
    readonly alias: string,
    private readonly provider: StoreProvider,
    private readonly stores: LogStores,
    tree: MerkleTree,
    head: TreeHead,
  ) {
    this.#tree = tree;
    this.#head = head;
    this.#writeOps = (ops) => provider.batch(ops);
    this.#indexLeaves(0, head.size);
  }

  /**
   * Writes every integration batch (entries, queue records, leaf hashes, the head) through `write` from now on:
   * the sequencer passes its lease's fenced write, so a replica that lost the lease has its heads refused.
   */
  writeThrough(write: (ops: readonly ProviderBatchOp[]) => Promise<void>): void {
    this.#writeOps = write;
  }

  /**
   * Opens an alias's stores and rebuilds its tree from the stored leaf hashes, checking them against the
   * stored head (a mismatch means the data is damaged and the log refuses to serve it). A new log gets an
   * empty head, written insert-if-absent so replicas agree on its timestamp.
   */
  static async open(provider: StoreProvider, alias: string, now = Date.now()): Promise<TransparencyLog> {
    const stores = await openLogStores(provider, alias);
    let stored = await stores.treeHeads.get(alias);
    if (!stored) {
      const empty: TreeHeadRecord = { size: 0, root: EMPTY_TREE_ROOT.toString('base64'), timestamp: now };
      await stores.treeHeads.insert(alias, empty);
      stored = (await stores.treeHeads.get(alias)) ?? empty;
    }
    const packed = await readLeafHashes(stores, 0, stored.size, alias);
    const tree = MerkleTree.fromLeafHashes(packed);
    const head = toHead(stored);
    if (!tree.root().equals(head.root)) {
      throw new Error(
        `log "${alias}": the stored leaf hashes give root ${tree.root().toString('base64')} at size ${head.size}, but the stored head says ${stored.root}; the data is damaged`,
      );
    }
    log.info('log opened', { alias, size: head.size });
    return new TransparencyLog(alias, provider, stores, tree, head);
  }

  head(): TreeHead {
    return this.#head;
  }

  /**
   * Durably accepts an entry: resolves once its pending record is stored, or, when the same N-Quads
   * (the same identity) were accepted before, with that entry's original timestamp. Insert-if-absent on the
   * identity hash is the one dedupe authority, so concurrent duplicates (on any replica) get one leaf.
   */
  async accept(entry: NewEntry): Promise<AcceptedEntry> {
    const { identity, timestamp, leafInput, leafHash, extraData } = entry;
    const leaf: LeafRecord = { timestamp, leafInput, extraData };
    const names = this.stores.names;
    try {
      await this.provider.batch([
        { store: names.leaves, op: 'insert', key: identity, value: leaf },
        { store: names.queue, op: 'put', key: queueKey(timestamp, identity), value: { leafHash } },
      ]);
      return { timestamp, duplicate: false };
    } catch (error) {
      if (!(error instanceof AppError && error.code === 'conflict')) throw error;
    }
    const existing = await this.stores.leaves.get(identity);
    // Leaf records are never deleted, so the record that won the insert is still there.
    if (!existing) throw internal(`log "${this.alias}": leaf ${identity} vanished after a duplicate insert`);
    // Without transactions the first submission's batch may have stored the leaf and lost its queue record
    // (and answered the client an error): a leaf neither in the tree nor queued is queued again, or it would
    // be answered as logged and never be.
    const existingHash = leafHashOf(existing.leafInput);
    if (this.indexOfLeafHash(existingHash) === undefined) {
      const key = queueKey(existing.timestamp, identity);
      if (!(await this.stores.queue.get(key))) {
        await this.stores.queue.put(key, { leafHash: existingHash.toString('base64') });
      }
    }
    return { timestamp: existing.timestamp, duplicate: true };
  }

  /** Index of a committed leaf by its Merkle leaf hash (the first one, as the original orders by sequence). */
  indexOfLeafHash(leafHash: Uint8Array): number | undefined {
    const index = this.#indexByLeafHash.get(Buffer.from(leafHash).toString('latin1'));
    return index !== undefined && index < this.#head.size ? index : undefined;
  }

  /** Audit path of a committed leaf in the tree of `size` leaves (any size up to the committed one). */
  inclusionProof(index: number, size: number): Buffer[] {
    this.#checkCommitted(size);
    return this.#tree.inclusionProof(index, size);
  }

  consistencyProof(first: number, second: number): Buffer[] {
    this.#checkCommitted(second);
    return this.#tree.consistencyProof(first, second);
  }

  /**
   * A C2SP hash tile's bytes (`@anchor/common/tlog`): only tiles the committed tree holds complete, so a
   * tile never changes once served; others are `not_found`.
   */
  hashTile(tile: TileRef): Buffer {
    if (tile.level === 'entries') throw notFound('an entry bundle is no hash tile');
    const width = tileWidth(this.#head.size, tile.level, tile.index);
    if (tile.width > width)
      throw notFound(`tile ${tilePath(tile)} is beyond the log's tree of size ${this.#head.size}`);
    return hashTile(this.#tree, tile);
  }

  /** Stored entries `start..end` (inclusive), which must be committed. */
  async entries(start: number, end: number): Promise<StoredEntry[]> {
    this.#checkCommitted(end + 1);
    const keys: string[] = [];
    for (let index = start; index <= end; index++) keys.push(indexKey(index));
    const identities = (await this.stores.entries.getMany(keys)).map((record, offset) => {
      if (!record) throw internal(`log "${this.alias}": entry ${start + offset} is missing from the store`);
      return record.identity;
    });
    const leaves = await this.stores.leaves.getMany(identities);
    return leaves.map((leaf, offset) => {
      if (!leaf) throw internal(`log "${this.alias}": the leaf of entry ${start + offset} is missing from the store`);
      return { leafInput: leaf.leafInput, extraData: leaf.extraData };
    });
  }

  /**
   * Integrates up to `limit` pending entries, oldest first, in one atomic store batch; returns how many.
   * The batch inserts the entries insert-if-absent, so a second sequencer racing on the same index makes
   * the whole batch fail instead of overwriting (the caller then catches up from the store). When nothing
   * is pending and the head is older than `maxRootAgeMs`, a fresh head of the same size is written, as
   * Trillian re-signs its root at least once per MaxRootDuration.
   */
  integrate(limit: number, maxRootAgeMs: number, now: () => number = Date.now): Promise<IntegrationResult> {
    return this.#exclusive(() => this.#integrate(limit, maxRootAgeMs, now));
  }

  /** Follows the stored head (a replica that does not sequence, or after a failed batch). */
  catchUp(): Promise<void> {
    return this.#exclusive(() => this.#catchUp());
  }

  async #integrate(limit: number, maxRootAgeMs: number, now: () => number): Promise<IntegrationResult> {
    const resumed = await this.#completeInterrupted(limit, now);
    if (resumed) return resumed;
    const queued = (await this.stores.queue.query({ limit })).items;
    if (queued.length === 0) {
      if (now() - this.#head.timestamp >= maxRootAgeMs)
        await this.#writeHead({ ...this.#head, timestamp: Math.max(now(), this.#head.timestamp) }, []);
      return { integrated: 0, delaysMs: [] };
    }

    const start = this.#head.size;
    const names = this.stores.names;
    // Entries first, in index order: a batch cut short on a store without transactions leaves a prefix of
    // them, which `#completeInterrupted` rolls forward.
    const entryOps: ProviderBatchOp[] = [];
    const queueOps: ProviderBatchOp[] = [];
    const acceptedAt: number[] = [];
    try {
      for (const { key, value } of queued) {
        const { queued: at, identity } = parseQueueKey(key);
        queueOps.push({ store: names.queue, op: 'delete', key });
        const hash = Buffer.from(value.leafHash, 'base64');
        // A record queued again for a leaf already in the tree (see `accept`) is only removed.
        if (this.indexOfLeafHash(hash) !== undefined) continue;
        acceptedAt.push(at);
        this.#tree.append(hash);
        entryOps.push({
          store: names.entries,
          op: 'insert',
          key: indexKey(start + entryOps.length),
          value: { identity },
        });
      }
      if (entryOps.length === 0) {
        await this.#writeOps(queueOps);
        return { integrated: 0, delaysMs: [] };
      }
      await this.#commitAppended(start, start + entryOps.length, [...entryOps, ...queueOps], now);
    } catch (error) {
      this.#rollBack();
      throw error;
    }
    const done = now();
    return { integrated: acceptedAt.length, delaysMs: acceptedAt.map((at) => done - at) };
  }

  /**
   * Finishes an integration batch that was written only in part. On a database without multi-document
   * transactions (MongoDB standalone, FerretDB) a batch is a sequence of ordered writes, so a crash or a lost
   * connection can leave entries written past the head (a prefix of the batch, in index order: entries are
   * written first) with the head unmoved, and some of their queue records already deleted. Those entries
   * were never part of a signed head, so the batch is rolled forward exactly as it was cut: the same leaves
   * at the same indices, their queue records removed, the leaf hashes and the head written. Every write of
   * this batch is idempotent (puts and deletes), so a second interruption is finished the same way. On a
   * transactional store nothing is ever found here: the cost is one read per round.
   */
  async #completeInterrupted(limit: number, now: () => number): Promise<IntegrationResult | undefined> {
    const start = this.#head.size;
    if (!(await this.stores.entries.get(indexKey(start)))) return undefined;
    const identities: string[] = [];
    for (let index = start; identities.length < limit; index += LEAF_HASH_CHUNK) {
      const count = Math.min(LEAF_HASH_CHUNK, limit - identities.length);
      const records = await this.stores.entries.getMany(Array.from({ length: count }, (_, i) => indexKey(index + i)));
      const present = records.findIndex((record) => record === undefined);
      for (const record of present === -1 ? records : records.slice(0, present)) identities.push(record!.identity);
      if (present !== -1) break;
    }
    const leaves = await this.stores.leaves.getMany(identities);
    const names = this.stores.names;
    const ops: ProviderBatchOp[] = [];
    try {
      for (const [offset, leaf] of leaves.entries()) {
        const identity = identities[offset] as string;
        if (!leaf)
          throw internal(`log "${this.alias}": entry ${start + offset} names leaf ${identity}, which is missing`);
        this.#tree.append(leafHashOf(leaf.leafInput));
        ops.push({ store: names.queue, op: 'delete', key: queueKey(leaf.timestamp, identity) });
      }
      await this.#commitAppended(start, start + identities.length, ops, now);
    } catch (error) {
      this.#rollBack();
      throw error;
    }
    log.warn('finished an integration batch that had been written only in part', {
      alias: this.alias,
      from: start,
      entries: identities.length,
    });
    return { integrated: identities.length, delaysMs: [] };
  }

  /** Writes `ops` with the leaf-hash chunks of the leaves appended from `start` to `size` and the new head. */
  async #commitAppended(start: number, size: number, ops: ProviderBatchOp[], now: () => number): Promise<void> {
    for (let chunk = Math.floor(start / LEAF_HASH_CHUNK); chunk * LEAF_HASH_CHUNK < size; chunk++) {
      ops.push({
        store: this.stores.names.leafHashes,
        op: 'put',
        key: indexKey(chunk),
        value: { hashes: this.#chunkHashes(chunk, size) },
      });
    }
    const head: TreeHead = { size, root: this.#tree.root(size), timestamp: Math.max(now(), this.#head.timestamp) };
    await this.#writeHead(head, ops);
  }

  async #writeHead(head: TreeHead, ops: ProviderBatchOp[]): Promise<void> {
    const record: TreeHeadRecord = { size: head.size, root: head.root.toString('base64'), timestamp: head.timestamp };
    await this.#writeOps([...ops, { store: this.stores.names.treeHeads, op: 'put', key: this.alias, value: record }]);
    const previous = this.#head.size;
    this.#head = head;
    this.#indexLeaves(previous, head.size);
  }

  async #catchUp(): Promise<void> {
    const stored = await this.stores.treeHeads.get(this.alias);
    if (!stored) return;
    const current = this.#head;
    if (stored.size < current.size) {
      log.error('the stored tree head is smaller than the served one; keeping the served one', {
        alias: this.alias,
        stored: stored.size,
        served: current.size,
      });
      return;
    }
    this.#rollBack();
    if (stored.size > current.size) {
      const packed = await readLeafHashes(this.stores, current.size, stored.size, this.alias);
      for (let offset = 0; offset < packed.length; offset += HASH_SIZE)
        this.#tree.append(packed.subarray(offset, offset + HASH_SIZE));
    }
    const head = toHead(stored);
    if (!this.#tree.root(stored.size).equals(head.root)) {
      this.#rollBack();
      throw internal(`log "${this.alias}": the stored leaf hashes do not match the stored head at size ${stored.size}`);
    }
    if (stored.size > current.size || stored.timestamp > current.timestamp) {
      this.#head = head;
      this.#indexLeaves(current.size, head.size);
    }
  }

  /** Drops in-memory leaves beyond the committed head (after a failed batch). */
  #rollBack(): void {
    if (this.#tree.size === this.#head.size) return;
    this.#tree = MerkleTree.fromLeafHashes(this.#tree.leafHashes().subarray(0, this.#head.size * HASH_SIZE));
  }

  #chunkHashes(chunk: number, size: number): string {
    const first = chunk * LEAF_HASH_CHUNK;
    const last = Math.min(size, first + LEAF_HASH_CHUNK);
    const packed = Buffer.allocUnsafe((last - first) * HASH_SIZE);
    for (let index = first; index < last; index++) packed.set(this.#tree.leafHash(index), (index - first) * HASH_SIZE);
    return packed.toString('base64');
  }

  #indexLeaves(from: number, to: number): void {
    for (let index = from; index < to; index++) {
      const key = this.#tree.leafHash(index).toString('latin1');
      if (!this.#indexByLeafHash.has(key)) this.#indexByLeafHash.set(key, index);
    }
  }

  #checkCommitted(size: number): void {
    if (size > this.#head.size) throw notFound(`tree size ${size} is beyond the log's size ${this.#head.size}`);
  }

  #exclusive<T>(work: () => Promise<T>): Promise<T> {
    const run = this.#writing.then(work, work);
    this.#writing = run.catch(() => undefined);
    return run;
  }
}

function toHead(record: TreeHeadRecord): TreeHead {
  return { size: record.size, root: Buffer.from(record.root, 'base64'), timestamp: record.timestamp };
}

/** Packed leaf hashes `from..to-1` from the chunk records; a missing or short chunk means damaged data. */
async function readLeafHashes(stores: LogStores, from: number, to: number, alias: string): Promise<Buffer> {
  if (to <= from) return Buffer.alloc(0);
  const firstChunk = Math.floor(from / LEAF_HASH_CHUNK);
  const lastChunk = Math.floor((to - 1) / LEAF_HASH_CHUNK);
  const keys: string[] = [];
  for (let chunk = firstChunk; chunk <= lastChunk; chunk++) keys.push(indexKey(chunk));
  const packed = Buffer.allocUnsafe((to - from) * HASH_SIZE);
  // Chunks are fetched in slices so a million-leaf log does not hold every chunk's base64 text at once.
  const SLICE = 256;
  for (let i = 0; i < keys.length; i += SLICE) {
    const records = await stores.leafHashes.getMany(keys.slice(i, i + SLICE));
    records.forEach((record, offset) => {
      const chunk = firstChunk + i + offset;
      const chunkStart = chunk * LEAF_HASH_CHUNK;
      const needed = Math.min(to, chunkStart + LEAF_HASH_CHUNK) - chunkStart;
      const bytes = record ? Buffer.from(record.hashes, 'base64') : Buffer.alloc(0);
      if (bytes.length < needed * HASH_SIZE) {
        throw new Error(
          `log "${alias}": leaf-hash chunk ${chunk} holds ${bytes.length / HASH_SIZE} hashes, ${needed} are needed for size ${to}; the data is damaged`,
        );
      }
      const copyFrom = Math.max(from, chunkStart);
      bytes.copy(packed, (copyFrom - from) * HASH_SIZE, (copyFrom - chunkStart) * HASH_SIZE, needed * HASH_SIZE);
    });
  }
  return packed;
}
