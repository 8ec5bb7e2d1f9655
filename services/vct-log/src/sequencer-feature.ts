import { randomUUID } from 'node:crypto';
import type { Feature } from '@anchor/common/service';
import type { VctLogContext } from './log-context.js';
import type { LogsFeature } from './logs-feature.js';
import { openSequencerLease, Sequencer } from './merkle-log/sequencer.js';

/** Integrates accepted entries every interval; on stop, lets the round in flight finish. */
export interface SequencerFeature extends Feature {
  /** Runs one integration round now instead of waiting for the interval (tests, tools). */
  runRound(): Promise<void>;
}

export async function createSequencerFeature(
  ctx: VctLogContext,
  { logs }: LogsFeature,
  /** Runs after every round (the witnesses are asked to cosign a new head). */
  afterRound: () => void = () => undefined,
): Promise<SequencerFeature> {
  const options = ctx.config;
  const { vctMetrics } = ctx;
  // Replicas sharing a database take turns; an embedded database has one writer anyway.
  const useLease = options.useSequencerLease ?? options.storage?.type === 'mongodb';
  const sequencer = new Sequencer(logs, {
    intervalMs: options.integrationIntervalMs ?? 250,
    batchSize: options.integrationBatchSize ?? 2000,
    maxRootAgeMs: options.maxRootAgeMs ?? 60 * 60_000,
    ...(useLease
      ? { lease: await openSequencerLease(ctx.storage, randomUUID(), options.sequencerLeaseMs ?? 10_000) }
      : {}),
    onIntegrated: (integratedLog, result, seconds) => {
      vctMetrics.integratedEntries.inc({ alias: integratedLog.alias }, result.integrated);
      vctMetrics.integrationBatchSeconds.observe({ alias: integratedLog.alias }, seconds);
      for (const delay of result.delaysMs)
        vctMetrics.integrationDelaySeconds.observe({ alias: integratedLog.alias }, delay / 1000);
    },
    onRoundFailed: (failedLog) => vctMetrics.integrationFailures.inc({ alias: failedLog.alias }),
    afterRound: () => {
      for (const served of logs) vctMetrics.treeSize.set({ alias: served.alias }, served.head().size);
      afterRound();
    },
  });
  return {
    name: 'sequencer',
    runRound: () => sequencer.runRound(),
    async start() {
      sequencer.start();
    },
    stop: () => sequencer.stop(),
  };
}
