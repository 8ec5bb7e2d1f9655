import { AppError, internal, notFound } from '@anchor/common/errors';
import { getLogger } from '@anchor/common/log';
import { EMPTY_TREE_ROOT, HASH_SIZE } from '@anchor/common/merkle';
import type { ProviderBatchOp, StoreProvider } from '@anchor/common/storage';
import { tilePath, tileWidth, type TileRef } from '@anchor/common/tlog';
import { leafHashOf } from '@anchor/common/vct';
import {
  indexKey,
  LEAF_INDEX_BUILT,
  openLogStores,
  parseQueueKey,
  queueKey,
  type LeafRecord,
  type LogStores,
  type TreeHeadRecord,
} from './log-records.js';
import { CoalescedRounds } from '../coalesced-rounds.js';
import { ForwardHead, type TreeHead } from './forward-head.js';
import { readLeafHashes, TileTree } from './tile-tree.js';

export type { TreeHead } from './forward-head.js';

const log = getLogger('vct-log');

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
  /**
   * Set when the batch stopped before taking what it could (its time bound came, or it finished a batch that
   * had been cut short): entries may be waiting, integrate again without waiting for the interval.
   */
  stoppedEarly?: true;
}

/**
 * Most queue records per write of a time-bounded batch: some 400 writes (an entry, a queue delete and a
 * leaf-index record each); the lease link each write carries adds two, under 1 %. A slower store gets smaller
 * slices (see `#sliceSize`).
 */
export const INTEGRATION_SLICE = 128;

/** A batch's time bound (`until`, by its clock) and the time each of its slices should fit in. */
interface Bound {
  until: number;
  sliceMs: number;
}

/** One slice of a batch: the leaves it appends, its records (entries first), and when its entries were accepted. */
interface Slice {
  /** Records read for it (queue records, or entries of a roll-forward). */
  records: number;
  hashes: Buffer[];
  ops: ProviderBatchOp[];
  acceptedAt: number[];
}

/**
 * One alias's log: the durable accept path (a pending record per new credential, deduplicated by its
 * N-Quads hash), the integration of pending records into the tree in atomic batches, and the read side
 * (heads, proofs, entries), answered from the RFC 6962 tree kept as hash tiles in the store (`TileTree`):
 * start-up reads the tree's right edge, O(log n) records, and memory holds that edge and a bounded cache.
 *
 * Reads see only the committed head: while a batch is being written the tree's edge already holds its
 * leaves, but no answer uses them until the batch is durable, and a failed batch rolls them back.
 */
export class TransparencyLog {
  readonly #tree: TileTree;
  readonly #served: ForwardHead;
  /** Whether the head in memory is the newest in the store (see `readsFromMemoryWhile`). */
  #inMemoryIsNewest: () => boolean = () => true;
  /**
   * A head write in flight, or one that failed: the store may hold a head the memory does not yet (its commit
   * comes before its answer), which a replica that reads the store could serve first. Served from memory only
   * once it settles; after a failure, from the store until a catch-up.
   */
  #headWrite: Promise<unknown> | undefined;
  #headWriteFailed = false;
  /** Whether other replicas serve heads from the same store (`readsFromMemoryWhile` was called). */
  #replicated = false;
  /** Re-reads of the stored head for `currentHead`: a burst of reads shares one. */
  readonly #rereads = new CoalescedRounds(() => this.catchUp());
  /** Serialises integration and catch-up (the only writers of the tree). */
  #writing: Promise<unknown> = Promise.resolve();
  /** How integration batches are written: the provider's batch, or the sequencer lease's fenced write. */
  #writeOps: (ops: readonly ProviderBatchOp[]) => Promise<void>;
  /**
   * Records per slice of a time-bounded batch: a slice (its reads and its write) is kept to half the batch's
   * bound, so that the lease link each write carries comes well within the lease, however slow the store is
   * (128 records took 20-40 s at load 35 on FerretDB). Learnt from each slice, kept across batches.
   */
  #sliceSize = INTEGRATION_SLICE;

  private constructor(
    readonly alias: string,
    private readonly provider: StoreProvider,
    private readonly stores: LogStores,
    tree: TileTree,
    head: TreeHead,
  ) {
    this.#tree = tree;
    this.#served = new ForwardHead(head);
    this.#writeOps = (ops) => provider.batch(ops);
  }

