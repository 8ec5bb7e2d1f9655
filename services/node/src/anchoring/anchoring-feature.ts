import { hostname } from 'node:os';
import { resolve } from 'node:path';
import { formatHostPort } from '@anchor/common/config';
import { getLogger } from '@anchor/common/log';
import { StoreLease } from '@anchor/common/storage';
import type { CasFeature } from '../cas/cas-feature.js';
import type { NodeContext } from '../context.js';
import type { NodeFeature } from '../feature.js';
import { vcVerificationMethod } from '../identity/domain-did-document.js';
import type { ObserverFeature } from '../observer/observer-feature.js';
import type { OperationStores } from '../operations/operation-stores.js';
import type { AnchorCredentialsFeature } from '../anchor-credentials/anchor-credentials-feature.js';
import type { VctClientFeature } from '../vct-client/vct-client-feature.js';
import { AnchorBatches } from './anchor-batches.js';
import { CoalescedWrites } from '../util/coalesced-writes.js';
import { dataUriEncodingFor } from '../anchor-model/anchor-linkset.js';
import { AnchorPipeline, type AnchorCompletedListener } from './anchor-pipeline.js';
import { createBatchFileBuilder } from '../anchor-model/batch-file-builder.js';
import { BatchWriter } from './batch-writer.js';
import { LocalWitness } from './local-witness.js';
import type { ParsedOperationCache } from '../anchor-model/parsed-operation-cache.js';
import { selfWitnessing, type AnchorWitnessing } from './witnessing.js';

export interface AnchoringFeature extends NodeFeature {
  readonly writer: BatchWriter;
  readonly pipeline: AnchorPipeline;
  /** Registers a listener for this node's completed anchors (the federation issue posts a Create for each). */
  onAnchorCompleted(listener: AnchorCompletedListener): void;
}

export interface AnchoringDeps {
  stores: OperationStores;
  /** Shared with the observer, which takes this node's published batches from it. */
  parsedOperations: ParsedOperationCache;
  cas: CasFeature;
  anchorCredentials: AnchorCredentialsFeature;
  vct: VctClientFeature;
  observer: ObserverFeature;
  /** The witnessing step; defaults to `selfWitnessing` (no witnesses: the node's own proof suffices). */
  witnessing?: AnchorWitnessing;
}

/**
 * Operations in, anchors out (orb.md §2.3-§2.5): the anchor pipeline (build, sign with the local witness,
 * witness, publish), then the batch writer (one per deployment, by lease) that cuts batches and hands them
 * to it. The operations parsed at intake reach the pipeline's build, and a built batch's operations reach
 * the observer, through the parsed-operation cache the observer shares. The domain DID document whose key
 * verifies the anchor credentials' proofs is served by the well-known documents (`/.well-known/did.json`).
 */
export async function createAnchoringFeature(ctx: NodeContext, deps: AnchoringDeps): Promise<AnchoringFeature> {
  const log = getLogger('anchor-writer');
  // A restarted instance has the same holder id, so it takes its lease straight back instead of waiting it out.
  const holder = `${hostname()}|${formatHostPort(ctx.config.server.hostUrl)}|${resolve(ctx.config.server.dataDir)}`;
  const lease = await StoreLease.open(ctx.storage, {
    name: 'batch-writer',
    holder,
    durationMs: ctx.config.anchoring.batchWriterLease,
  });
  // Every cut and status change carries the lease's epoch: a writer that lost the lease is refused by the store.
  // Those asked for while one is in flight share the next one's lease link (several anchors in flight at once).
  const fenced = new CoalescedWrites((ops) => lease.write(ops));
  const batches = await AnchorBatches.open(ctx.storage, fenced.write);
  const localWitness = new LocalWitness({
    signer: ctx.keys.vcSigner,
    verificationMethod: vcVerificationMethod(ctx.urls, ctx.keys),
    domain: ctx.config.anchoring.anchorCredentialDomain ?? ctx.urls.externalEndpoint,
    useLog: ctx.config.anchoring.signWithLocalWitness,
    ownOrigins: [ctx.urls.externalEndpoint, ctx.urls.serviceId],
    logSetting: deps.vct.logSetting,
    vct: deps.vct.client,
    documentLoader: ctx.jsonldContexts.documentLoader,
  });

  const pipeline = new AnchorPipeline({
    batches,
    operations: deps.stores,
    cas: deps.cas.store,
    credentials: deps.anchorCredentials.credentials,
    localWitness,
    witnessing: deps.witnessing ?? selfWitnessing,
    submit: (event) => deps.observer.submit(event),
    anchorRecord: (anchorHash) => deps.observer.records.anchors.get(anchorHash),
    anchorClaimed: async (anchorHash) =>
      (await deps.observer.records.sequence.query({ where: { anchorHash }, limit: 1 })).items.length > 0,
    serviceId: ctx.urls.serviceId,
    vcBase: ctx.urls.vcBase,
    namespace: ctx.config.sidetree.didNamespace,
    encoding: dataUriEncodingFor(ctx.config.anchoring.anchorDataUriMediaType),
    retry: {
      initialMs: ctx.config.queue.mqRedeliveryInitialInterval,
      multiplier: ctx.config.queue.mqRedeliveryMultiplier,
      maxMs: ctx.config.queue.mqRedeliveryMaxInterval,
    },
    metrics: ctx.nodeMetrics,
    log,
    parsedOperations: deps.parsedOperations,
    batchFiles: createBatchFileBuilder(),
    protocols: ctx.protocols,
  });
  const batchWriter = new BatchWriter(
    deps.stores,
    batches,
    pipeline,
    deps.parsedOperations,
    lease,
    ctx.nodeMetrics,
    log,
    {
      batchTimeoutMs: ctx.config.anchoring.batchWriterTimeout,
      maxOperations: ctx.config.anchoring.maxOperationsPerBatch,
    },
    ctx.mq,
  );

  // Our anchor is processed: move its batch on at once (other instances' observers are noticed by polling).
  deps.observer.onProcessed((processed) => {
    if (processed.batchId !== undefined && batchWriter.isLeader) pipeline.advance(processed.batchId);
  });

  return {
    name: 'anchoring',
    writer: batchWriter,
    pipeline,
    onAnchorCompleted: (listener) => pipeline.onCompleted(listener),
    start: () => batchWriter.start(),
    async stop() {
      await batchWriter.stop();
      await pipeline.close();
    },
  };
}
