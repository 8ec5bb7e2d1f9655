import { canonicalBytes, multibaseMultihash, parseHashlink } from '@anchor/common/encoding';
import { AppError, isRetryable, permanent } from '@anchor/common/errors';
import type { Logger } from '@anchor/common/log';
import type { ProviderBatchOp } from '@anchor/common/storage';
import type { ProtocolParameters, ProtocolRegistry } from '@anchor/sidetree';
import { readBatchFiles, type AnchoredOperation, type BatchFileBuilder } from '../anchor-model/batch-file-builder.js';
import { checkAnchorCredential } from '../anchor-model/anchor-credential.js';
import { readAnchorLinkset, type ReadAnchor } from '../anchor-model/anchor-linkset.js';
import type { ParsedOperationCache } from '../anchor-model/parsed-operation-cache.js';
import { CAS_MEDIA } from '../cas/cas-store.js';
import type { ContentResolver } from '../cas/content-resolver.js';
import type { NodeMetrics } from '../observability/node-metrics.js';
import {
  encodeRequest,
  operationKey,
  type DidAnchor,
  type PublishedOperation,
} from '../operations/operation-records.js';
import { type OperationStores, STORE } from '../operations/operation-stores.js';
import { KeyedMutex } from '@anchor/common/concurrency';
import type { AnchorEvent, ProcessedAnchor } from '../anchor-model/anchor-event.js';
import { ANCHOR_STORES, AnchorRecords, type AnchorRecord } from '../anchor-model/anchor-records.js';
import { readBatchOperations } from './batch-files.js';
import type { CredentialVerifier } from './credential-verifier.js';
import { getManyInSlices } from '../util/read-in-slices.js';
import { setImmediate as nextTurn } from 'node:timers/promises';

export interface AnchorObserverOptions {
  namespace: string;
  /** The protocol versions this node reads anchors under (`--sidetree-protocol-versions`). */
  protocols: ProtocolRegistry;
  /** Adds `https:<domain>:<hash>` to the equivalent references of processed operations (orb's discovery domain). */
  discoveryDomain: string | undefined;
  /** Deepest chain of unprocessed parents followed before giving up on an anchor. */
  maxParentDepth?: number;
  /** Reads fetched batch files into operations (default: inline; the node passes a worker thread's). */
  reader?: Pick<BatchFileBuilder, 'read'>;
}

const INLINE_READER: Pick<BatchFileBuilder, 'read'> = { read: async (input) => readBatchFiles(input) };

/** How many times claiming a transaction number is retried when another instance took the same one. */
const SEQUENCE_RETRIES = 10;
/**
 * Operations committed per atomic write, and chunk writes in flight at once. Accepted operations' own writes
 * queue behind the chunk being committed on the single LMDB writer: smaller chunks, one at a time, shorten
 * the create tail on a quiet machine, but on a loaded one the observer falls behind (the node README's
 * Performance section has the figures).
 */
const COMMIT_CHUNK = 50;
const CHUNKS_IN_FLIGHT = 2;
/**
 * The chunk of `processInOrder`'s groups (a catch-up, a mirror import): there throughput is what counts, and
 * 50-operation chunks kept the follower waiting on commits (the node README's catch-up figures).
 */
const BULK_COMMIT_CHUNK = 500;
/** Anchors of `processInOrder` read and verified at once (fetches, proofs and batch assembly overlap). */
const PREPARE_WINDOW = 8;
/** A group commit closes at this many anchors or operations, so one never holds the writer for long. */
const GROUP_BOUNDS = { anchors: 64, operations: 5_000 } as const;

/** An anchor read and verified (steps 1, 2 and 4), waiting for its commit. */
interface PreparedAnchor {
  event: AnchorEvent;
  anchorHash: string;
  read: ReadAnchor;
  operations: readonly AnchoredOperation[];
  transactionTime: number;
  protocol: ProtocolParameters;
  /** When its processing began (the process-anchor metric). */
  started: number;
}

