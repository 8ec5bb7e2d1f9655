import { randomUUID } from 'node:crypto';
import { errorMessage } from '@anchor/common/errors';
import type { Logger } from '@anchor/common/log';
import type { MessageQueue, Subscription } from '@anchor/common/mq';
import { isFenced, type StoreLease } from '@anchor/common/storage';
import { traceCarrier, type TraceCarrier } from '@anchor/common/tracing';
import type { ParsedOperation } from '@anchor/sidetree';
import type { NodeMetrics } from '../observability/node-metrics.js';
import { batchSpan } from '../observability/node-spans.js';
import { queuedProtocolVersion, suffixOfKey, type QueuedOperation } from '../operations/operation-records.js';
import { OperationStores } from '../operations/operation-stores.js';
import { IN_FLIGHT, UNFINISHED, type AnchorBatch, type AnchorBatches } from './anchor-batches.js';
import type { AnchorPipeline } from './anchor-pipeline.js';
import type { ParsedOperationCache } from '../anchor-model/parsed-operation-cache.js';

export interface BatchWriterOptions {
  /** Longest wait of an eligible operation before its batch is cut (`--batch-writer-timeout`). */
  batchTimeoutMs: number;
  /** Cut as soon as this many operations are eligible (`--max-operations-per-batch`, at most 10,000). */
  maxOperations: number;
}

/** What the intake tells the writer about an operation it accepted. */
export interface AcceptedOperation {
  key: string;
  suffix: string;
  acceptedAt: number;
  /** The parsed operation, so the pipeline need not parse it again (optional: a re-sync has none). */
  operation?: ParsedOperation;
  /** The protocol version it was accepted under. */
  protocolVersion: number;
}

/** A queued operation as the writer tracks it in memory. */
interface Pending {
  suffix: string;
  acceptedAt: number;
  protocolVersion: number;
  /** The trace of the request that accepted it (tracing on): its batch continues that trace. */
  trace?: TraceCarrier | undefined;
}

/**
 * How often the writer re-counts the stored queue for operations it was not told about (an instance that died
 * between its store write and its announcement, an announcement the broker refused). Other instances announce
 * what they accept on ACCEPTED_TOPIC: counting every second was the writer's heaviest store load on FerretDB,
 * where a count reads the whole queue (0.2-0.7 s for 500 operations under load) and the re-sync that followed
 * nearly every count on three replicas read it all again (0.7-1.2 s; node README, replicas).
 */
const RECOUNT_MS = 10_000;
/** How long an instance that is not the writer gathers its accepted operations into one announcement. */
const ANNOUNCE_MS = 50;

/** The fewest operations a cut sized by the observed anchoring rate holds (the observer commits 50 per chunk). */
const MIN_SIZED_CUT = 100;
/** A cut holds about as many operations as the last anchors went from cut to processed in this long. */
const CUT_HORIZON_MS = 15_000;
/** Completed anchors a new writer estimates that rate from. */
const RATE_SAMPLE = 5;
/**
 * Anchors in flight (cut, not yet processed) past which a timed-out cut waits until it is full (its `cutSize`):
 * each anchor costs the store some 60-80 calls of its own besides its operations' (status changes, files,
 * credential, claims), so on a store that lags, cutting whatever waited a second made many small anchors whose
 * fixed costs slowed every other.
 */
const BUSY_IN_FLIGHT = 4;

/**
 * How many operations one cut takes: `maxOperations`, or, once anchors were seen going from cut to processed at
 * `opsPerMs` (each anchor's operations over its time from cut to processed), what that rate anchors in
 * CUT_HORIZON_MS, at least MIN_SIZED_CUT. On a store that commits a few operations a second (FerretDB under load)
 * a takeover's backlog of hundreds went out as one anchor: nothing of it was published until the whole commit
 * ended, one replica's observer committed it while the others idled, and a failure late in it replayed all of it.
 * Cut in pieces, the first pieces publish while the rest are built, on every replica's observer at once. A store
 * that anchors thousands a second (LMDB) keeps `maxOperations`.
 */
