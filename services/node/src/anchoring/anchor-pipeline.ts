import { randomUUID } from 'node:crypto';
import { canonicalBytes, parseHashlink, type DataUriEncoding } from '@anchor/common/encoding';
import { errorMessage } from '@anchor/common/errors';
import { attachProof } from '@anchor/common/jsonld';
import type { Logger } from '@anchor/common/log';
import { isFenced } from '@anchor/common/storage';
import { backoffDelay, type BackoffPolicy } from '@anchor/common/mq';
import { anchorProfile, parseOperation, type ParsedOperation, type ProtocolRegistry } from '@anchor/sidetree';
import { CAS_MEDIA, type CasStore } from '../cas/cas-store.js';
import type { NodeMetrics } from '../observability/node-metrics.js';
import { anchorStep } from '../observability/node-spans.js';
import { decodeRequest, type QueuedOperation } from '../operations/operation-records.js';
import type { OperationStores } from '../operations/operation-stores.js';
import type { AnchorEvent } from '../anchor-model/anchor-event.js';
import type { AnchorRecord } from '../anchor-model/anchor-records.js';
import type { CredentialStore } from '../anchor-credentials/anchor-credentials-feature.js';
import type { AnchorStatus } from '../anchor-model/anchor-status.js';
import type { AnchorBatch, AnchorBatches } from './anchor-batches.js';
import type { BatchFileBuilder } from '../anchor-model/batch-file-builder.js';
import { buildAnchorCredential, type AnchorCredential } from '../anchor-model/anchor-credential.js';
import {
  buildContentObject,
  contentAnchor,
  parentsOf,
  type AnchorLink,
  type AnchorLinkset,
  type SuffixAnchor,
} from '../anchor-model/anchor-linkset.js';
import type { LocalWitness } from './local-witness.js';
import type { ParsedOperationCache } from '../anchor-model/parsed-operation-cache.js';
import type { AnchorWitnessing } from './witnessing.js';
import { getManyInSlices } from '../util/read-in-slices.js';

/** An anchor of this node whose operations are processed: what the completed-anchor listeners receive. */
export interface CompletedAnchor {
  /** The in-flight anchor (batch) id. */
  anchorId: string;
  /** The anchor hash (`uEi…`): the canonical reference of its operations. */
  anchorHash: string;
  /** `hl:<hash>:<links>`: the AnchorEvent `url` an ActivityPub Create announces. */
  hashlink: string;
  /** The witnessed anchor linkset: the AnchorEvent `object`. */
  linkset: AnchorLinkset;
  /** The witnessed anchor credential (also at `GET /vc/<id>`). */
  credential: AnchorCredential;
  operationCount: number;
}

/**
 * Called once per completed anchor, at least once: a listener that throws is called again (with backoff)
 * until it succeeds, also after a restart, so it must be idempotent (e.g. an activity id derived from the
 * anchor hash).
 */
export type AnchorCompletedListener = (anchor: CompletedAnchor) => Promise<void>;

/**
 * A batch no longer holds its DIDs back: processed, or failed for good (its operations then stay parked in
 * the queue). Called in this process, synchronously.
 */
export type BatchReleasedListener = (batchId: string, operationKeys: readonly string[], failed: boolean) => void;

export interface AnchorPipelineDeps {
  batches: AnchorBatches;
  operations: OperationStores;
  cas: CasStore;
  credentials: CredentialStore;
  localWitness: LocalWitness;
  witnessing: AnchorWitnessing;
  /** Durable hand-over to the observer, and its record of an anchor. */
  submit: (event: AnchorEvent) => Promise<void>;
  anchorRecord: (anchorHash: string) => Promise<AnchorRecord | undefined>;
  /** Whether an observer has claimed the anchor's transaction number: it is committing it (or did, and died). */
  anchorClaimed?: (anchorHash: string) => Promise<boolean>;
  serviceId: string;
  vcBase: string;
  namespace: string;
  encoding: DataUriEncoding;
  retry: BackoffPolicy;
  metrics: NodeMetrics;
  log: Logger;
  /** Operations parsed at intake (taken at the build) and the built batches' operations (handed to the observer at publishing). */
  parsedOperations: ParsedOperationCache;
  /** Builds the Sidetree batch files (off the event loop where it can). */
  batchFiles: BatchFileBuilder;
  /** A batch is written under the protocol version its operations were accepted under. */
  protocols: ProtocolRegistry;
}

