import type { Counter, Gauge, Histogram } from 'prom-client';
import type { Metrics } from '@anchor/common/metrics';

/**
 * The node's pipeline metrics, all `node_`-prefixed (the registry adds the prefix), declared in one place
 * so every feature records into the same series and operators find them documented together (orb.md
 * §8.1 lists Orb's equivalents). Durations are histograms in seconds with buckets 5 ms - 10 s.
 */
export interface NodeMetrics {
  /** Operations accepted at POST /sidetree/v1/operations, by type. */
  operationsAccepted: Counter<'type'>;
  /** Operations rejected at intake, by reason class (validation, origin, deactivated, ...). */
  operationsRejected: Counter<'reason'>;
  /** Time to validate and durably accept one operation. */
  operationAcceptSeconds: Histogram<'type'>;
  /** Operations per cut batch. */
  batchSize: Histogram<string>;
  /** From the first operation of a batch being accepted to the batch being cut. */
  batchCutSeconds: Histogram<string>;
  /** Building, signing and storing an anchor for a cut batch. */
  anchorWriteSeconds: Histogram<string>;
  /** From the anchor credential's issuance to its witness policy being satisfied. */
  anchorWitnessSeconds: Histogram<string>;
  /** From an operation being accepted to its anchor being processed (published). */
  operationPublishSeconds: Histogram<string>;
  /** Processing one anchor (own or received) into published operations. */
  observerProcessAnchorSeconds: Histogram<'origin'>;
  /** Operations applied by the observer, by anchor origin (local or remote). */
  observerOperationsApplied: Counter<'origin'>;
  /** Resolving one DID at the identifiers endpoint. */
  resolutionSeconds: Histogram<'result'>;
  /** Estimated heap bytes of the resolution cache (`--resolution-cache-max-bytes` bounds it). */
  resolutionCacheBytes: Gauge<string>;
  /** DIDs in the resolution cache (`--resolution-cache-size` bounds it). */
  resolutionCacheEntries: Gauge<string>;
  /** Operations accepted but not yet anchored. */
  pendingOperations: Gauge<string>;
  /** The stored queue's depth as intake's back-pressure last counted it (every instance). */
  operationQueueDepth: Gauge<string>;
  /** Handling one received activity, by activity type (spec: node_activitypub_inbox_handler_seconds). */
  inboxHandlerSeconds: Histogram<'type'>;
  /** Posting one activity to the outbox, by activity type. */
  outboxPostSeconds: Histogram<'type'>;
  /** Activities posted to the outbox, by type. */
  outboxActivities: Counter<'type'>;
  /** Outbound deliveries by outcome (delivered, retry, dropped, dead-lettered). */
  deliveries: Counter<'outcome'>;
  /** Anchor steps that failed and wait for a retry, by the anchor's status then (a failing log or store shows here). */
  anchorStepFailures: Counter<'status'>;
  /** One anchor pipeline step, by the status it runs from: cut = build, built = sign, signed/witnessing = Offers, witnessed = publish. */
  anchorStepSeconds: Histogram<'status'>;
  /** Resolving the recipients' inboxes of one posted activity (the fan-out). */
  outboxResolveInboxesSeconds: Histogram<string>;
  /** Resolving content by hashlink (local CAS first, then the hashlink's links and sources). */
  casResolveSeconds: Histogram<string>;
  /** Reading content, by where it came from: this node's CAS (`local`) or a peer (`remote`). */
  casReadSeconds: Histogram<'type'>;
  /** Content found in this node's CAS without a fetch. */
  casCacheHits: Counter<string>;
  /** Logging one anchor credential at a transparency log (add-vc). */
  vctAddVcSeconds: Histogram<string>;
}

/**
 * Label values known in advance. Their series are created at zero when the node starts, so a scrape of a
 * fresh node already shows every family with its buckets, and `rate()` / `increase()` see the first event
 * instead of a series that appears from nowhere (a labelled prom-client metric has no samples until used).
 */
export const KNOWN_LABELS = Object.freeze({
  operationTypes: ['create', 'update', 'recover', 'deactivate'],
  /** The activity types the inbox handles (orb.md §8.1 lists Orb's: the spec's list is cut off). */
  activityTypes: ['Accept', 'Announce', 'Create', 'Follow', 'InviteWitness', 'Like', 'Offer', 'Reject', 'Undo'],
  anchorOrigins: ['local', 'remote'],
  resolutionResults: ['found', 'deactivated', 'not_found', 'error'],
  /** The anchor statuses a pipeline step runs from (anchor-batches.ts). */
  anchorStatuses: ['cut', 'built', 'signed', 'witnessing', 'witnessed', 'published', 'processed'],
  casReadTypes: ['local', 'remote'],
} as const);

export function createNodeMetrics(metrics: Metrics): NodeMetrics {
  const nodeMetrics = declareNodeMetrics(metrics);
  for (const type of KNOWN_LABELS.operationTypes) {
    nodeMetrics.operationsAccepted.labels({ type }).inc(0);
    nodeMetrics.operationAcceptSeconds.zero({ type });
  }
  for (const type of KNOWN_LABELS.activityTypes) nodeMetrics.inboxHandlerSeconds.zero({ type });
  for (const origin of KNOWN_LABELS.anchorOrigins) {
    nodeMetrics.observerProcessAnchorSeconds.zero({ origin });
    nodeMetrics.observerOperationsApplied.labels({ origin }).inc(0);
  }
  for (const result of KNOWN_LABELS.resolutionResults) nodeMetrics.resolutionSeconds.zero({ result });
  for (const status of KNOWN_LABELS.anchorStatuses) {
    nodeMetrics.anchorStepFailures.labels({ status }).inc(0);
    nodeMetrics.anchorStepSeconds.zero({ status });
  }
  for (const type of KNOWN_LABELS.casReadTypes) nodeMetrics.casReadSeconds.zero({ type });
  return nodeMetrics;
}

