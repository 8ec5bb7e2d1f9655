import { opt, type ValuesOf } from '@anchor/common/config';
import { parseCosignatureVerifierKey } from '@anchor/common/tlog';

/** The node's `monitoring` section: the transparency-log monitor and the inclusion-proof monitor. */
export const monitoringOptions = {
  logMonitoringInterval: opt.duration({
    flag: 'vct-log-monitoring-interval',
    env: ['VCT_LOG_MONITORING_INTERVAL'],
    default: '10s',
    min: '10ms',
    help: "How often the monitored transparency logs (this node's, followed services', activated ones) are checked",
  }),
  logMonitoringMaxTreeSize: opt.int({
    flag: 'vct-log-monitoring-max-tree-size',
    env: ['VCT_LOG_MONITORING_MAX_TREE_SIZE'],
    default: 50_000,
    min: 0,
    help: "Up to this tree size a log's root is also rebuilt from its entries (kept in memory: 32 bytes a leaf, twice)",
  }),
  logMonitoringGetEntriesRange: opt.int({
    flag: 'vct-log-monitoring-get-entries-range',
    env: ['VCT_LOG_MONITORING_GET_ENTRIES_RANGE'],
    default: 1000,
    min: 1,
    max: 1000,
    help: 'Entries asked for in one get-entries request when a root is rebuilt',
  }),
  logMonitoringWitnesses: opt.list({
    flag: 'vct-log-monitoring-witnesses',
    env: ['VCT_LOG_MONITORING_WITNESSES'],
    validateItem: cosignerKeyProblem,
    help: 'Witnesses known to the log monitor: their C2SP cosignature/v1 keys (<name>+<hash>+<base64(0x04 key)>, as a witness vct-log prints its witnessVerifierKey)',
  }),
  logMonitoringWitnessQuorum: opt.int({
    flag: 'vct-log-monitoring-witness-quorum',
    env: ['VCT_LOG_MONITORING_WITNESS_QUORUM'],
    default: 0,
    min: 0,
    help: "A log's tree head is trusted only when its C2SP checkpoint (<log>/checkpoint) is that head with cosignatures of this many of --vct-log-monitoring-witnesses; 0: no cosignature asked for",
  }),
  proofMonitoringInterval: opt.duration({
    flag: 'vct-proof-monitoring-interval',
    env: ['VCT_PROOF_MONITORING_INTERVAL'],
    default: '10s',
    min: '10ms',
    help: 'How often logged anchor credentials not yet proven included are checked',
  }),
  proofMonitoringMaxRecords: opt.int({
    flag: 'vct-proof-monitoring-max-records',
    env: ['VCT_PROOF_MONITORING_MAX_RECORDS'],
    default: 500,
    min: 1,
    max: 10_000,
    help: 'Logged credentials checked per round at most',
  }),
  proofMonitoringExpiryPeriod: opt.duration({
    flag: 'vct-proof-monitoring-expiry-period',
    env: ['VCT_PROOF_MONITORING_EXPIRY_PERIOD'],
    default: '1h',
    min: '10ms',
    help: 'A logged credential not proven included this long after it was logged is reported missing and logged again',
  }),
};

/** The check that goes with the section: a quorum no larger than the witnesses it counts. */
export function monitoringOptionsProblem(monitoring: ValuesOf<typeof monitoringOptions>): string | undefined {
  return monitoring.logMonitoringWitnessQuorum > monitoring.logMonitoringWitnesses.length
    ? `--vct-log-monitoring-witness-quorum ${monitoring.logMonitoringWitnessQuorum} asks for more cosignatures than the ${monitoring.logMonitoringWitnesses.length} witnesses of --vct-log-monitoring-witnesses`
    : undefined;
}

/** A `--vct-log-monitoring-witnesses` item, or why not. */
function cosignerKeyProblem(item: string): string | undefined {
  try {
    parseCosignatureVerifierKey(item);
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
}
