import { contextFrom, inSpan, linkFrom, tracingEnabled, type Link, type TraceCarrier } from '@anchor/common/tracing';
import type { AnchorStatus } from '../anchor-model/anchor-status.js';
import type { NodeMetrics } from './node-metrics.js';

/** OpenTelemetry's default limit of links per span. */
const MAX_LINKS = 128;

/**
 * Runs the start of a batch's anchoring in a span under the trace of its first operation's request, linked
 * to the traces of the others, so a create's trace goes on into its batch, the witnesses' Offers, the log and
 * the followers' observers (the pipeline's later steps inherit the context through their timers and
 * promises). With tracing off it only runs `work`.
 */
export function batchSpan(
  batchId: string,
  traces: ReadonlyArray<TraceCarrier | undefined>,
  work: () => Promise<void>,
): Promise<void> {
  if (!tracingEnabled()) return work();
  const [first, ...others] = traces;
  const links = others
    .slice(0, MAX_LINKS)
    .map(linkFrom)
    .filter((link): link is Link => link !== undefined);
  return inSpan(
    'anchor batch',
    {
      parent: contextFrom(first),
      links,
      attributes: { 'anchor.batch_id': batchId, 'anchor.operations': traces.length },
    },
    work,
  );
}

/** One anchor pipeline step, timed into `node_anchor_step_seconds{status}` and, with tracing on, a span. */
export function anchorStep<T>(metrics: NodeMetrics, status: AnchorStatus, work: () => Promise<T>): Promise<T> {
  const end = metrics.anchorStepSeconds.startTimer({ status });
  return inSpan(`anchor step ${status}`, { attributes: { 'anchor.status': status } }, work).finally(end);
}
