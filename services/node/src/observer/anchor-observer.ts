import { canonicalBytes, multibaseMultihash, parseHashlink } from '@anchor/common/encoding';
import { AppError, permanent } from '@anchor/common/errors';
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
import { KeyedMutex } from '../util/keyed-mutex.js';
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
 * The observer (orb.md §2.1, §2.8; the original's observer + txnprocessor + anchor event handler): turns an
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
    return this.processAt(event, 0, new Set());
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

    const maxDepth = this.options.maxParentDepth ?? 100;
    for (const parent of read.parents) {
      if (depth >= maxDepth)
        throw permanent(`anchor ${anchorHash} has more than ${maxDepth} generations of unprocessed parents`);
      const parentEvent: AnchorEvent = { hashlink: parent };
      if (event.attributedTo !== undefined) parentEvent.attributedTo = event.attributedTo;
      if (event.sources !== undefined) parentEvent.sources = event.sources;
      await this.processAt(parentEvent, depth + 1, visiting);
    }

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
    const outcome = await this.commit(event, anchorHash, read, operations, transactionTime, protocol);
    this.parsedOperations.forgetPublished(read.coreIndexHashlink);
    if (outcome === 'processed') {
      const origin = event.batchId !== undefined ? 'local' : 'remote';
      this.metrics.observerProcessAnchorSeconds.observe({ origin }, (performance.now() - started) / 1000);
      this.metrics.observerOperationsApplied.inc({ origin }, operations.length);
    }
    return outcome;
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

  private async commit(
    event: AnchorEvent,
    anchorHash: string,
    read: ReadAnchor,
    operations: readonly AnchoredOperation[],
    transactionTime: number,
    protocol: ProtocolParameters,
  ): Promise<'processed' | 'duplicate'> {
    return this.commitLock.run('commit', async () => {
      if (await this.records.anchors.get(anchorHash)) return 'duplicate';
      // Remote anchors arrive with their linkset embedded or fetched; the linkset is kept, so this node serves
      // it too, in the same write as the anchor's record (one commit fewer per anchor; a processed anchor always
      // has its linkset here, which the export relies on).
      const linksetOps =
        event.linkset !== undefined ? [this.content.storeOp(canonicalBytes(event.linkset), CAS_MEDIA.linkset)] : [];
      const transactionNumber = await this.claimTransactionNumber(anchorHash);
      const suffixes = operations.map((operation) => operation.didSuffix);
      const latest = await getManyInSlices(this.stores.didAnchors, suffixes);
      const equivalentReferences = [
        event.hashlink,
        ...(this.options.discoveryDomain ? [`https:${this.options.discoveryDomain}:${anchorHash}`] : []),
      ];

      // The operations' records in chunks, each atomic for its DIDs (published operation, latest anchor and
      // version, queued copy deleted), so a large anchor never holds the event loop for long; the
      // anchor record comes last, once every chunk is durable. A crash in between replays the same writes
      // under the same claimed number. A chunk's write is started before the previous one is durable (the
      // chunks hold distinct DIDs): awaited one by one, every chunk cost the store's two round trips
      // through a busy event loop, which made committing a 2,000-operation anchor under load take most of
      // a second. Chunks take the operations in DID order, not batch order: a chunk's records then lie in
      // one narrow key range of each store, so its commit rewrites a few B-tree branch pages instead of one
      // for nearly every record (ADR 0011).
      const inDidOrder = operations
        .map((operation, operationIndex) => ({ suffix: operation.didSuffix, operationIndex }))
        .sort((a, b) => (a.suffix < b.suffix ? -1 : a.suffix > b.suffix ? 1 : a.operationIndex - b.operationIndex))
        .map(({ operationIndex }) => operationIndex);
      const writes: Array<Promise<void>> = [];
      for (let from = 0; from < inDidOrder.length; from += COMMIT_CHUNK) {
        const earlier = writes.at(-CHUNKS_IN_FLIGHT);
        if (earlier !== undefined) await earlier.catch(() => undefined);
        const ops: ProviderBatchOp[] = [];
        for (const operationIndex of inDidOrder.slice(from, from + COMMIT_CHUNK)) {
          const operation = operations[operationIndex] as AnchoredOperation;
          const suffix = operation.didSuffix;
          const published: PublishedOperation = {
            suffix,
            type: operation.type,
            request: encodeRequest(operation.canonicalRequest),
            canonicalReference: anchorHash,
            equivalentReferences,
            transactionTime,
            transactionNumber,
            operationIndex,
            protocolVersion: protocol.protocolVersion,
          };
          if (operation.anchorOrigin !== undefined) published.anchorOrigin = operation.anchorOrigin;
          ops.push({ store: STORE.published, op: 'put', key: `${suffix}:${anchorHash}`, value: published });
          // The latest anchor stays the newest one; the version moves on with every commit for the DID.
          const previous = latest[operationIndex];
          const newest =
            previous === undefined || previous.transactionNumber <= transactionNumber
              ? { anchor: event.hashlink, transactionNumber }
              : previous;
          // Beside the DID's operations (its bare suffix): the same B-tree leaf as the put above.
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
          ops.push({ store: STORE.queued, op: 'delete', key: operationKey(operation) });
        }
        writes.push(this.stores.provider.batch(ops));
        if (from + COMMIT_CHUNK < inDidOrder.length) await nextTurn();
      }
      const failed = (await Promise.allSettled(writes)).find((write) => write.status === 'rejected');
      if (failed !== undefined) throw failed.reason;

      const record: AnchorRecord = {
        hashlink: event.hashlink,
        status: 'processed',
        transactionNumber,
        transactionTime,
        processedAt: Date.now(),
        operationCount: operations.length,
        parents: read.parents,
      };
      if (event.attributedTo !== undefined) record.attributedTo = event.attributedTo;
      if (event.batchId !== undefined) record.batchId = event.batchId;
      try {
        await this.stores.provider.batch([
          ...linksetOps,
          { store: ANCHOR_STORES.anchors, op: 'insert', key: anchorHash, value: record },
          { store: ANCHOR_STORES.pending, op: 'delete', key: anchorHash },
        ]);
      } catch (error) {
        // Another instance finished the same anchor first (it wrote the same records).
        if (error instanceof AppError && error.code === 'conflict') return 'duplicate';
        throw error;
      }

      const processed: ProcessedAnchor = {
        anchorHash,
        hashlink: event.hashlink,
        batchId: event.batchId,
        attributedTo: event.attributedTo,
        transactionNumber,
        transactionTime,
        suffixes,
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
      return 'processed';
    });
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