/** How often a published anchor is checked for processing by another instance's observer. */
const PROCESSED_POLL_MS = 1_000;
/**
 * A published anchor not processed after this long is handed to the observer again, then after twice as long
 * each time up to RESUBMIT_MAX_MS: the hand-over is durable (RabbitMQ), so a resubmit rescues a lost or
 * dead-lettered message, while an anchor still being committed would be processed by a second replica at
 * once (on a loaded FerretDB that doubled the commit's writes; node README, replicas).
 */
const RESUBMIT_AFTER_MS = 60_000;
const RESUBMIT_MAX_MS = 15 * 60_000;

/** How long a published anchor handed over `resubmits` times already waits for the observer before the next hand-over. */
export function resubmitWaitMs(resubmits: number): number {
  return Math.min(RESUBMIT_MAX_MS, RESUBMIT_AFTER_MS * 2 ** resubmits);
}

/** The first hand-over again waits at least this many times as long as anchors took from published to processed. */
const SLOW_OBSERVER_FACTOR = 3;

/**
 * How long a published anchor waits for the observer before it is handed over again: `resubmitWaitMs`, but the
 * longest wait once an observer has claimed it, and at least SLOW_OBSERVER_FACTOR times what anchors took from
 * published to processed lately (`processingMs`). An unclaimed anchor may be waiting its turn behind others on a
 * replica that holds its message (one commit at a time per replica): on FerretDB anchors took 20-80 s and the
 * minute's hand-over put a queued anchor on a second replica beside the first.
 */
export function observerWaitMs(resubmits: number, claimed: boolean, processingMs: number | undefined): number {
  if (claimed) return RESUBMIT_MAX_MS;
  const slow = processingMs === undefined ? 0 : Math.min(RESUBMIT_MAX_MS, SLOW_OBSERVER_FACTOR * processingMs);
  return Math.max(resubmitWaitMs(resubmits), slow);
}

interface Run {
  timer: NodeJS.Timeout | undefined;
  busy: Promise<void> | undefined;
  /** Another advance was asked for while busy. */
  again: boolean;
  /** Runs in a row that could not read or record the batch (the store failing): their retries back off. */
  storeFailures: number;
}

/**
 * Drives in-flight anchors through their lifecycle (see `AnchorStatus`): build the batch files, content
 * object and credential; the node's proof; witnessing; publishing; waiting for the observer; notifying the
 * completed-anchor listeners. One run per anchor at a time; failures are retried with exponential backoff
 * (the MQ redelivery settings) for as long as it takes, so an accepted operation is never dropped.
 */
export class AnchorPipeline {
  private readonly runs = new Map<string, Run>();
  /** Published anchors an observer was seen to have claimed (a claim is never taken back). */
  private readonly claimed = new Set<string>();
  /** How long anchors took from published to processed lately (the newest weighing half). */
  private processingMs: number | undefined;
  private readonly listeners: AnchorCompletedListener[] = [];
  private readonly releasedListeners: BatchReleasedListener[] = [];
  private stopped = false;

  constructor(private readonly deps: AnchorPipelineDeps) {}

  onCompleted(listener: AnchorCompletedListener): void {
    this.listeners.push(listener);
  }

  onReleased(listener: BatchReleasedListener): void {
    this.releasedListeners.push(listener);
  }