export function cutSize(opsPerMs: number | undefined, maxOperations: number): number {
  if (opsPerMs === undefined || !Number.isFinite(opsPerMs)) return maxOperations;
  return Math.min(maxOperations, Math.max(MIN_SIZED_CUT, Math.ceil(opsPerMs * CUT_HORIZON_MS)));
}

/** Operations per millisecond from cut to processed, over the batches that say both (undefined if none does). */
export function anchoringRate(
  batches: ReadonlyArray<{ createdAt: number; processedAt?: number | undefined; operationCount?: number | undefined }>,
): number | undefined {
  let operations = 0;
  let elapsed = 0;
  for (const { createdAt, processedAt, operationCount } of batches) {
    if (processedAt === undefined || !operationCount || processedAt <= createdAt) continue;
    operations += operationCount;
    elapsed += processedAt - createdAt;
  }
  return elapsed > 0 ? operations / elapsed : undefined;
}

/** The topic on which instances that are not the batch writer tell it the operations they accepted. */
export const ACCEPTED_TOPIC = 'node.accepted';

/** What an instance announces on ACCEPTED_TOPIC: the queue records' keys and what the mirror keeps of them. */
export interface AcceptedAnnouncement {
  operations: Array<{ key: string; suffix: string; acceptedAt: number; protocolVersion: number }>;
}

/**
 * The batch writer (orb.md §2.3): one per deployment (it holds the `batch-writer` lease), it cuts batches
 * of queued operations and hands each to the anchor pipeline.
 *
 * - A batch is cut when an eligible operation has waited `batchTimeoutMs`, or as soon as `maxOperations`
 *   are eligible.
 * - Eligible: the oldest queued operation of its DID, when no operation of that DID is in flight (in a
 *   batch not yet processed by the observer). So a batch holds at most one operation per DID, an update is
 *   never anchored before the operation it follows, and the rest roll over to later batches.
 * - One protocol version per batch (Orb's cutter): the version of the oldest eligible operation;
 *   operations accepted under another (before a `--current-sidetree-protocol-version` switch) wait for a
 *   batch of their own, so each is anchored under the rules it was accepted under.
 * - The cut is written ahead: one insert records the batch (`cut`) with the keys of its operations; the
 *   pipeline takes it from there and, after a crash, resumes it. Queued operations are never rewritten:
 *   those listed by an unfinished batch are in flight, the others wait.
 *
 * The queue is mirrored in memory (keys, DIDs and acceptance times), fed by this instance's intake, by the
 * other instances' announcements on ACCEPTED_TOPIC (each announces what it accepted while it is not the
 * writer; only the writer consumes the topic, so announcements made while nobody holds the lease wait in the
 * broker for the next one), and re-synchronised from the store when it takes the lease and whenever a re-count
 * (every RECOUNT_MS) finds more stored than the mirror can explain. An announcement of an operation anchored
 * meanwhile (a redelivery) is cut again and dropped by the build, which finds no queued record for it. While
 * it is the writer, the operations its intake parsed are kept in the parsed-operation cache for the pipeline's
 * build, and forgotten when their batch is released.
 */