/**
 * The observer (orb.md §2.1, §2.8; Orb's observer + txnprocessor + anchor event handler): turns an
 * anchor — this node's or another node's — into published operations.
 *
 * 1. Skip it if already processed (replays and duplicates are no-ops).
 * 2. Read the witnessed linkset (embedded, local CAS or remote `/cas`), check its structure and hashes, the
 *    anchor credential's subject, and every proof on it.
 * 3. Process its unprocessed parents (`related.up`) first, oldest ancestors first.
 * 4. Fetch and assemble the batch files; the batch must hold exactly the DIDs the content object lists.
 * 5. Commit in one atomic batch across stores: the anchor record with the next transaction number, the
 *    published operations, the latest anchor and version per DID, and the deletion of the
 *    matching queued (so also unpublished) operations and of the pending event.
 */
export class AnchorObserver {
  private readonly commitLock = new KeyedMutex();
  private nextTransactionNumber: number | undefined;
  private readonly listeners: Array<(processed: ProcessedAnchor) => void> = [];

  constructor(
    private readonly stores: OperationStores,
    private readonly records: AnchorRecords,
    private readonly content: ContentResolver,
    private readonly verifier: CredentialVerifier,
    /** The operations this node built its own batches' files from: its own anchors need not read them back. */
    private readonly parsedOperations: ParsedOperationCache,
    private readonly metrics: NodeMetrics,
    private readonly log: Logger,
    private readonly options: AnchorObserverOptions,
  ) {}

  /** Called after each commit (in this process). */
  onProcessed(listener: (processed: ProcessedAnchor) => void): void {
    this.listeners.push(listener);
  }

  async isProcessed(anchorHash: string): Promise<AnchorRecord | undefined> {
    return this.records.anchors.get(anchorHash);
  }

  /** Processes an anchor and its unprocessed parents; resolves once committed (or found already done). */
  async process(event: AnchorEvent): Promise<'processed' | 'duplicate'> {
    const outcome = await this.processAt(event, 0, new Set());
    if (outcome === 'duplicate') await this.clearPending(parseHashlink(event.hashlink).resourceHash);
    return outcome;
  }

  /**
   * Deletes the pending record of an anchor already processed. A commit deletes it atomically, but a submit
   * that read "not processed" just before that commit inserts it again afterwards; left alone, it would be
   * re-queued at every start. A read first: duplicates are common and most have no record.
   */
  private async clearPending(anchorHash: string): Promise<void> {
    if (await this.records.pending.get(anchorHash)) await this.records.pending.delete(anchorHash);
  }

  /** Records an anchor as refused for good (it is never retried; a replay finds the record). */
  async reject(event: AnchorEvent, reason: string): Promise<void> {
    const anchorHash = parseHashlink(event.hashlink).resourceHash;
    const record: AnchorRecord = { hashlink: event.hashlink, status: 'rejected', processedAt: Date.now(), reason };
    if (event.attributedTo !== undefined) record.attributedTo = event.attributedTo;
    if (event.batchId !== undefined) record.batchId = event.batchId;
    await this.stores.provider.batch([
      { store: ANCHOR_STORES.anchors, op: 'put', key: anchorHash, value: record },
      { store: ANCHOR_STORES.pending, op: 'delete', key: anchorHash },
    ]);
  }

