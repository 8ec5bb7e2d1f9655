import { notFound } from '@anchor/common/errors';
import { answer, plainTextBody, type Handler } from '@anchor/common/http';
import { createWebFingerClient } from '@anchor/common/webfinger';
import type { NodeContext } from '../context.js';
import type { NodeFeature } from '../feature.js';
import { LogSetting } from './log-setting.js';
import { VctClient } from './vct-client.js';

export interface VctClientFeature extends NodeFeature {
  readonly logSetting: LogSetting;
  readonly client: VctClient;
  readonly handlers: { readonly getLog: Handler; readonly setLog: Handler };
}

/** Health statuses that are not failures (orb.md §8.2). */
export const VCT_DISABLED = 'disabled';
export const LOG_NOT_CONFIGURED = 'log endpoint not configured';

/**
 * The node's transparency log: `GET /log` (text/plain URL, 404 when none), `POST /log` (text/plain URL;
 * an empty body removes the log), the client the local witness logs anchor credentials with, and the
 * `vctStatus` health check ("success", "disabled", "log endpoint not configured", else the error).
 */
export async function createVctClientFeature(ctx: NodeContext): Promise<VctClientFeature> {
  const logSetting = new LogSetting(ctx.configValues);
  const client = new VctClient({
    metrics: ctx.nodeMetrics,
    httpClient: ctx.httpClient,
    webFinger: createWebFingerClient({
      httpClient: ctx.httpClient,
      cacheTtlMs: ctx.config.federation.actorCacheExpiration,
    }),
    readToken: ctx.config.auth.requestTokens?.['vct-read'],
    writeToken: ctx.config.auth.requestTokens?.['vct-write'],
  });

  const getLog: Handler = async () => {
    const url = await logSetting.get();
    if (url === undefined) throw notFound('no log is configured');
    return answer({ text: url });
  };
  const setLog: Handler = async (req) => {
    const url = await logSetting.set(
      plainTextBody(req, 'POST /log takes the log URL as a text/plain body', { jsonStringAsText: true }) ?? '',
    );
    return answer({ text: url ?? '' });
  };

  ctx.http.health.register(
    'vctStatus',
    async () => {
      if (!ctx.config.witnessing.vctEnabled) return VCT_DISABLED;
      const url = await logSetting.get();
      if (url === undefined) return LOG_NOT_CONFIGURED;
      return client.health(url);
    },
    // The log's URL is read from the store: a stalled store is dbStatus's to report.
    { acceptable: [VCT_DISABLED, LOG_NOT_CONFIGURED], dependsOn: 'dbStatus' },
  );

  return { name: 'vct-client', logSetting, client, handlers: { getLog, setLog } };
}
