import type { Handler } from '@anchor/common/http';
import { getLogger } from '@anchor/common/log';
import { parseCosignatureVerifierKey } from '@anchor/common/tlog';
import { createWebFingerClient } from '@anchor/common/webfinger';
import type { ActivityPubFeature } from '../activitypub/activitypub-feature.js';
import type { NodeContext } from '../context.js';
import type { NodeFeature } from '../feature.js';
import type { VctClientFeature } from '../vct-client/vct-client-feature.js';
import { LogConsistencyMonitor } from './log-consistency-monitor.js';
import { LogDiscovery } from './log-discovery.js';
import { logMonitorHandlers } from './log-monitor-handlers.js';
import { createMonitoringMetrics } from './monitoring-metrics.js';
import { MonitoredLogs } from './monitored-logs.js';
import { ProofMonitor } from './proof-monitor.js';
import { RepeatingTask } from './repeating-task.js';
import { WatchedCredentials } from './watched-credentials.js';

export interface LogMonitoringFeature extends NodeFeature {
  readonly logs: MonitoredLogs;
  readonly watched: WatchedCredentials;
  readonly consistency: LogConsistencyMonitor;
  readonly proofs: ProofMonitor;
  readonly handlers: { readonly get: Handler; readonly post: Handler };
}

export interface LogMonitoringDeps {
  vct: VctClientFeature;
  activityPub: ActivityPubFeature;
  /** Whether this instance runs the deployment's background work (the batch writer's lease). */
  isLeader: () => boolean;
}

/** A health status that is not a failure: nothing monitored has misbehaved. */
const NO_FAILED_LOG = 'success';

/**
 * Log monitoring and proof monitoring of the node's transparency logs (orb.md §2.5): the `/log-monitor`
 * endpoints, the `logMonitorStatus` health check (unhealthy while an active log is marked failed), and two
 * schedules run by the batch-writer instance of a deployment only: log discovery then consistency checks
 * every `--vct-log-monitoring-interval`, and inclusion checks of the credentials this node logged every
 * `--vct-proof-monitoring-interval`. Every credential the node's log client adds is watched before its
 * promise is used.
 */
export async function createLogMonitoringFeature(
  ctx: NodeContext,
  deps: LogMonitoringDeps,
): Promise<LogMonitoringFeature> {
  const log = getLogger('log-monitoring');
  const config = ctx.config.monitoring;
  const metrics = createMonitoringMetrics(ctx.metrics);
  const logs = await MonitoredLogs.open(ctx.storage);
  const watched = await WatchedCredentials.open(ctx.storage);
  const client = deps.vct.client;

  const consistency = new LogConsistencyMonitor(logs, client, metrics, log, {
    maxTreeSize: config.logMonitoringMaxTreeSize,
    getEntriesRange: config.logMonitoringGetEntriesRange,
    witnesses: {
      cosigners: config.logMonitoringWitnesses.map((vkey) => parseCosignatureVerifierKey(vkey)),
      quorum: config.logMonitoringWitnessQuorum,
    },
  });
  const proofs = new ProofMonitor(watched, client, metrics, log, {
    intervalMs: config.proofMonitoringInterval,
    maxRecords: config.proofMonitoringMaxRecords,
    deadlineMs: config.proofMonitoringExpiryPeriod,
  });
  client.onLogged((logUrl, credential, promise) => proofs.watch(logUrl, credential, promise));

  const discovery = new LogDiscovery({
    logs,
    logSetting: deps.vct.logSetting,
    store: deps.activityPub.store,
    actors: deps.activityPub.actors,
    webFinger: createWebFingerClient({
      httpClient: ctx.httpClient,
      cacheTtlMs: ctx.config.federation.actorCacheExpiration,
    }),
    serviceId: ctx.urls.serviceId,
    log,
  });

  const logTask = new RepeatingTask(
    'log monitoring',
    config.logMonitoringInterval,
    async () => {
      if (!deps.isLeader()) return;
      await discovery.sync();
      await consistency.checkAll();
    },
    log,
  );
  const proofTask = new RepeatingTask(
    'proof monitoring',
    config.proofMonitoringInterval,
    async () => {
      if (deps.isLeader()) await proofs.checkDue();
    },
    log,
  );

  // The watched logs are read from the store: a stalled store is dbStatus's to report.
  ctx.http.health.register(
    'logMonitorStatus',
    async () => {
      const failed = (await logs.withStatus('active')).filter((record) => record.failure !== undefined);
      if (failed.length === 0) return NO_FAILED_LOG;
      return `failed: ${failed.map((record) => `${record.logUrl} (${record.failure!.kind})`).join(', ')}`;
    },
    { dependsOn: 'dbStatus' },
  );

  return {
    name: 'log-monitoring',
    logs,
    watched,
    consistency,
    proofs,
    handlers: logMonitorHandlers(logs),
    async start() {
      logTask.start();
      proofTask.start();
    },
    async stop() {
      await Promise.all([logTask.stop(), proofTask.stop()]);
    },
  };
}