export class BatchWriter {
  private readonly queue = new Map<string, Pending>();
  /** DID suffix → in-flight batch id. */
  private readonly inFlight = new Map<string, string>();
  /** Operation keys held by unfinished (or failed) batches. */
  private readonly batchedKeys = new Set<string>();
  /** Acceptance times of this instance's in-flight operations, for `node_operation_publish_seconds`. */
  private readonly acceptedAtOf = new Map<string, number>();
  /**
   * Cuts whose insert failed without saying whether it was written (a deadline, a dropped connection): their
   * operations are held as in flight until a read of the batch settles it, so they are never cut twice.
   */
  private readonly uncertain = new Map<string, Array<[string, Pending]>>();
  private leader = false;
  private running = false;
  private tickTimer: NodeJS.Timeout | undefined;
  private leaseTimer: NodeJS.Timeout | undefined;
  /** becomeLeader while it loads the store's state: the lease is renewed meanwhile, not after it. */
  private takingOffice: Promise<void> | undefined;
  private cutting: Promise<void> | undefined;
  private lastResync = 0;
  private inTransit = 0;
  /** Acceptance time of the newest mirrored operation: the mirror stays in acceptance order while inserts come in order. */
  private newest = 0;
  private outOfOrder = false;
  private readonly tickMs: number;
  /** This writer's consumer of the other instances' announcements, while it holds the lease. */
  private announcements: Subscription | undefined;
  /** Accepted here while not the writer, not announced yet. */
  private unannounced: AcceptedAnnouncement['operations'] = [];
  private announceTimer: NodeJS.Timeout | undefined;
  /** When each in-flight batch was cut, and the anchoring rate seen so far (see `cutSize`). */
  private readonly cutAt = new Map<string, number>();
  private opsPerMs: number | undefined;
  /** Operations mirrored while a re-sync reads the store (kept when it replaces the mirror). */
  private mirroredDuringResync: Map<string, Pending> | undefined;

  constructor(
    private readonly operations: OperationStores,
    private readonly batches: AnchorBatches,
    private readonly pipeline: AnchorPipeline,
    private readonly parsedOperations: ParsedOperationCache,
    private readonly lease: StoreLease,
    private readonly metrics: NodeMetrics,
    private readonly log: Logger,
    private readonly options: BatchWriterOptions,
    /** Where the instances announce their accepted operations to the writer (absent: the writer re-counts only). */
    private readonly mq?: MessageQueue,
  ) {
    // Granularity of the timeout check: a tenth of the timeout, between 10 ms and 100 ms.
    this.tickMs = Math.max(10, Math.min(100, Math.floor(options.batchTimeoutMs / 10)));
    pipeline.onReleased((batchId, keys, failed) => this.released(batchId, keys, failed));
  }

  get isLeader(): boolean {
    return this.leader;
  }

  async start(): Promise<void> {
    this.running = true;
    await this.leaseLoop();
    await this.takingOffice;
  }

  async stop(): Promise<void> {
    this.running = false;
    if (this.leaseTimer) clearTimeout(this.leaseTimer);
    if (this.tickTimer) clearTimeout(this.tickTimer);
    if (this.announceTimer) clearTimeout(this.announceTimer);
    await this.takingOffice;
    await this.announce();
    await this.closeAnnouncements();
    await this.cutting;
    await this.pipeline.stop();
    if (this.leader)
      await this.lease
        .release()
        .catch((error: unknown) =>
          this.log.warn('could not release the batch-writer lease', { err: errorMessage(error) }),
        );
    this.leader = false;
  }

  /** This instance's intake is about to write an operation (so a re-count does not mistake it for another instance's). */
  accepting(): void {
    this.inTransit++;
  }

  /** The intake's write ended: `entry` was accepted, or nothing was written (undefined). */
  accepted(entry: AcceptedOperation | undefined): void {
    this.inTransit--;
    if (!entry) return;
    if (!this.leader) {
      this.unannounced.push({
        key: entry.key,
        suffix: entry.suffix,
        acceptedAt: entry.acceptedAt,
        protocolVersion: entry.protocolVersion,
      });
      this.announceTimer ??= setTimeout(() => void this.announce(), ANNOUNCE_MS);
      return;
    }
    const pending = {
      suffix: entry.suffix,
      acceptedAt: entry.acceptedAt,
      protocolVersion: entry.protocolVersion,
      trace: traceCarrier(),
    };
    if (this.enqueue(entry.key, pending) && entry.operation)
      this.parsedOperations.keepAccepted(entry.key, entry.operation);
    if (this.queue.size >= this.options.maxOperations) this.tick(0);
  }