function declareNodeMetrics(metrics: Metrics): NodeMetrics {
  return {
    operationsAccepted: metrics.counter({
      name: 'operations_accepted_total',
      help: 'Sidetree operations accepted',
      labelNames: ['type'],
    }),
    operationsRejected: metrics.counter({
      name: 'operations_rejected_total',
      help: 'Sidetree operations rejected at intake',
      labelNames: ['reason'],
    }),
    operationAcceptSeconds: metrics.histogram({
      name: 'operation_accept_seconds',
      help: 'Seconds to validate and durably accept an operation',
      labelNames: ['type'],
    }),
    batchSize: metrics.histogram({
      name: 'batch_size',
      help: 'Operations per cut batch',
      buckets: [1, 10, 50, 100, 500, 1000, 2500, 5000, 10000],
    }),
    batchCutSeconds: metrics.histogram({
      name: 'batch_cut_seconds',
      help: 'Seconds from the first operation of a batch to its cut',
    }),
    anchorWriteSeconds: metrics.histogram({
      name: 'anchor_write_seconds',
      help: 'Seconds to build, sign and store an anchor',
    }),
    anchorWitnessSeconds: metrics.histogram({
      name: 'anchor_witness_seconds',
      help: 'Seconds from anchor credential issuance to the witness policy being satisfied',
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 600],
    }),
    operationPublishSeconds: metrics.histogram({
      name: 'operation_publish_seconds',
      help: 'Seconds from operation acceptance to its anchor being processed',
      // Fine around the batch timeout (1 s by default) and the 2 s target, coarse beyond.
      buckets: [0.1, 0.25, 0.5, 0.75, 1, 1.25, 1.5, 1.75, 2, 2.5, 3, 5, 10, 30, 60],
    }),
    observerProcessAnchorSeconds: metrics.histogram({
      name: 'observer_process_anchor_seconds',
      help: 'Seconds to process one anchor into published operations',
      labelNames: ['origin'],
    }),
    observerOperationsApplied: metrics.counter({
      name: 'observer_operations_applied_total',
      help: 'Operations stored from processed anchors',
      labelNames: ['origin'],
    }),
    resolutionSeconds: metrics.histogram({
      name: 'resolution_seconds',
      help: 'Seconds to resolve a DID',
      labelNames: ['result'],
    }),
    resolutionCacheBytes: metrics.gauge({
      name: 'resolution_cache_bytes',
      help: 'Estimated heap bytes of the resolution cache',
    }),
    resolutionCacheEntries: metrics.gauge({ name: 'resolution_cache_entries', help: 'DIDs in the resolution cache' }),
    pendingOperations: metrics.gauge({ name: 'pending_operations', help: 'Operations accepted but not yet anchored' }),
    operationQueueDepth: metrics.gauge({
      name: 'operation_queue_depth',
      help: 'Operations in the queue (accepted, not yet anchored) as intake last counted them; --max-queued-operations bounds it',
    }),
    inboxHandlerSeconds: metrics.histogram({
      name: 'activitypub_inbox_handler_seconds',
      help: 'Seconds to handle a received activity',
      labelNames: ['type'],
    }),
    outboxPostSeconds: metrics.histogram({
      name: 'activitypub_outbox_post_seconds',
      help: 'Seconds to post an activity to the outbox',
      labelNames: ['type'],
    }),
    outboxActivities: metrics.counter({
      name: 'activitypub_outbox_count',
      help: 'Activities posted to the outbox',
      labelNames: ['type'],
    }),
    deliveries: metrics.counter({
      name: 'activitypub_deliveries_total',
      help: 'Outbound activity deliveries by outcome',
      labelNames: ['outcome'],
    }),
    anchorStepFailures: metrics.counter({
      name: 'anchor_step_failures_total',
      help: 'Anchor steps that failed and wait for a retry, by anchor status',
      labelNames: ['status'],
    }),
    anchorStepSeconds: metrics.histogram({
      name: 'anchor_step_seconds',
      help: 'Seconds per anchor pipeline step, by the status it runs from',
      labelNames: ['status'],
    }),
    outboxResolveInboxesSeconds: metrics.histogram({
      name: 'activitypub_outbox_resolve_inboxes_seconds',
      help: "Seconds to resolve the recipients' inboxes of a posted activity",
    }),
    casResolveSeconds: metrics.histogram({
      name: 'cas_resolve_seconds',
      help: 'Seconds to resolve content by hashlink',
    }),
    casReadSeconds: metrics.histogram({
      name: 'cas_read_seconds',
      help: "Seconds to read content from this node's CAS (local) or a peer (remote)",
      labelNames: ['type'],
    }),
    casCacheHits: metrics.counter({
      name: 'cas_cache_hit_count',
      help: "Content found in this node's CAS without a fetch",
    }),
    vctAddVcSeconds: metrics.histogram({
      name: 'vct_witness_add_vc_seconds',
      help: 'Seconds to log an anchor credential at a transparency log (add-vc)',
    }),
  };
}