  /** Starts (or resumes) advancing an anchor. */
  advance(batchId: string, delayMs = 0): void {
    if (this.stopped) return;
    let run = this.runs.get(batchId);
    if (!run) {
      run = { timer: undefined, busy: undefined, again: false, storeFailures: 0 };
      this.runs.set(batchId, run);
    }
    if (run.busy) {
      run.again = true;
      return;
    }
    if (run.timer) clearTimeout(run.timer);
    const current = run;
    current.timer = setTimeout(() => {
      current.timer = undefined;
      current.busy = this.step(batchId).finally(() => {
        current.busy = undefined;
        if (current.again && !this.stopped) {
          current.again = false;
          this.advance(batchId);
        }
      });
    }, delayMs);
  }

  /** Anchors currently being driven. */
  get active(): number {
    return this.runs.size;
  }

  /** Lets a stopped pipeline run again (the instance became the batch writer again). */
  resume(): void {
    this.stopped = false;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    for (const run of this.runs.values()) if (run.timer) clearTimeout(run.timer);
    await Promise.all([...this.runs.values()].map((run) => run.busy));
    this.runs.clear();
    this.claimed.clear();
  }

  /** Learns how long anchors take from published to processed from batches processed before (a new writer's start). */
  learnPace(batches: ReadonlyArray<Pick<AnchorBatch, 'publishedAt' | 'processedAt'>>): void {
    for (const { publishedAt, processedAt } of [...batches].reverse())
      if (publishedAt !== undefined && processedAt !== undefined) this.noteProcessing(processedAt - publishedAt);
  }

  private noteProcessing(ms: number): void {
    if (!(ms >= 0)) return;
    this.processingMs = this.processingMs === undefined ? ms : (this.processingMs + ms) / 2;
  }

  /** Releases the worker thread (at node stop). */
  async close(): Promise<void> {
    await this.deps.batchFiles.close();
  }

  private async step(batchId: string): Promise<void> {
    try {
      await this.steps(batchId);
      const run = this.runs.get(batchId);
      if (run) run.storeFailures = 0;
    } catch (error) {
      if (isFenced(error)) {
        // Another instance holds the batch-writer lease now: it resumes this batch from its stored status.
        this.deps.log.warn('anchor step refused: the batch-writer lease moved on', { batchId });
        this.runs.delete(batchId);
        return;
      }
      // The store itself failed (reading the record, or recording a failure): try again with backoff. A flat
      // wait of the longest delay (60 s) held a new writer's batches that long after a takeover on a loaded store.
      const run = this.runs.get(batchId);
      const failures = run ? ++run.storeFailures : 1;
      const delay = backoffDelay(this.deps.retry, failures);
      this.deps.log.error('anchor step could not run; retrying', {
        batchId,
        retryInMs: delay,
        err: errorMessage(error),
      });
      this.schedule(batchId, delay);
    }
  }

  private async steps(batchId: string): Promise<void> {
    let batch = await this.deps.batches.get(batchId);
    while (batch && !this.stopped) {
      let next: { batch: AnchorBatch } | { waitMs: number } | 'done';
      try {
        const current = batch;
        next = await anchorStep(this.deps.metrics, current.status, () => this.run(batchId, current));
      } catch (error) {
        if (isFenced(error)) throw error;
        const attempts = batch.attempts + 1;
        const delay = backoffDelay(this.deps.retry, attempts);
        this.deps.metrics.anchorStepFailures.inc({ status: batch.status });
        this.deps.log.warn('anchor step failed; retrying', {
          batchId,
          status: batch.status,
          attempts,
          retryInMs: delay,
          err: errorMessage(error),
        });
        await this.deps.batches.save(
          batchId,
          { ...batch, attempts, lastError: errorMessage(error), updatedAt: Date.now() },
          batch,
        );
        this.schedule(batchId, delay);
        return;
      }
      if (next === 'done') {
        this.runs.delete(batchId);
        return;
      }
      if ('waitMs' in next) {
        this.schedule(batchId, next.waitMs);
        return;
      }
      batch = next.batch;
    }
  }

  private schedule(batchId: string, delayMs: number): void {
    const run = this.runs.get(batchId);
    if (!run || this.stopped) return;
    if (run.timer) clearTimeout(run.timer);
    run.timer = setTimeout(() => this.advance(batchId), delayMs);
  }