  /** Tells the writer, whichever instance it is, what this instance accepted since the last announcement. */
  private async announce(): Promise<void> {
    this.announceTimer = undefined;
    const operations = this.unannounced;
    this.unannounced = [];
    if (operations.length === 0 || !this.mq) return;
    await this.mq.publish<AcceptedAnnouncement>(ACCEPTED_TOPIC, { operations }).catch((error: unknown) =>
      // Not lost: the operations are stored, and the writer's next re-count finds them.
      this.log.warn('could not announce accepted operations to the batch writer', {
        operations: operations.length,
        err: errorMessage(error),
      }),
    );
  }

  /** Another instance's announcement: its operations join the mirror (those mirrored or batched already are skipped). */
  private announced(body: AcceptedAnnouncement): void {
    // Not the writer any more: the next one re-synchronises from the store when it takes the lease.
    if (!this.leader || !Array.isArray(body?.operations)) return;
    for (const { key, suffix, acceptedAt, protocolVersion } of body.operations) {
      if (typeof key !== 'string' || typeof suffix !== 'string' || typeof acceptedAt !== 'number') continue;
      this.enqueue(key, { suffix, acceptedAt, protocolVersion: queuedProtocolVersion({ protocolVersion }) });
    }
    if (this.queue.size >= this.options.maxOperations) this.tick(0);
  }

  private async closeAnnouncements(): Promise<void> {
    const subscription = this.announcements;
    this.announcements = undefined;
    await subscription
      ?.close()
      .catch((error: unknown) =>
        this.log.warn('could not close the announcements consumer', { err: errorMessage(error) }),
      );
  }

  /** A batch no longer holds its DIDs (the pipeline released it: processed, or failed for good). */
  private released(batchId: string, keys: readonly string[], failed: boolean): void {
    const now = performance.timeOrigin + performance.now();
    const cutAt = this.cutAt.get(batchId);
    this.cutAt.delete(batchId);
    const rate =
      failed || cutAt === undefined
        ? undefined
        : anchoringRate([{ createdAt: cutAt, processedAt: now, operationCount: keys.length }]);
    // The newest anchor weighs half: the rate follows the store's pace without swinging with every anchor.
    if (rate !== undefined) this.opsPerMs = this.opsPerMs === undefined ? rate : (this.opsPerMs + rate) / 2;
    for (const key of keys) {
      const acceptedAt = this.acceptedAtOf.get(key);
      if (acceptedAt !== undefined && !failed) this.metrics.operationPublishSeconds.observe((now - acceptedAt) / 1000);
      this.acceptedAtOf.delete(key);
      const suffix = suffixOfKey(key);
      if (this.inFlight.get(suffix) === batchId) this.inFlight.delete(suffix);
      // The operations of a failed batch stay parked in the queue: they are not batched again.
      if (!failed) this.batchedKeys.delete(key);
    }
    this.parsedOperations.forgetAccepted(keys);
    if (this.leader) this.tick(0);
  }

  /** Operations accepted and not yet anchored (for the pending gauge and tests). */
  get pendingCount(): number {
    return this.queue.size + this.inFlight.size;
  }

  private async leaseLoop(): Promise<void> {
    if (!this.running) return;
    try {
      const held = this.leader ? await this.lease.renew() : await this.lease.acquire();
      // Not awaited: taking office reads the batches and the whole queue, which on a slow store outlasted the
      // lease, so a new writer lost the lease to the next taker before its first renewal (node README, replicas).
      if (held && !this.leader) this.takingOffice = this.takeOffice();
      else if (!held && this.leader) {
        await this.takingOffice;
        await this.stepDown();
      }
    } catch (error) {
      this.log.warn('batch-writer lease check failed', { err: errorMessage(error) });
    }
    if (this.running) this.leaseTimer = setTimeout(() => void this.leaseLoop(), await this.nextLeaseCheckMs());
  }