  /**
   * Writes every integration batch (entries, queue records, leaf hashes, the head) through `write` from now on:
   * the sequencer passes its lease's fenced write, so a replica that lost the lease has its heads refused.
   */
  writeThrough(write: (ops: readonly ProviderBatchOp[]) => Promise<void>): void {
    this.#writeOps = write;
  }

  /**
   * Opens an alias's stores and reads its tree's right edge (one leaf-hash chunk and one tile per level),
   * checking its root against the stored head. A log stored before tiles and the leaf index existed (or whose
   * edge tiles are missing or short) gets them built once from the leaf hashes, in one pass, then written; a
   * root that still differs means the data is damaged and the log refuses to serve it. A new log gets an
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
    const head = toHead(stored);
    const tree = new TileTree(stores, alias);
    const indexed = (await stores.leafIndex.get(LEAF_INDEX_BUILT)) !== undefined;
    const index = indexed ? async () => undefined : leafIndexer(provider, stores);
    let root = await tree.load(head.size);
    if (!root?.equals(head.root)) {
      const started = Date.now();
      const tileOps = await tree.rebuild(head.size, async (from, packed, innerOps) => {
        await provider.batch(innerOps);
        await index(from, packed);
      });
      await provider.batch(tileOps);
      root = await tree.load(head.size);
      log.warn('built the hash tiles of a log from its leaf hashes', {
        alias,
        size: head.size,
        ms: Date.now() - started,
      });
    } else if (!indexed) {
      for (let from = 0; from < head.size; from += LEAF_INDEX_SLICE)
        await index(from, await readLeafHashes(stores, from, Math.min(head.size, from + LEAF_INDEX_SLICE), alias));
    }
    if (!root?.equals(head.root)) {
      throw new Error(
        `log "${alias}": the stored leaf hashes give root ${root?.toString('base64')} at size ${head.size}, but the stored head says ${stored.root}; the data is damaged`,
      );
    }
    if (!indexed) await stores.leafIndex.put(LEAF_INDEX_BUILT, { index: head.size });
    log.info('log opened', { alias, size: head.size });
    return new TransparencyLog(alias, provider, stores, tree, head);
  }

  /** The head in memory: this replica's own last head, or the last it read (it never moves backwards). */
  head(): TreeHead {
    return this.#head;
  }