  /**
   * Processes anchors given in commit order (an export's pages, parents before children), from a list or a
   * stream: up to `PREPARE_WINDOW` are read and verified at once (linkset hash, every proof, batch files
   * assembled on the worker thread), and verified anchors are committed in groups (`commitGroup`: a few store
   * commits for the whole group where one anchor at a time cost about six). A group commits while the next is
   * verified and gathered and the stream is read on (a group's anchors count as there for the next one's
   * parents: commits go in order), so the workers, the store's writer and the source work side by side. An
   * anchor whose parents are neither processed nor earlier in the stream takes `process` (which fetches them). A
   * permanent refusal is handed to `onRefused` in its place in the order (it may throw to stop); a retryable
   * failure, or the stream's own, commits what was verified before it and throws. `onSettled` hears how many
   * anchors from the start have their outcome, and the operations committed so far.
   */
  async processInOrder(
    source: Iterable<AnchorEvent> | AsyncIterable<AnchorEvent>,
    onRefused: (event: AnchorEvent, error: unknown) => Promise<void>,
    options: {
      groupBounds?: { anchors: number; operations: number };
      onSettled?: (settled: number, operations: number) => void;
    } = {},
  ): Promise<Array<'processed' | 'duplicate' | 'refused'>> {
    const bounds = options.groupBounds ?? GROUP_BOUNDS;
    const outcomes: Array<'processed' | 'duplicate' | 'refused'> = [];
    // Events pulled off the source and not yet taken, each with its preparation under way.
    const preparing = new Map<number, { event: AnchorEvent; preparation: Promise<PreparedAnchor | 'duplicate'> }>();
    const iterator =
      Symbol.asyncIterator in source
        ? source[Symbol.asyncIterator]()
        : (source as Iterable<AnchorEvent>)[Symbol.iterator]();
    let pulled = 0;
    let drained = false;
    let sourceFailure: { error: unknown } | undefined;
    /** Reads the next event off the source and starts its preparation; false at the end (or the source's failure). */
    const pull = async (): Promise<boolean> => {
      if (drained) return false;
      let next: IteratorResult<AnchorEvent>;
      try {
        next = await iterator.next();
      } catch (error) {
        sourceFailure = { error };
        next = { done: true, value: undefined };
      }
      if (next.done) {
        drained = true;
        return false;
      }
      const preparation = this.prepare(next.value);
      preparation.catch(() => undefined);
      preparing.set(pulled++, { event: next.value, preparation });
      return true;
    };

    let settled = 0;
    let committedOperations = 0;
    const settle = () => {
      const before = settled;
      while (settled < pulled && outcomes[settled] !== undefined) settled++;
      if (settled > before) options.onSettled?.(settled, committedOperations);
    };
    let group: Array<{ index: number; anchor: PreparedAnchor }> = [];
    let groupOperations = 0;
    // Anchors handed to a commit of this call: the group in flight, and every one before it.
    const handedOver = new Set<string>();
    let committing: Promise<void> = Promise.resolve();
    let failure: { error: unknown } | undefined;
    /**
     * Hands the group to a commit once the one in flight is done (one in flight at most, so a fast source never
     * piles prepared groups up in memory); `wait` also waits for this one (each throws a failed commit's error).
     */
    const flush = async (wait: boolean) => {
      if (group.length > 0) {
        await committing;
        const taken = group;
        group = [];
        groupOperations = 0;
        for (const entry of taken) handedOver.add(entry.anchor.anchorHash);
        committing = (async () => {
          const committed = await this.commitGroup(
            taken.map((entry) => entry.anchor),
            BULK_COMMIT_CHUNK,
          );
          for (const [position, entry] of taken.entries()) {
            const outcome = committed[position] ?? 'duplicate';
            outcomes[entry.index] = outcome;
            if (outcome === 'processed') committedOperations += entry.anchor.operations.length;
          }
          settle();
        })();
        // A failed commit fails every group after it (they are not committed) and ends the loop.
        committing.catch((error: unknown) => {
          failure ??= { error };
        });
      }
      if (wait) await committing;
    };
    const decided = (index: number, outcome: 'processed' | 'duplicate' | 'refused') => {
      outcomes[index] = outcome;
      settle();
    };
    const refuse = async (index: number, event: AnchorEvent, error: unknown) => {
      await flush(true);
      if (isRetryable(error)) throw error;
      await onRefused(event, error);
      decided(index, 'refused');
    };
    for (let index = 0; ; index++) {
      if (failure) break;
      while (pulled <= index + PREPARE_WINDOW && (await pull()));
      if (index >= pulled) break;
      const { event, preparation } = preparing.get(index) as {
        event: AnchorEvent;
        preparation: Promise<PreparedAnchor | 'duplicate'>;
      };
      preparing.delete(index);
      let prepared: PreparedAnchor | 'duplicate';
      try {
        prepared = await preparation;
      } catch (error) {
        await refuse(index, event, error);
        continue;
      }
      if (
        prepared === 'duplicate' ||
        handedOver.has(prepared.anchorHash) ||
        group.some((entry) => entry.anchor.anchorHash === prepared.anchorHash)
      ) {
        decided(index, 'duplicate');
        continue;
      }
      if (!(await this.parentsReady(prepared, group, handedOver))) {
        // Parents this stream does not bring first: the one-anchor path fetches and commits them.
        await flush(true);
        try {
          const outcome = await this.process(event);
          if (outcome === 'processed') committedOperations += prepared.operations.length;
          decided(index, outcome);
        } catch (error) {
          await refuse(index, event, error);
        }
        continue;
      }
      group.push({ index, anchor: prepared });
      groupOperations += prepared.operations.length;
      if (group.length >= bounds.anchors || groupOperations >= bounds.operations) await flush(false);
    }
    await flush(true);
    if (sourceFailure) throw sourceFailure.error;
    return outcomes;
  }

