import { formatDuration, opt, type ValuesOf } from '@anchor/common/config';

/** The node's `witnessing` section: the Offer window, witness bookkeeping, and the log's place in health. */
export const witnessingOptions = {
  maxWitnessDelay: opt.duration({
    flag: 'max-witness-delay',
    short: 'w',
    env: ['MAX_WITNESS_DELAY'],
    default: '10m',
    help: 'Offer endTime = now + this',
  }),
  maxClockSkew: opt.duration({
    flag: 'max-clock-skew',
    env: ['MAX_CLOCK_SKEW'],
    default: '1m',
    help: 'Tolerance on witness proof creation times',
  }),
  witnessStoreExpiryPeriod: opt.duration({
    flag: 'witness-store-expiry-period',
    env: ['WITNESS_STORE_EXPIRY_PERIOD'],
    default: '12m',
    help: 'How long witness bookkeeping of an anchor is kept (must exceed max-witness-delay + max-clock-skew)',
  }),
  anchorStatusMonitoringInterval: opt.duration({
    flag: 'anchor-status-monitoring-interval',
    env: ['ANCHOR_STATUS_MONITORING_INTERVAL'],
    default: '10s',
    help: 'How often in-process anchors are checked for witnesses that did not answer',
  }),
  anchorStatusGracePeriod: opt.duration({
    flag: 'anchor-status-in-process-grace-period',
    env: ['ANCHOR_STATUS_IN_PROCESS_GRACE_PERIOD'],
    default: '1m',
    help: 'Time given to selected witnesses before others are selected in their place',
  }),
  vctEnabled: opt.bool({
    flag: 'vct-enabled',
    env: ['VCT_ENABLED'],
    default: true,
    help: 'Report the transparency log in health checks (vctStatus "disabled" when false); witnessing uses the /log setting regardless',
  }),
};

/** Witness bookkeeping must outlive an Offer's whole window, or late proofs would find no record. */
export function witnessingOptionsProblem(witnessing: ValuesOf<typeof witnessingOptions>): string | undefined {
  const window = witnessing.maxWitnessDelay + witnessing.maxClockSkew;
  return witnessing.witnessStoreExpiryPeriod > window
    ? undefined
    : `--witness-store-expiry-period (${formatDuration(witnessing.witnessStoreExpiryPeriod)}) must exceed --max-witness-delay + --max-clock-skew (${formatDuration(window)})`;
}