  /**
   * A third of the lease; a follower waits no longer than until the holder's lease runs out, so a holder that
   * died is replaced within the lease (checking only every third of it, takeover took up to 4/3 of it).
   */
  private async nextLeaseCheckMs(): Promise<number> {
    const third = Math.max(200, Math.floor(this.lease.durationMs / 3));
    if (this.leader) return third;
    const tip = await this.lease.tip().catch(() => undefined);
    if (!tip || tip.holder === this.lease.holder) return third;
    return Math.min(third, Math.max(50, tip.expiresAt - Date.now() + 50));
  }

  private async takeOffice(): Promise<void> {
    try {
      await this.becomeLeader();
    } catch (error) {
      this.log.warn('batch-writer lease check failed', { err: errorMessage(error) });
    } finally {
      this.takingOffice = undefined;
    }
  }

  private async becomeLeader(): Promise<void> {
    this.leader = true;
    this.pipeline.resume();
    this.log.info('this instance is the batch writer', { holder: this.lease.holder });
    try {
      // Before the store is read: an operation announced meanwhile is then in the store's answer, the consumer's, or both.
      if (this.mq)
        this.announcements = await this.mq.subscribe<AcceptedAnnouncement>(
          ACCEPTED_TOPIC,
          async ({ body }) => this.announced(body),
          { concurrency: 1 },
        );
      // Accepted here before this instance knew it was the writer: the store read below has them.
      this.unannounced = [];
      // The pace of the last writer's anchors sizes this one's first cuts (a takeover's backlog among them).
      const completed = await this.batches.newest('completed', RATE_SAMPLE);
      this.opsPerMs = anchoringRate(completed);
      this.pipeline.learnPace(completed);
      for (const { key, value } of await this.batches.in([...UNFINISHED, 'failed'])) {
        if (IN_FLIGHT.includes(value.status)) this.cutAt.set(key, value.createdAt);
        for (const opKey of value.operationKeys) {
          if (value.status !== 'processed') this.batchedKeys.add(opKey);
          if (IN_FLIGHT.includes(value.status)) this.inFlight.set(suffixOfKey(opKey), key);
        }
        if (value.status !== 'failed') this.pipeline.advance(key);
      }
      await this.resync();
    } catch (error) {
      // Half-loaded state must not cut batches: give the role up; the next lease check tries again.
      await this.stepDown();
      await this.lease.release().catch(() => undefined);
      throw error;
    }
    this.tick(0);
  }

  private async stepDown(): Promise<void> {
    this.log.warn('this instance lost the batch-writer lease');
    this.leader = false;
    if (this.tickTimer) clearTimeout(this.tickTimer);
    await this.closeAnnouncements();
    await this.pipeline.stop();
    this.queue.clear();
    this.inFlight.clear();
    this.batchedKeys.clear();
    this.parsedOperations.clearAccepted();
    this.acceptedAtOf.clear();
    this.uncertain.clear();
    this.cutAt.clear();
  }

  /**
   * Reloads the queue mirror from the store: every queued operation no unfinished batch holds, and those mirrored
   * while the store was read (an announcement or this instance's accept of an operation stored after the read
   * began: clearing them with the rest lost them until a re-count).
   */
  private async resync(): Promise<void> {
    this.lastResync = Date.now();
    const during = new Map<string, Pending>();
    this.mirroredDuringResync = during;
    let stored: Array<{ key: string; value: QueuedOperation }>;
    try {
      stored = (await OperationStores.all(this.operations.queued)).sort(
        (a, b) => a.value.acceptedAt - b.value.acceptedAt,
      );
    } finally {
      this.mirroredDuringResync = undefined;
    }
    const known = [...this.queue.keys()];
    this.queue.clear();
    this.newest = 0;
    this.outOfOrder = false;
    for (const { key, value } of stored) {
      if (this.batchedKeys.has(key)) continue;
      this.enqueue(key, {
        suffix: value.suffix,
        acceptedAt: value.acceptedAt,
        protocolVersion: queuedProtocolVersion(value),
      });
    }
    for (const [key, pending] of during) this.enqueue(key, pending);
    // Operations that left the store meanwhile (anchored by another node's batch) are no longer needed.
    this.parsedOperations.forgetAccepted(known.filter((key) => !this.queue.has(key)));
  }