  private async processAt(
    event: AnchorEvent,
    depth: number,
    visiting: Set<string>,
  ): Promise<'processed' | 'duplicate'> {
    const started = performance.now();
    const anchorHash = parseHashlink(event.hashlink).resourceHash;
    if (await this.records.anchors.get(anchorHash)) return 'duplicate';
    if (visiting.has(anchorHash)) throw permanent(`anchor ${anchorHash} is its own ancestor`);
    visiting.add(anchorHash);

    const { read, transactionTime, protocol } = await this.verifyAnchor(event, anchorHash);
    const maxDepth = this.options.maxParentDepth ?? 100;
    for (const parent of read.parents) {
      if (depth >= maxDepth)
        throw permanent(`anchor ${anchorHash} has more than ${maxDepth} generations of unprocessed parents`);
      const parentEvent: AnchorEvent = { hashlink: parent };
      if (event.attributedTo !== undefined) parentEvent.attributedTo = event.attributedTo;
      if (event.sources !== undefined) parentEvent.sources = event.sources;
      await this.processAt(parentEvent, depth + 1, visiting);
    }
    const operations = await this.operationsOf(event, read, protocol);
    const [outcome] = await this.commitGroup([
      { event, anchorHash, read, operations, transactionTime, protocol, started },
    ]);
    return outcome ?? 'duplicate';
  }

  /** Steps 1, 2 and 4 of one anchor, its parents left to the caller. */
  private async prepare(event: AnchorEvent): Promise<PreparedAnchor | 'duplicate'> {
    const started = performance.now();
    const anchorHash = parseHashlink(event.hashlink).resourceHash;
    if (await this.records.anchors.get(anchorHash)) return 'duplicate';
    const { read, transactionTime, protocol } = await this.verifyAnchor(event, anchorHash);
    const operations = await this.operationsOf(event, read, protocol);
    return { event, anchorHash, read, operations, transactionTime, protocol, started };
  }

  /** Every parent processed already, earlier in the group being built, or in a group handed to a commit. */
  private async parentsReady(
    anchor: PreparedAnchor,
    group: ReadonlyArray<{ anchor: PreparedAnchor }>,
    committing: ReadonlySet<string>,
  ): Promise<boolean> {
    for (const parent of anchor.read.parents) {
      const parentHash = parseHashlink(parent).resourceHash;
      if (committing.has(parentHash) || group.some((entry) => entry.anchor.anchorHash === parentHash)) continue;
      if ((await this.records.anchors.get(parentHash)) === undefined) return false;
    }
    return true;
  }