  /** One step for the batch's status: the next persisted state, a wait, or done. */
  private async run(
    batchId: string,
    batch: AnchorBatch,
  ): Promise<{ batch: AnchorBatch } | { waitMs: number } | 'done'> {
    switch (batch.status) {
      case 'cut':
        return { batch: await this.build(batchId, batch) };
      case 'built':
        return { batch: await this.sign(batchId, batch) };
      case 'signed':
      case 'witnessing':
        return this.witness(batchId, batch);
      case 'witnessed':
        return { batch: await this.publish(batchId, batch) };
      case 'published':
        return this.awaitObserver(batchId, batch);
      case 'processed':
        await this.notifyCompleted(batchId, batch);
        await this.save(batchId, batch, 'completed', { expiresAt: Date.now() + 24 * 3_600_000 });
        return 'done';
      case 'completed':
      case 'failed':
        this.deps.parsedOperations.forgetBuilt(batchId);
        return 'done';
    }
  }

  private async save(
    batchId: string,
    batch: AnchorBatch,
    status: AnchorStatus,
    changes: Partial<AnchorBatch> = {},
  ): Promise<AnchorBatch> {
    const { lastError: _lastError, ...rest } = batch;
    const next: AnchorBatch = { ...rest, ...changes, status, attempts: 0, updatedAt: Date.now() };
    await this.deps.batches.save(batchId, next, batch);
    return next;
  }

  /** Batch files into the CAS; content object, previous anchors and the unsigned credential. */
  private async build(batchId: string, batch: AnchorBatch): Promise<AnchorBatch> {
    const records = await getManyInSlices(this.deps.operations.queued, batch.operationKeys);
    const present: Array<{ key: string; record: QueuedOperation }> = [];
    records.forEach((record, index) => {
      if (record !== undefined) present.push({ key: batch.operationKeys[index] as string, record });
    });
    if (present.length === 0) {
      // Every operation was seen anchored elsewhere meanwhile: nothing left to anchor.
      this.deps.log.info('batch has no operations left to anchor', { batchId });
      this.release(batchId, batch.operationKeys, false);
      return this.save(batchId, batch, 'completed', { operationCount: 0, expiresAt: Date.now() + 24 * 3_600_000 });
    }
    // A version this node no longer runs fails the step (retried): its operations wait until it runs it again.
    const protocol = this.deps.protocols.forAnchor(batch.protocolVersion ?? 0);
    const operations = inBatchOrder(
      present.map(
        ({ key, record }) =>
          this.deps.parsedOperations.takeAccepted(key) ??
          parseOperation(decodeRequest(record.request), { mode: 'anchored', protocol }),
      ),
    );
    const signed = operations
      .filter((operation) => operation.type !== 'create')
      .map((operation) => operation.didSuffix);
    const latest = await this.deps.operations.didAnchors.getMany(signed);
    const previousOf = new Map(signed.map((suffix, index) => [suffix, latest[index]?.anchor]));
    const items: SuffixAnchor[] = operations.map((operation) => {
      if (operation.type === 'create') return { suffix: operation.didSuffix };
      const previous = previousOf.get(operation.didSuffix);
      if (previous === undefined)
        throw new Error(
          `no processed anchor is known for DID ${operation.didSuffix}, whose ${operation.type} cannot be anchored yet`,
        );
      return { suffix: operation.didSuffix, previous };
    });

    // Strings: far cheaper for the event loop to hand to the worker thread than parsed objects.
    const built = await this.deps.batchFiles.build(
      {
        requests: operations.map((operation) => operation.canonicalRequest.toString('utf8')),
        suffixes: operations.map((operation) => operation.didSuffix),
        protocolVersion: protocol.protocolVersion,
      },
      this.deps.cas.casBase,
    );
    await this.deps.cas.writeAll(
      built.files.map((file) => ({ content: file.content, mediaType: CAS_MEDIA.batchFile })),
    );
    const content = buildContentObject({
      coreIndexHashlink: built.coreIndexFileUri,
      author: this.deps.serviceId,
      items,
      namespace: this.deps.namespace,
      profile: anchorProfile(protocol),
    });
    const credential = buildAnchorCredential({
      id: `${this.deps.vcBase}/${randomUUID()}`,
      issuer: this.deps.serviceId,
      issued: new Date(),
      anchor: contentAnchor(content),
      coreIndexAnchor: content.linkset[0].anchor,
      profile: anchorProfile(protocol),
    });
    const batchOrigins = [
      ...new Set(
        present.map(({ record }) => record.anchorOrigin).filter((origin): origin is string => origin !== undefined),
      ),
    ];
    this.deps.parsedOperations.keepBuilt(batchId, operations);
    return this.save(batchId, batch, 'built', {
      operationCount: operations.length,
      coreIndexHashlink: built.coreIndexFileUri,
      items,
      content,
      credential,
      batchOrigins,
    });
  }