  /** False when the operation is mirrored or batched already. */
  private enqueue(key: string, pending: Pending): boolean {
    if (this.queue.has(key) || this.batchedKeys.has(key)) return false;
    if (pending.acceptedAt < this.newest) this.outOfOrder = true;
    else this.newest = pending.acceptedAt;
    this.queue.set(key, pending);
    this.mirroredDuringResync?.set(key, pending);
    return true;
  }

  /** Puts the mirror back in acceptance order after out-of-order inserts (operations from other instances). */
  private ordered(): Map<string, Pending> {
    if (this.outOfOrder) {
      const sorted = [...this.queue].sort((a, b) => a[1].acceptedAt - b[1].acceptedAt);
      this.queue.clear();
      for (const [key, pending] of sorted) this.queue.set(key, pending);
      this.outOfOrder = false;
    }
    return this.queue;
  }

  private tick(delayMs = this.tickMs): void {
    if (!this.running || !this.leader) return;
    if (this.tickTimer) clearTimeout(this.tickTimer);
    this.tickTimer = setTimeout(() => {
      this.tickTimer = undefined;
      if (this.cutting) {
        this.tick();
        return;
      }
      this.cutting = this.cutDue()
        .catch(async (error: unknown) => {
          if (!isFenced(error)) return this.log.error('batch cut failed', { err: errorMessage(error) });
          // The store refused the cut: another instance took the lease while this one believed it held it.
          if (this.leader) await this.stepDown();
        })
        .finally(() => {
          this.cutting = undefined;
          this.tick(this.untilDue());
        });
    }, delayMs);
  }

  /**
   * When to check again: when the oldest eligible operation reaches the timeout, so a batch is cut on time
   * rather than up to a whole tick late (that lateness is added to every operation's publish time), and at
   * least every tick (operations accepted meanwhile, DIDs released).
   */
  private untilDue(): number {
    const first = this.firstEligible();
    if (first === undefined) return this.tickMs;
    return Math.max(1, Math.min(this.tickMs, Math.ceil(first.acceptedAt + this.options.batchTimeoutMs - Date.now())));
  }

  private async cutDue(): Promise<void> {
    await this.settleUncertain();
    if (Date.now() - this.lastResync >= RECOUNT_MS) {
      this.lastResync = Date.now();
      // More stored than mirrored, batched or being written here: another instance accepted some.
      if ((await this.operations.queued.count()) > this.queue.size + this.batchedKeys.size + this.inTransit)
        await this.resync();
    }
    this.metrics.pendingOperations.set(this.pendingCount);
    // Several batches in a row when the backlog holds more than one full (or sized) batch.
    for (;;) {
      const first = this.firstEligible();
      if (first === undefined) return;
      const timedOut = Date.now() - first.acceptedAt >= this.options.batchTimeoutMs;
      if (!timedOut && this.queue.size < this.options.maxOperations) return;
      const limit = cutSize(this.opsPerMs, this.options.maxOperations);
      const { picked: eligible, otherVersions } = this.eligible(limit);
      // Operations of an earlier protocol version cannot share a batch with those queued behind them: cut them
      // as they are rather than hold the later ones until their timeout.
      if (!timedOut && eligible.length < this.options.maxOperations && !otherVersions) return;
      if (eligible.length < limit && !otherVersions && new Set(this.inFlight.values()).size >= BUSY_IN_FLIGHT) return;
      await this.cut(eligible);
      if (eligible.length < limit && !otherVersions) return;
    }
  }