  private async verifyAnchor(
    event: AnchorEvent,
    anchorHash: string,
  ): Promise<{ read: ReadAnchor; transactionTime: number; protocol: ProtocolParameters }> {
    const read = readAnchorLinkset(await this.linkset(event, anchorHash), this.options.namespace);
    const { transactionTime } = checkAnchorCredential(read.credential, {
      anchor: read.anchor,
      contentAnchor: read.content.linkset[0].anchor,
      profile: read.profile,
    });
    // The version the anchor was written under reads its batch, whatever this node writes now; one this node
    // does not run is a retryable refusal, so the anchor is read once the node runs it.
    const protocol = this.options.protocols.forAnchor(read.protocolVersion);
    await this.verifier.verify(read.credential);
    return { read, transactionTime, protocol };
  }

  private async operationsOf(
    event: AnchorEvent,
    read: ReadAnchor,
    protocol: ProtocolParameters,
  ): Promise<readonly AnchoredOperation[]> {
    // Remote anchors are always read from their files.
    const local =
      event.batchId !== undefined ? this.parsedOperations.publishedBatch(read.coreIndexHashlink) : undefined;
    const operations =
      local ??
      (await readBatchOperations(this.content, this.options.reader ?? INLINE_READER, {
        coreIndexHashlink: read.coreIndexHashlink,
        operationCount: read.items.length,
        sources: event.sources ?? [],
        protocol,
      }));
    checkItemsMatch(read, operations);
    return operations;
  }

  private async linkset(event: AnchorEvent, anchorHash: string): Promise<unknown> {
    if (event.linkset !== undefined) {
      const bytes = canonicalBytes(event.linkset);
      if (multibaseMultihash(bytes) !== anchorHash)
        throw permanent(`the embedded anchor linkset does not hash to ${anchorHash}`);
      return event.linkset;
    }
    const bytes = await this.content.resolve(event.hashlink, {
      sources: event.sources ?? [],
      mediaType: CAS_MEDIA.linkset,
    });
    try {
      return JSON.parse(bytes.toString('utf8'));
    } catch {
      throw permanent(`anchor linkset ${anchorHash} is not JSON`);
    }
  }