  get #head(): TreeHead {
    return this.#served.head;
  }

  /**
   * The head to answer a client with: the one in memory while `inMemoryIsNewest()` holds (this replica
   * writes the heads), else the stored head as read after this call (one read shared by the calls that
   * arrived meanwhile). A monitor that got a head from any replica then gets one at least as new from this
   * one, and the proofs and entries up to it.
   */
  async currentHead(): Promise<TreeHead> {
    if (this.#replicated && this.#inMemoryIsNewest()) await this.#headWrite?.catch(() => undefined);
    if (!this.#inMemoryIsNewest() || (this.#replicated && this.#headWriteFailed)) await this.#rereads.run();
    return this.#head;
  }

  /**
   * Says when the head in memory may be served without reading the store: always on a store with one writer
   * (the default); with replicas, the sequencer's answer to "do I hold the lease and have I caught up".
   */
  readsFromMemoryWhile(inMemoryIsNewest: () => boolean): void {
    this.#replicated = true;
    this.#inMemoryIsNewest = inMemoryIsNewest;
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
    if ((await this.indexOfLeafHash(existingHash)) === undefined) {
      const key = queueKey(existing.timestamp, identity);
      if (!(await this.stores.queue.get(key))) {
        await this.stores.queue.put(key, { leafHash: existingHash.toString('base64') });
      }
    }
    return { timestamp: existing.timestamp, duplicate: true };
  }

  /** Index of a committed leaf by its Merkle leaf hash (the first one, as trustbloc/vct orders by sequence). */
  async indexOfLeafHash(leafHash: Uint8Array): Promise<number | undefined> {
    const record = await this.stores.leafIndex.get(leafIndexKey(leafHash));
    // A record past the head is from a batch not yet committed (or cut short): not in the tree yet.
    return record !== undefined && record.index < this.#head.size ? record.index : undefined;
  }

  /** Audit path of a committed leaf in the tree of `size` leaves (any size up to the committed one). */
  async inclusionProof(index: number, size: number): Promise<Buffer[]> {
    this.#checkCommitted(size);
    return this.#tree.inclusionProof(index, size);
  }

  async consistencyProof(first: number, second: number): Promise<Buffer[]> {
    this.#checkCommitted(second);
    return this.#tree.consistencyProof(first, second);
  }

  /**
   * A C2SP hash tile's bytes (`@anchor/common/tlog`): only tiles the committed tree holds complete, so a
   * tile never changes once served; others are `not_found`.
   */
  async hashTile(tile: TileRef): Promise<Buffer> {
    if (tile.level === 'entries') throw notFound('an entry bundle is no hash tile');
    const width = tileWidth(this.#head.size, tile.level, tile.index);
    if (tile.width > width)
      throw notFound(`tile ${tilePath(tile)} is beyond the log's tree of size ${this.#head.size}`);
    return this.#tree.tile(tile.level, tile.index, tile.width);
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
   *
   * With `until` (a time by `now`) the batch is bounded by time as well: its records are written in slices of
   * at most `INTEGRATION_SLICE` queue records, one write each (so each carries the sequencer's lease link,
   * renewing it), each slice kept to half the bound by the time the last ones took; once `until` has come no further slice is taken, the head is committed at the slices taken
   * (`stoppedEarly`), and the rest stays queued for the next batch. A slice written without its head (a crash, a
   * fenced write) is a batch cut short, rolled forward by the next batch as on a store without transactions.
   */
  integrate(
    limit: number,
    maxRootAgeMs: number,
    now: () => number = Date.now,
    until = Number.POSITIVE_INFINITY,
  ): Promise<IntegrationResult> {
    return this.#exclusive(() => this.#integrate(limit, maxRootAgeMs, now, until));
  }

  /** Follows the stored head (a replica that does not sequence, or after a failed batch). */
  catchUp(): Promise<void> {
    return this.#exclusive(() => this.#catchUp());
  }

  async #integrate(limit: number, maxRootAgeMs: number, now: () => number, until: number): Promise<IntegrationResult> {
    // Half the bound, from the batch's start (its reads of the queue count against the bound, not the slices).
    const bound = { until, sliceMs: (until - now()) / 2 };
    const resumed = await this.#completeInterrupted(limit, now, bound);
    if (resumed) return resumed;
    const queued = (await this.stores.queue.query({ limit })).items;
    if (queued.length === 0) {
      if (now() - this.#head.timestamp >= maxRootAgeMs)
        await this.#writeHead({ ...this.#head, timestamp: Math.max(now(), this.#head.timestamp) }, []);
      return { integrated: 0, delaysMs: [] };
    }

    const start = this.#head.size;
    const names = this.stores.names;
    const inBatch = new Set<string>();
    let appended = 0;
    // Each slice's leaf-index records are read as the slice is taken: on FerretDB a read is one lookup per
    // key, and a batch bounded by time may take only its first slices of what it read from the queue.
    let from = 0;
    const slice = async (size: number): Promise<Slice | undefined> => {
      const records = queued.slice(from, from + size);
      from += records.length;
      if (records.length === 0) return undefined;
      const hashes = records.map(({ value }) => Buffer.from(value.leafHash, 'base64'));
      const known = await this.stores.leafIndex.getMany(hashes.map((hash) => leafIndexKey(hash)));
      // Entries first, in index order (here and across slices): a batch cut short on a store without
      // transactions leaves a prefix of them, which `#completeInterrupted` rolls forward.
      const entryOps: ProviderBatchOp[] = [];
      const queueOps: ProviderBatchOp[] = [];
      const indexOps: ProviderBatchOp[] = [];
      const taken: Slice = { records: records.length, hashes: [], ops: [], acceptedAt: [] };
      for (const [position, { key }] of records.entries()) {
        const { queued: at, identity } = parseQueueKey(key);
        queueOps.push({ store: names.queue, op: 'delete', key });
        const hash = hashes[position]!;
        const hashKey = leafIndexKey(hash);
        // A record queued again for a leaf already in the tree (see `accept`) is only removed.
        const record = known[position];
        if ((record !== undefined && record.index < start) || inBatch.has(hashKey)) continue;
        inBatch.add(hashKey);
        taken.acceptedAt.push(at);
        taken.hashes.push(hash);
        const index = start + appended++;
        entryOps.push({ store: names.entries, op: 'insert', key: indexKey(index), value: { identity } });
        indexOps.push({ store: names.leafIndex, op: 'put', key: hashKey, value: { index } });
      }
      taken.ops = [...entryOps, ...queueOps, ...indexOps];
      return taken;
    };
    const taken = await this.#commitSlices(slice, now, bound);
    const done = now();
    const delaysMs = taken.slices.flatMap((each) => each.acceptedAt.map((at) => done - at));
    const left = taken.stoppedEarly && from < queued.length;
    return { integrated: delaysMs.length, delaysMs, ...(left ? { stoppedEarly: true } : {}) };
  }

  /**
   * Takes slices from `next(size)` (at most `size` records each) until it gives none: appends their leaves and
   * writes their records, then the touched tiles and the new head. All in one write when `until` is infinite
   * (slices of `INTEGRATION_SLICE`); else one write per slice and one for the head, taking no further slice
   * once `until` has come (at least one is always taken; then `stoppedEarly`), each slice's size set from
   * the time the one before took. When no slice appended a leaf (every record was
   * of a leaf already in the tree) only their records are written. On a failure the tree is read back to the
   * committed head and the error rethrown.
   */
  async #commitSlices(
    next: (size: number) => Promise<Slice | undefined>,
    now: () => number,
    { until, sliceMs }: Bound,
  ): Promise<{ slices: Slice[]; stoppedEarly: boolean }> {
    const bounded = Number.isFinite(until);
    const slices: Slice[] = [];
    const pending: ProviderBatchOp[] = [];
    let stoppedEarly = false;
    let size = bounded ? this.#sliceSize : INTEGRATION_SLICE;
    try {
      for (;;) {
        if (bounded && slices.length > 0 && now() >= until) {
          stoppedEarly = true;
          break;
        }
        const started = now();
        const slice = await next(size);
        if (!slice) break;
        for (const hash of slice.hashes) this.#tree.append(hash);
        slices.push(slice);
        if (!bounded) {
          pending.push(...slice.ops);
          continue;
        }
        // Each slice on its own, the head after them: what a slice costs (its reads and its write) is then
        // measured alone, the head's tiles and the queue read not counted in it.
        await this.#writeOps(slice.ops);
        // A short last slice that was quick says little; a bound already past at the start, nothing.
        const tookMs = now() - started;
        if (sliceMs > 0 && (slice.records >= size || tookMs > sliceMs))
          size = this.#sliceSize = nextSliceSize(slice.records, tookMs, sliceMs);
      }
      if (this.#tree.size > this.#head.size) await this.#commitAppended(pending, now, bounded);
      else if (pending.length > 0) await this.#writeOps(pending);
    } catch (error) {
      await this.#rollBack();
      throw error;
    }
    return { slices, stoppedEarly };
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
  async #completeInterrupted(limit: number, now: () => number, bound: Bound): Promise<IntegrationResult | undefined> {
    const start = this.#head.size;
    if (!(await this.stores.entries.get(indexKey(start)))) return undefined;
    const names = this.stores.names;
    let found = 0;
    let ended = false;
    // The entries past the head, a slice at a time, up to the first one missing (or `limit`).
    const slice = async (size: number): Promise<Slice | undefined> => {
      const count = Math.min(size, limit - found);
      if (ended || count <= 0) return undefined;
      const from = start + found;
      const records = await this.stores.entries.getMany(Array.from({ length: count }, (_, i) => indexKey(from + i)));
      const present = records.findIndex((record) => record === undefined);
      if (present !== -1) ended = true;
      const identities = (present === -1 ? records : records.slice(0, present)).map((record) => record!.identity);
      if (identities.length === 0) return undefined;
      const leaves = await this.stores.leaves.getMany(identities);
      const taken: Slice = { records: identities.length, hashes: [], ops: [], acceptedAt: [] };
      for (const [offset, leaf] of leaves.entries()) {
        const identity = identities[offset] as string;
        if (!leaf)
          throw internal(`log "${this.alias}": entry ${from + offset} names leaf ${identity}, which is missing`);
        const hash = leafHashOf(leaf.leafInput);
        taken.hashes.push(hash);
        taken.ops.push({ store: names.queue, op: 'delete', key: queueKey(leaf.timestamp, identity) });
        taken.ops.push({ store: names.leafIndex, op: 'put', key: leafIndexKey(hash), value: { index: from + offset } });
      }
      found += identities.length;
      return taken;
    };
    const { stoppedEarly } = await this.#commitSlices(slice, now, bound);
    const integrated = this.#head.size - start;
    log.warn('finished an integration batch that had been written only in part', {
      alias: this.alias,
      from: start,
      entries: integrated,
      ...(stoppedEarly ? { stoppedEarly } : {}),
    });
    // Entries may be queued behind the batch finished here (or left of it): the caller goes on at once.
    return { integrated, delaysMs: [], stoppedEarly: true };
  }

  /** Writes `ops` with the leaf-hash chunks and tiles the appended leaves touched and the new head. */
  async #commitAppended(ops: ProviderBatchOp[], now: () => number, separately = false): Promise<void> {
    const size = this.#tree.size;
    const tiles = [...ops, ...this.#tree.commitOps()];
    // Without transactions a write is a run of ordered statements, fenced only by the lease link it starts
    // with: the head goes in a write of its own right behind its link, so a holder deposed while it wrote the
    // tiles (stalled past the lease) has its head refused rather than landing after its successor's.
    if (separately && tiles.length > 0) await this.#writeOps(tiles);
    const head: TreeHead = { size, root: this.#tree.root(), timestamp: Math.max(now(), this.#head.timestamp) };
    await this.#writeHead(head, separately ? [] : tiles);
    this.#tree.committed();
  }

  async #writeHead(head: TreeHead, ops: ProviderBatchOp[]): Promise<void> {
    const record: TreeHeadRecord = { size: head.size, root: head.root.toString('base64'), timestamp: head.timestamp };
    const write = this.#writeOps([
      ...ops,
      { store: this.stores.names.treeHeads, op: 'put', key: this.alias, value: record },
    ]);
    this.#headWrite = write;
    try {
      await write;
    } catch (error) {
      this.#headWriteFailed = true;
      throw error;
    } finally {
      if (this.#headWrite === write) this.#headWrite = undefined;
    }
    this.#served.offer(head);
  }

  async #catchUp(): Promise<void> {
    const stored = await this.stores.treeHeads.get(this.alias);
    this.#headWriteFailed = false;
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
    const head = toHead(stored);
    if (stored.size > current.size || this.#tree.size !== current.size) {
      const root = await this.#tree.load(stored.size);
      if (!root?.equals(head.root)) {
        await this.#rollBack(true);
        throw internal(
          `log "${this.alias}": the stored hash tiles do not match the stored head at size ${stored.size}`,
        );
      }
    }
    if (this.#served.offer(head) === 'fork')
      log.error('the stored tree head has another root than the served one of its size; keeping the served one', {
        alias: this.alias,
        size: stored.size,
        stored: stored.root,
        served: current.root.toString('base64'),
      });
  }

  /** Reads the committed edge back (after a failed batch): leaves appended beyond the head are dropped. */
  async #rollBack(always = false): Promise<void> {
    if (!always && this.#tree.size === this.#head.size) return;
    await this.#tree.load(this.#head.size);
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

/**
 * The size of the next slice after one of `size` records took `tookMs` (reads and write), for slices of
 * `targetMs`: in proportion, growing at most twofold a step, between 1 and `INTEGRATION_SLICE`.
 */
export function nextSliceSize(size: number, tookMs: number, targetMs: number): number {
  const scaled = tookMs <= 0 ? size * 2 : Math.floor((size * Math.max(0, targetMs)) / tookMs);
  return Math.max(1, Math.min(INTEGRATION_SLICE, size * 2, scaled));
}

/** Leaf-index key of a leaf hash. */
function leafIndexKey(hash: Uint8Array): string {
  return Buffer.from(hash).toString('base64url');
}

/** Leaf hashes indexed per batch when a log stored before the leaf index is indexed. */
const LEAF_INDEX_SLICE = 16 * 1024;

/**
 * Writes leaf-index records for a slice of leaf hashes starting at `from`, in order, keeping an index
 * already stored (the first occurrence of a hash wins, as integration never logs a hash twice).
 */
function leafIndexer(provider: StoreProvider, stores: LogStores) {
  return async (from: number, packed: Buffer): Promise<void> => {
    for (let at = 0; at * HASH_SIZE < packed.length; at += LEAF_INDEX_SLICE) {
      const keys: string[] = [];
      const end = Math.min(packed.length / HASH_SIZE, at + LEAF_INDEX_SLICE);
      for (let i = at; i < end; i++) keys.push(leafIndexKey(packed.subarray(i * HASH_SIZE, (i + 1) * HASH_SIZE)));
      const existing = await stores.leafIndex.getMany(keys);
      const seen = new Set<string>();
      const ops: ProviderBatchOp[] = [];
      keys.forEach((key, offset) => {
        if (existing[offset] !== undefined || seen.has(key)) return;
        seen.add(key);
        ops.push({ store: stores.names.leafIndex, op: 'put', key, value: { index: from + at + offset } });
      });
      if (ops.length > 0) await provider.batch(ops);
    }
  };
}
