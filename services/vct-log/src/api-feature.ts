import { mountRoutes, type Handler, type RouteSpec } from '@anchor/common/http';
import type { Feature } from '@anchor/common/service';
import { PROJECT_VERSION } from '@anchor/common/version';
import { logApiHandlers } from './api/log-api-handlers.js';
import { LogApi } from './api/log-api.js';
import { webFingerHandler } from './api/webfinger.js';
import type { VctLogContext } from './log-context.js';
import type { LogsFeature } from './logs-feature.js';
import type { PreparerFeature } from './preparer-feature.js';
import { vctLogRoutes } from './routes.js';
import { TilesDir } from './api/tiles-dir.js';
import { servedCheckpoint, tlogTileHandlers } from './api/tlog-tiles.js';
import { SignedCheckpoints } from './signing/signed-checkpoints.js';
import { SignedTreeHeads } from './signing/signed-tree-heads.js';
import { Cosigning, parseWitnessEndpoint } from './witness/cosigning.js';
import { createHttpClient } from '@anchor/common/http-client';

/** The log API of every alias and WebFinger, from the route table. */
export interface ApiFeature extends Feature {
  /** The external base URL (WebFinger subjects are `<baseUrl>/<alias>`); known once the listener is up. */
  readonly baseUrl: string;
  /** The aliases' C2SP checkpoints (their origins and note verifier key). */
  readonly checkpoints: SignedCheckpoints;
  /** Asks `--witnesses` to cosign each new checkpoint; its lines are served with the checkpoint. */
  readonly cosigning: Cosigning;
  /** `--tiles-dir`: the tiles written as files; undefined without it. */
  readonly tilesDir: TilesDir | undefined;
  /** After a round: the witnesses are asked, then the tiles and the cosigned checkpoint written. */
  afterRound(): Promise<void>;
}

export function createApiFeature(
  ctx: VctLogContext,
  logs: LogsFeature,
  preparer: PreparerFeature,
  contextRoutes: readonly RouteSpec[],
  addCheckpoint: Handler,
): ApiFeature {
  const { http, vctMetrics } = ctx;
  let baseUrl = ctx.config.baseUrl?.replace(/\/+$/, '');
  const knownBaseUrl = (): string => {
    if (baseUrl === undefined) throw new Error('vct-log is not started (no base URL yet)');
    return baseUrl;
  };
  // Bodies are small and never revalidated; hashing each one for an ETag is wasted work.
  http.app.set('etag', false);
  http.health.addFields(() => ({ current_time: new Date().toISOString(), version: PROJECT_VERSION }));
  const logApi = new LogApi({
    logs: logs.registry,
    checker: preparer.checker,
    signer: logs.signer,
    treeHeads: new SignedTreeHeads(logs.signer, logs.highWater),
    metrics: vctMetrics,
    maxGetEntries: ctx.config.maxGetEntries ?? 1000,
  });
  const checkpoints = new SignedCheckpoints(logs.signer, logs.highWater, (alias) =>
    tlogOriginOf(ctx.config.tlogOrigin, knownBaseUrl(), alias),
  );
  const cosigning = new Cosigning(logs.logs, {
    http: createHttpClient({
      userAgent: `vct-log/${PROJECT_VERSION}`,
      ...(ctx.config.caCertificates?.length ? { tls: { ca: [...ctx.config.caCertificates] } } : {}),
    }),
    witnesses: (ctx.config.witnesses ?? []).map(parseWitnessEndpoint),
    checkpointNote: (served) => checkpoints.note(served.alias, served.head()),
    ...(ctx.config.witnessTimeoutMs === undefined ? {} : { timeoutMs: ctx.config.witnessTimeoutMs }),
  });
  const tilesDir =
    ctx.config.tilesDir === undefined
      ? undefined
      : new TilesDir({
          dir: ctx.config.tilesDir,
          logs: logs.logs,
          checkpoint: (served) => servedCheckpoint(checkpoints, cosigning, served),
        });
  mountRoutes(
    http,
    vctLogRoutes(http, {
      logApi: logApiHandlers(logApi, vctMetrics),
      tlog: tlogTileHandlers(logs.registry, checkpoints, cosigning),
      webFinger: webFingerHandler({
        logs: logs.registry,
        signer: logs.signer,
        metrics: vctMetrics,
        baseUrl: knownBaseUrl,
      }),
      addCheckpoint,
      contextRoutes,
    }),
  );
  return {
    name: 'api',
    checkpoints,
    cosigning,
    tilesDir,
    async afterRound() {
      await cosigning.runNow();
      await tilesDir?.runNow();
    },
    get baseUrl() {
      return knownBaseUrl();
    },
    async stop() {
      await tilesDir?.close();
      await cosigning.close();
    },
    async start() {
      baseUrl ??= `${ctx.listener.secure ? 'https' : 'http'}://${displayHost(ctx.config.host ?? '127.0.0.1')}:${ctx.listener.port}`;
    },
  };
}

/** `--tlog-origin` with the alias in it, or the base URL without its scheme and the alias (C2SP's schema-less URL). */
export function tlogOriginOf(template: string | undefined, baseUrl: string, alias: string): string {
  return (template ?? `${baseUrl.replace(/^[a-z]+:\/\//i, '')}/{alias}`).replaceAll('{alias}', alias);
}

function displayHost(host: string): string {
  if (host === '0.0.0.0' || host === '' || host === '::') return 'localhost';
  return host.includes(':') ? `[${host}]` : host;
}