  /**
   * Step 5 for anchors in commit order, each verified and its parents processed or earlier in the list. The
   * group's transaction numbers are claimed in one atomic write, its operations' records are written in
   * DID-ordered chunks of `chunk` operations across the whole group (a DID several anchors of the group
   * touch gets its latest anchor and version once, the newest), and the anchor records last, in one write:
   * two commits and the chunks' for the group however many anchors it holds.
   */
  private async commitGroup(
    anchors: readonly PreparedAnchor[],
    chunk = COMMIT_CHUNK,
  ): Promise<Array<'processed' | 'duplicate'>> {
    return this.commitLock.run('commit', async () => {
      const outcomes: Array<'processed' | 'duplicate'> = anchors.map(() => 'duplicate');
      const fresh: Array<{ position: number; anchor: PreparedAnchor }> = [];
      for (const [position, anchor] of anchors.entries())
        if ((await this.records.anchors.get(anchor.anchorHash)) === undefined) fresh.push({ position, anchor });
      // The operations this node built its own batches from are not needed once the anchor is here.
      for (const anchor of anchors) this.parsedOperations.forgetPublished(anchor.read.coreIndexHashlink);
      if (fresh.length === 0) return outcomes;
      const numbers = await this.claimTransactionNumbers(fresh.map(({ anchor }) => anchor.anchorHash));

      // The operations' records in chunks, each atomic for its DIDs (published operation, latest anchor and
      // version, queued copy deleted), so a large group never holds the event loop for long; the
      // anchor records come last, once every chunk is durable. A crash in between replays the same writes
      // under the same claimed numbers. A chunk's write is started before the previous one is durable (the
      // chunks hold distinct DIDs): awaited one by one, every chunk cost the store's two round trips
      // through a busy event loop. Chunks take the operations in DID order, not batch order: a chunk's
      // records then lie in one narrow key range of each store, so its commit rewrites a few B-tree branch
      // pages instead of one for nearly every record (ADR 0011).
      const entries: Array<{ suffix: string; anchorAt: number; operationIndex: number }> = [];
      for (const [anchorAt, { anchor }] of fresh.entries())
        for (const [operationIndex, operation] of anchor.operations.entries())
          entries.push({ suffix: operation.didSuffix, anchorAt, operationIndex });
      entries.sort((a, b) =>
        a.suffix < b.suffix
          ? -1
          : a.suffix > b.suffix
            ? 1
            : (numbers[a.anchorAt] as number) - (numbers[b.anchorAt] as number) || a.operationIndex - b.operationIndex,
      );
      const suffixes = [...new Set(entries.map((entry) => entry.suffix))];
      const latestList = await getManyInSlices(this.stores.didAnchors, suffixes);
      const latest = new Map(suffixes.map((suffix, at) => [suffix, latestList[at]]));
      const equivalentReferencesOf = fresh.map(({ anchor }) => [
        anchor.event.hashlink,
        ...(this.options.discoveryDomain ? [`https:${this.options.discoveryDomain}:${anchor.anchorHash}`] : []),
      ]);
      const writes: Array<Promise<void>> = [];
      let alreadyWritten = 0;
      for (let from = 0; from < entries.length; from += chunk) {
        const earlier = writes.at(-CHUNKS_IN_FLIGHT);
        if (earlier !== undefined) await earlier.catch(() => undefined);
        const ops: ProviderBatchOp[] = [];
        // The queued copies' deletes after all the chunk's puts: a batch goes to the store as one bulk write per
        // run of one store, and puts and deletes taken in turn made a 50-operation chunk ~100 runs, each a round
        // trip without transactions (FerretDB); now two. A crash between them is replayed (records come last).
        const dequeued: ProviderBatchOp[] = [];
        const to = Math.min(from + chunk, entries.length);
        for (let at = from; at < to; at++) {
          const { suffix, anchorAt, operationIndex } = entries[at] as (typeof entries)[number];
          const { anchor } = fresh[anchorAt] as (typeof fresh)[number];
          const operation = anchor.operations[operationIndex] as AnchoredOperation;
          const transactionNumber = numbers[anchorAt] as number;
          const previous = latest.get(suffix);
          // A replay (a retry after a failed or timed-out commit, another replica's commit of the same anchor): the
          // DID's latest anchor written by this anchor under this number means its published operation was written
          // before it (one ordered run of one store), so only the queued copy's delete may be missing. A commit of
          // a few hundred operations that failed late rewrote all of them on every retry (node README, replicas).
          const single = entries[at - 1]?.suffix !== suffix && entries[at + 1]?.suffix !== suffix;
          if (
            single &&
            previous?.anchor === anchor.event.hashlink &&
            previous.transactionNumber === transactionNumber
          ) {
            dequeued.push({ store: STORE.queued, op: 'delete', key: operationKey(operation) });
            alreadyWritten++;
            continue;
          }
          const published: PublishedOperation = {
            suffix,
            type: operation.type,
            request: encodeRequest(operation.canonicalRequest),
            canonicalReference: anchor.anchorHash,
            equivalentReferences: equivalentReferencesOf[anchorAt] as string[],
            transactionTime: anchor.transactionTime,
            transactionNumber,
            operationIndex,
            protocolVersion: anchor.protocol.protocolVersion,
          };
          if (operation.anchorOrigin !== undefined) published.anchorOrigin = operation.anchorOrigin;
          ops.push({ store: STORE.published, op: 'put', key: `${suffix}:${anchor.anchorHash}`, value: published });
          dequeued.push({ store: STORE.queued, op: 'delete', key: operationKey(operation) });
          // The DID's latest anchor and version once, at its last entry (the group's highest number for it):
          // the latest anchor stays the newest one; the version moves on with every commit for the DID.
          if (entries[at + 1]?.suffix === suffix) continue;
          const newest =
            previous === undefined || previous.transactionNumber <= transactionNumber
              ? { anchor: anchor.event.hashlink, transactionNumber }
              : previous;
          // Beside the DID's operations (its bare suffix): the same B-tree leaf as the puts above.
          ops.push({
            store: STORE.published,
            op: 'put',
            key: suffix,
            value: {
              anchor: newest.anchor,
              transactionNumber: newest.transactionNumber,
              version: transactionNumber,
            } satisfies DidAnchor,
          });
        }
        writes.push(this.stores.provider.batch([...ops, ...dequeued]));
        if (to < entries.length) await nextTurn();
      }
      const failed = (await Promise.allSettled(writes)).find((write) => write.status === 'rejected');
      if (failed !== undefined) throw failed.reason;
      if (alreadyWritten > 0)
        this.log.debug('commit replayed: operations found written already', () => ({
          operations: alreadyWritten,
          of: entries.length,
        }));

      const recordOps = fresh.map(({ anchor }, anchorAt) => {
        const { event } = anchor;
        // Remote anchors arrive with their linkset embedded or fetched; the linkset is kept, so this node
        // serves it too, in the same write as the anchor's record (a processed anchor always has its linkset
        // here, which the export relies on).
        const linksetOps =
          event.linkset !== undefined ? [this.content.storeOp(canonicalBytes(event.linkset), CAS_MEDIA.linkset)] : [];
        const record: AnchorRecord = {
          hashlink: event.hashlink,
          status: 'processed',
          transactionNumber: numbers[anchorAt] as number,
          transactionTime: anchor.transactionTime,
          processedAt: Date.now(),
          operationCount: anchor.operations.length,
          parents: anchor.read.parents,
        };
        if (event.attributedTo !== undefined) record.attributedTo = event.attributedTo;
        if (event.batchId !== undefined) record.batchId = event.batchId;
        return [
          ...linksetOps,
          { store: ANCHOR_STORES.anchors, op: 'insert', key: anchor.anchorHash, value: record },
          { store: ANCHOR_STORES.pending, op: 'delete', key: anchor.anchorHash },
        ] satisfies ProviderBatchOp[];
      });
      const written = new Array<boolean>(fresh.length).fill(true);
      try {
        await this.stores.provider.batch(recordOps.flat());
      } catch (error) {
        if (!(error instanceof AppError && error.code === 'conflict')) throw error;
        // Another instance finished one of them first (it wrote the same records): each on its own.
        for (const [anchorAt, ops] of recordOps.entries()) {
          try {
            await this.stores.provider.batch(ops);
          } catch (each) {
            if (each instanceof AppError && each.code === 'conflict') written[anchorAt] = false;
            else throw each;
          }
        }
      }

      for (const [anchorAt, { position, anchor }] of fresh.entries()) {
        if (!written[anchorAt]) continue;
        outcomes[position] = 'processed';
        this.announce(anchor, numbers[anchorAt] as number);
      }
      return outcomes;
    });
  }