  /**
   * Reads back each cut whose insert was not confirmed: written, it is driven as any cut (a status record
   * without its operations, left by a write stopped half-way, completes as empty); not written, its
   * operations go back to the queue. A read that fails leaves it for the next tick.
   */
  private async settleUncertain(): Promise<void> {
    for (const [batchId, picked] of this.uncertain) {
      const stored = await this.batches.get(batchId);
      this.uncertain.delete(batchId);
      const keys = new Set(stored?.operationKeys ?? []);
      for (const [key, pending] of picked) {
        if (keys.has(key)) continue;
        this.batchedKeys.delete(key);
        if (this.inFlight.get(pending.suffix) === batchId) this.inFlight.delete(pending.suffix);
        this.acceptedAtOf.delete(key);
        this.enqueue(key, pending);
      }
      if (stored) this.pipeline.advance(batchId);
    }
  }

  /** The oldest operation the next batch may take. */
  private firstEligible(): Pending | undefined {
    const blocked = new Set<string>();
    for (const pending of this.ordered().values()) {
      if (!blocked.has(pending.suffix) && !this.inFlight.has(pending.suffix)) return pending;
      blocked.add(pending.suffix);
    }
    return undefined;
  }

  /**
   * The operations the next batch may take, oldest first, at most one per DID, none of a DID in flight, all of
   * the oldest one's protocol version; `otherVersions` when operations of another version were passed over.
   */
  private eligible(limit: number): { picked: Array<[string, Pending]>; otherVersions: boolean } {
    const taken = new Set<string>();
    const picked: Array<[string, Pending]> = [];
    let version: number | undefined;
    let otherVersions = false;
    for (const entry of this.ordered()) {
      const { suffix, protocolVersion } = entry[1];
      if (taken.has(suffix) || this.inFlight.has(suffix)) {
        // Later operations of this DID wait behind the earlier one.
        taken.add(suffix);
        continue;
      }
      taken.add(suffix);
      version ??= protocolVersion;
      if (protocolVersion !== version) {
        otherVersions = true;
        continue;
      }
      picked.push(entry);
      if (picked.length >= limit) break;
    }
    return { picked, otherVersions };
  }

  private async cut(picked: Array<[string, Pending]>): Promise<void> {
    const batchId = randomUUID();
    const now = Date.now();
    const keys = picked.map(([key]) => key);
    const firstAcceptedAt = picked[0]?.[1].acceptedAt ?? now;
    const batch: AnchorBatch = {
      status: 'cut',
      createdAt: now,
      updatedAt: now,
      firstAcceptedAt,
      operationKeys: keys,
      attempts: 0,
      protocolVersion: picked[0]?.[1].protocolVersion ?? 0,
    };
    let written = true;
    try {
      await this.batches.insert(batchId, batch);
    } catch (error) {
      // Refused by the lease's fence: not written, and this instance is no longer the writer.
      if (isFenced(error)) throw error;
      // The write may have landed though its answer was lost. Cutting these operations again now would put
      // them in two batches, both anchored once a writer drives the first: hold them until a read settles it.
      this.log.warn('batch cut not confirmed; reading it back before its operations are cut again', {
        batchId,
        err: errorMessage(error),
      });
      this.uncertain.set(batchId, picked);
      written = false;
    }
    for (const [key, pending] of picked) {
      this.queue.delete(key);
      this.batchedKeys.add(key);
      this.inFlight.set(pending.suffix, batchId);
      this.acceptedAtOf.set(key, pending.acceptedAt);
    }
    if (!written) return;
    this.cutAt.set(batchId, now);
    this.metrics.batchSize.observe(keys.length);
    this.metrics.batchCutSeconds.observe((now - firstAcceptedAt) / 1000);
    this.log.debug('batch cut', () => ({ batchId, operations: keys.length }));
    // The anchor's steps run in the trace of its first operation's request, linked to the others'.
    void batchSpan(
      batchId,
      picked.map(([, pending]) => pending.trace),
      async () => this.pipeline.advance(batchId),
    );
  }
}
