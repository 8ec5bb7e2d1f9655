import { errorMessage } from '@anchor/common/errors';
import type { Logger } from '@anchor/common/log';
import { findJrdLink, type WebFingerClient } from '@anchor/common/webfinger';
import type { ActivityStore } from '../activitypub/activity-store.js';
import type { ActorResolver } from '../activitypub/actor-resolver.js';
import { checkLogUrl, type LogSetting } from '../vct-client/log-setting.js';
import type { LogSource, MonitoredLogs } from './monitored-logs.js';

export interface LogDiscoveryDeps {
  logs: MonitoredLogs;
  logSetting: LogSetting;
  store: ActivityStore;
  actors: ActorResolver;
  webFinger: WebFingerClient;
  serviceId: string;
  log: Logger;
}

/**
 * Which logs are monitored without an operator saying so (orb.md §2.5): the node's own log (`/log`) and
 * the log each followed service announces in its WebFinger (`rel: vct`). They are derived each round from the
 * setting and the `following` collection, so changes made on any instance are caught. A log
 * that is no longer wanted is deactivated (its state kept), except when an operator chose otherwise, and
 * not while a followed service's log could not be looked up.
 */
export class LogDiscovery {
  constructor(private readonly deps: LogDiscoveryDeps) {}

  async sync(): Promise<void> {
    const { logs, logSetting, store, serviceId, log } = this.deps;
    const wanted = new Map<string, Exclude<LogSource, 'operator'>>();
    const own = await logSetting.get();
    if (own !== undefined) wanted.set(own, 'own');
    let complete = true;
    for (const service of await store.allRefIris('following', serviceId)) {
      try {
        const logUrl = await this.logOf(service);
        if (logUrl !== undefined && !wanted.has(logUrl)) wanted.set(logUrl, 'followed');
      } catch (error) {
        complete = false;
        log.debug('log monitoring: the log of a followed service cannot be looked up', {
          service,
          err: errorMessage(error),
        });
      }
    }
    for (const [logUrl, source] of wanted) {
      if (await logs.discovered(logUrl, source)) log.info('log monitoring: monitoring a log', { log: logUrl, source });
    }
    if (!complete) return;
    for (const record of await logs.withStatus('active')) {
      if (record.source === 'operator' || wanted.has(record.logUrl)) continue;
      await logs.deactivate(record.logUrl, record.source);
      log.info('log monitoring: no longer monitoring a log', { log: record.logUrl, was: record.source });
    }
  }

  /** The log a service announces: WebFinger of its host for its base URL, link `vct`. */
  private async logOf(service: string): Promise<string | undefined> {
    const base = new URL((await this.deps.actors.actor(service)).inbox).origin;
    const href = findJrdLink(await this.deps.webFinger.lookup(base, base), 'vct')?.href;
    return href === undefined ? undefined : checkLogUrl(href);
  }
}