  private announce(anchor: PreparedAnchor, transactionNumber: number): void {
    const { event, anchorHash, operations, transactionTime } = anchor;
    const origin = event.batchId !== undefined ? 'local' : 'remote';
    this.metrics.observerProcessAnchorSeconds.observe({ origin }, (performance.now() - anchor.started) / 1000);
    this.metrics.observerOperationsApplied.inc({ origin }, operations.length);
    const processed: ProcessedAnchor = {
      anchorHash,
      hashlink: event.hashlink,
      batchId: event.batchId,
      attributedTo: event.attributedTo,
      transactionNumber,
      transactionTime,
      suffixes: operations.map((operation) => operation.didSuffix),
    };
    this.log.debug('anchor processed', () => ({
      anchorHash,
      transactionNumber,
      operations: operations.length,
      batchId: event.batchId,
    }));
    for (const listener of this.listeners) {
      try {
        listener(processed);
      } catch (error) {
        this.log.error('anchor-processed listener failed', { err: error });
      }
    }
  }

  /**
   * The group's transaction numbers, in its order: consecutive free ones claimed in one atomic write of
   * insert-if-absent claims, so numbers stay unique across instances (a clash with another instance
   * claims again from its new last number). An anchor claimed before (a replay after a crash) takes the
   * one-at-a-time path for the whole group, which finds its claim.
   */
  private async claimTransactionNumbers(anchorHashes: readonly string[]): Promise<number[]> {
    const one = async () => {
      const numbers: number[] = [];
      for (const anchorHash of anchorHashes) numbers.push(await this.claimTransactionNumber(anchorHash));
      return numbers;
    };
    if (anchorHashes.length === 1) return one();
    const claims = await Promise.all(
      anchorHashes.map((anchorHash) => this.records.sequence.query({ where: { anchorHash }, limit: 1 })),
    );
    if (claims.some((claim) => claim.items.length > 0)) return one();
    for (let attempt = 0; attempt < SEQUENCE_RETRIES; attempt++) {
      this.nextTransactionNumber ??= (await this.records.lastClaimedNumber()) + 1;
      const first = this.nextTransactionNumber;
      const numbers = anchorHashes.map((_, at) => first + at);
      try {
        await this.stores.provider.batch(
          anchorHashes.map((anchorHash, at) => ({
            store: ANCHOR_STORES.sequence,
            op: 'insert' as const,
            key: AnchorRecords.sequenceKey(numbers[at] as number),
            value: { anchorHash, transactionNumber: numbers[at] as number },
          })),
        );
      } catch (error) {
        if (!(error instanceof AppError && error.code === 'conflict')) throw error;
        // Another instance took one of these numbers: look again.
        this.nextTransactionNumber = undefined;
        continue;
      }
      this.nextTransactionNumber = first + anchorHashes.length;
      return numbers;
    }
    throw new AppError(
      'conflict',
      `could not claim transaction numbers for ${anchorHashes.length} anchors after ${SEQUENCE_RETRIES} attempts`,
      { retryable: true },
    );
  }