  /** The node's own proof: log-backed when a log is configured. */
  private async sign(batchId: string, batch: AnchorBatch): Promise<AnchorBatch> {
    const credential = required(batch.credential, 'credential');
    const proof = await this.deps.localWitness.proof(credential, batch.batchOrigins ?? []);
    const signed = attachProof(credential, proof) as AnchorCredential;
    this.deps.metrics.anchorWriteSeconds.observe((Date.now() - batch.createdAt) / 1000);
    return this.save(batchId, batch, 'signed', { credential: signed });
  }

  private async witness(batchId: string, batch: AnchorBatch): Promise<{ batch: AnchorBatch } | { waitMs: number }> {
    const credential = required(batch.credential, 'credential');
    const startedAt = batch.witnessStartedAt ?? Date.now();
    const attempt = (batch.witnessChecks ?? 0) + 1;
    const outcome = await this.deps.witnessing.witness({
      anchorId: batchId,
      anchor: credential.credentialSubject.href,
      link: () => this.link(batch, credential),
      credential,
      batchOrigins: batch.batchOrigins ?? [],
      startedAt,
      attempt,
    });
    if (outcome.status === 'pending') {
      await this.save(batchId, batch, 'witnessing', { witnessStartedAt: startedAt, witnessChecks: attempt });
      return { waitMs: outcome.recheckAfterMs };
    }
    this.deps.metrics.anchorWitnessSeconds.observe(
      Math.max(0, Date.now() - Date.parse(credential.issuanceDate)) / 1000,
    );
    return {
      batch: await this.save(batchId, batch, 'witnessed', {
        credential: outcome.credential,
        witnessStartedAt: startedAt,
        witnessChecks: attempt,
      }),
    };
  }

  /** Witnessed linkset into the CAS, credential to /vc, anchor to the observer. */
  private async publish(batchId: string, batch: AnchorBatch): Promise<AnchorBatch> {
    const credential = required(batch.credential, 'credential');
    const bytes = canonicalBytes(await this.linkset(batch, credential));
    await this.deps.cas.write(bytes, CAS_MEDIA.linkset);
    const anchorEvent = this.deps.cas.hashlinkFor(bytes);
    const credentialKey = this.deps.credentials.keyOf(credential.id);
    if (credentialKey !== undefined) await this.deps.credentials.put(credentialKey, credential);
    this.deps.parsedOperations.publishBuilt(batchId, required(batch.coreIndexHashlink, 'coreIndexHashlink'));
    await this.deps.submit({ hashlink: anchorEvent, batchId });
    return this.save(batchId, batch, 'published', { anchorEvent, publishedAt: Date.now() });
  }

