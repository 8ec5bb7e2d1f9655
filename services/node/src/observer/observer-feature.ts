import { parseHashlink } from '@anchor/common/encoding';
import { errorMessage, isRetryable } from '@anchor/common/errors';
import { getLogger } from '@anchor/common/log';
import type { Subscription } from '@anchor/common/mq';
import { queryPages } from '@anchor/common/storage';
import { createBatchFileBuilder } from '../anchor-model/batch-file-builder.js';
import type { ParsedOperationCache } from '../anchor-model/parsed-operation-cache.js';
import type { CasFeature } from '../cas/cas-feature.js';
import type { NodeContext } from '../context.js';
import type { NodeFeature } from '../feature.js';
import type { OperationStores } from '../operations/operation-stores.js';
import type { ResolutionService } from '../resolution/resolution-service.js';
import { ANCHOR_TOPIC, type AnchorEvent, type ProcessedAnchor } from '../anchor-model/anchor-event.js';
import { AnchorObserver } from './anchor-observer.js';
import { AnchorRecords } from '../anchor-model/anchor-records.js';
import { CredentialVerifier } from './credential-verifier.js';

export interface ObserverFeature extends NodeFeature {
  readonly observer: AnchorObserver;
  readonly records: AnchorRecords;
  /**
   * Hands an anchor to the observer, durably: kept in `anchor-pending` (so a crash or a lost message loses
   * nothing; pending events are re-queued at start), then queued on `node.anchor`. Idempotent.
   */
  submit(event: AnchorEvent): Promise<void>;
  /** Called (in this process) after each anchor is committed. */
  onProcessed(listener: (processed: ProcessedAnchor) => void): void;
}

export async function createObserverFeature(
  ctx: NodeContext,
  deps: {
    stores: OperationStores;
    parsedOperations: ParsedOperationCache;
    cas: CasFeature;
    resolution: ResolutionService;
  },
): Promise<ObserverFeature> {
  const log = getLogger('observer');
  const records = await AnchorRecords.open(ctx.storage);
  const verifier = new CredentialVerifier(
    ctx.didResolver,
    ctx.config.federation.actorCacheExpiration,
    ctx.jsonldContexts.documentLoader,
  );
  // Other nodes' batch files are read on a worker thread: the event loop meanwhile commits and serves.
  const reader = createBatchFileBuilder();
  const observer = new AnchorObserver(
    deps.stores,
    records,
    deps.cas.resolver,
    verifier,
    deps.parsedOperations,
    ctx.nodeMetrics,
    log,
    {
      namespace: ctx.config.sidetree.didNamespace,
      protocols: ctx.protocols,
      discoveryDomain: ctx.config.discovery.discoveryDomain,
      reader,
    },
  );
  // This instance's cached views of the anchored DIDs are stale now (other instances see the new tokens).
  observer.onProcessed((processed) => {
    for (const suffix of processed.suffixes) deps.resolution.invalidate(suffix);
  });

  let subscription: Subscription | undefined;

  const submit = async (event: AnchorEvent): Promise<void> => {
    const anchorHash = parseHashlink(event.hashlink).resourceHash;
    if (await records.anchors.get(anchorHash)) return;
    await records.pending.insert(anchorHash, { event, submittedAt: Date.now() });
    // Processed between the read and the insert: that commit deleted no record, so this one must go.
    if (await records.anchors.get(anchorHash)) {
      await records.pending.delete(anchorHash);
      return;
    }
    await ctx.mq.publish(ANCHOR_TOPIC, event);
  };

  const handle = async (event: AnchorEvent): Promise<void> => {
    if (typeof event?.hashlink !== 'string') {
      log.error('dropped an anchor event without a hashlink', { event });
      return;
    }
    try {
      await observer.process(event);
    } catch (error) {
      if (isRetryable(error)) {
        log.warn('anchor processing failed; it will be retried', {
          hashlink: event.hashlink,
          err: errorMessage(error),
        });
        throw error;
      }
      log.error('anchor rejected', {
        hashlink: event.hashlink,
        batchId: event.batchId,
        attributedTo: event.attributedTo,
        reason: errorMessage(error),
      });
      try {
        await observer.reject(event, errorMessage(error));
      } catch (recordError) {
        log.error('could not record the rejected anchor', { hashlink: event.hashlink, err: errorMessage(recordError) });
      }
    }
  };

  return {
    name: 'observer',
    observer,
    records,
    submit,
    onProcessed: (listener) => observer.onProcessed(listener),
    async start() {
      subscription = await ctx.mq.subscribe<AnchorEvent>(ANCHOR_TOPIC, ({ body }) => handle(body), {
        concurrency: ctx.config.queue.mqPoolSize,
      });
      // Events accepted before a crash or a restart, whose queue messages may be gone (in-process queue).
      let requeued = 0;
      for await (const items of queryPages(records.pending, { orderBy: { field: 'submittedAt' } })) {
        for (const { value } of items) await ctx.mq.publish(ANCHOR_TOPIC, value.event);
        requeued += items.length;
      }
      if (requeued > 0) log.info('re-queued pending anchors', { count: requeued });
    },
    async stop() {
      await subscription?.close();
      subscription = undefined;
      await reader.close();
    },
  };
}