  /**
   * The anchor's transaction number: the one claimed before (a replay after a crash, or another instance
   * processing the same anchor), else the next free one, claimed with insert-if-absent so that numbers
   * are unique across instances.
   */
  private async claimTransactionNumber(anchorHash: string): Promise<number> {
    for (let attempt = 0; attempt < SEQUENCE_RETRIES; attempt++) {
      const claimed = (await this.records.sequence.query({ where: { anchorHash }, limit: 1 })).items[0];
      if (claimed) return claimed.value.transactionNumber;
      this.nextTransactionNumber ??= (await this.records.lastClaimedNumber()) + 1;
      const candidate = this.nextTransactionNumber;
      if (
        await this.records.sequence.insert(AnchorRecords.sequenceKey(candidate), {
          anchorHash,
          transactionNumber: candidate,
        })
      ) {
        this.nextTransactionNumber = candidate + 1;
        return candidate;
      }
      // Another instance took this number: look again.
      this.nextTransactionNumber = undefined;
    }
    throw new AppError(
      'conflict',
      `could not claim a transaction number for anchor ${anchorHash} after ${SEQUENCE_RETRIES} attempts`,
      { retryable: true },
    );
  }
}

/** The batch must carry exactly one operation for each DID the content object lists, and no other. */
function checkItemsMatch(read: ReadAnchor, operations: readonly AnchoredOperation[]): void {
  const listed = new Set(read.items.map((item) => item.suffix));
  const found = new Set(operations.map((operation) => operation.didSuffix));
  if (listed.size !== read.items.length) throw permanent('the content object lists a DID twice');
  for (const suffix of found)
    if (!listed.has(suffix))
      throw permanent(`the batch holds an operation for ${suffix}, which the content object does not list`);
  for (const suffix of listed)
    if (!found.has(suffix))
      throw permanent(`the content object lists ${suffix}, but the batch holds no operation for it`);
}