  private async awaitObserver(
    batchId: string,
    batch: AnchorBatch,
  ): Promise<{ batch: AnchorBatch } | { waitMs: number } | 'done'> {
    const anchorEvent = required(batch.anchorEvent, 'anchorEvent');
    const record = await this.deps.anchorRecord(parseHashlink(anchorEvent).resourceHash);
    if (record?.status === 'processed') {
      if (batch.publishedAt !== undefined) this.noteProcessing((record.processedAt ?? Date.now()) - batch.publishedAt);
      this.release(batchId, batch.operationKeys, false);
      return { batch: await this.save(batchId, batch, 'processed', { processedAt: record.processedAt }) };
    }
    if (record?.status === 'rejected') {
      this.deps.log.error(
        "this node's own anchor was refused by its observer; its operations stay parked in the queue",
        { batchId, anchorEvent, reason: record.reason },
      );
      this.release(batchId, batch.operationKeys, true);
      await this.save(batchId, batch, 'failed', {
        lastError: `observer refused the anchor: ${record.reason ?? 'unknown reason'}`,
      } as Partial<AnchorBatch>);
      return 'done';
    }
    const resubmits = batch.resubmits ?? 0;
    const waited = Date.now() - (batch.resubmittedAt ?? batch.publishedAt ?? 0);
    if (waited > resubmitWaitMs(resubmits) && !this.claimed.has(batchId) && this.deps.anchorClaimed !== undefined) {
      // Read once the first wait is over, not at every poll: on FerretDB the claim is found by a scan.
      if (await this.deps.anchorClaimed(parseHashlink(anchorEvent).resourceHash)) this.claimed.add(batchId);
    }
    // Claimed: an observer is committing it, and the broker hands its unacknowledged message on if that one dies or
    // fails; a hand-over would start a second commit beside the first (on FerretDB each doubled a slow commit's
    // writes; node README, replicas). Only a dead-lettered message needs one then: the longest wait.
    const waitMs = observerWaitMs(resubmits, this.claimed.has(batchId), this.processingMs);
    if (waited > waitMs) {
      this.deps.log.warn('published anchor not processed yet; handing it to the observer again', {
        batchId,
        resubmits: resubmits + 1,
        waitedMs: waitMs,
      });
      await this.deps.submit({ hashlink: anchorEvent, batchId });
      return {
        batch: await this.save(batchId, batch, 'published', { resubmits: resubmits + 1, resubmittedAt: Date.now() }),
      };
    }
    return { waitMs: PROCESSED_POLL_MS };
  }

  private release(batchId: string, operationKeys: readonly string[], failed: boolean): void {
    this.claimed.delete(batchId);
    for (const listener of this.releasedListeners) listener(batchId, operationKeys, failed);
  }

  private async notifyCompleted(batchId: string, batch: AnchorBatch): Promise<void> {
    if (this.listeners.length === 0) return;
    const credential = required(batch.credential, 'credential');
    const hashlink = required(batch.anchorEvent, 'anchorEvent');
    const completed: CompletedAnchor = {
      anchorId: batchId,
      anchorHash: parseHashlink(hashlink).resourceHash,
      hashlink,
      linkset: await this.linkset(batch, credential),
      credential,
      operationCount: batch.operationCount ?? 0,
    };
    for (const listener of this.listeners) await listener(completed);
  }

  private link(batch: AnchorBatch, credential: AnchorCredential): Promise<AnchorLink> {
    return this.deps.batchFiles.link({
      content: required(batch.content, 'content'),
      author: this.deps.serviceId,
      coreIndexHashlink: required(batch.coreIndexHashlink, 'coreIndexHashlink'),
      parents: parentsOf(batch.items ?? []),
      credential,
      encoding: this.deps.encoding,
    });
  }

  private async linkset(batch: AnchorBatch, credential: AnchorCredential): Promise<AnchorLinkset> {
    return { linkset: [await this.link(batch, credential)] };
  }
}

/** The order of the batch files (and of `assembleBatch`): creates, recovers, deactivates, updates. */
function inBatchOrder(operations: ParsedOperation[]): ParsedOperation[] {
  const rank = { create: 0, recover: 1, deactivate: 2, update: 3 } as const;
  return [...operations].sort((a, b) => rank[a.type] - rank[b.type]);
}

function required<T>(value: T | undefined, what: string): T {
  if (value === undefined) throw new Error(`anchor record lacks its ${what}`);
  return value;
}
