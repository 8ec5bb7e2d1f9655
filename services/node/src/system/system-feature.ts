import { PROJECT_VERSION } from '@anchor/common/version';
import type { Handler } from '@anchor/common/http';
import type { NodeContext } from '../context.js';
import type { NodeFeature } from '../feature.js';
import { acceptListHandlers } from './accept-list-handlers.js';
import { allowedOriginsHandlers } from './allowed-origins-handlers.js';

export interface SystemFeature extends NodeFeature {
  readonly handlers: {
    readonly acceptList: { readonly get: Handler; readonly post: Handler };
    readonly allowedOrigins: { readonly get: Handler; readonly post: Handler };
  };
}

/**
 * The operator's endpoints besides the HTTP kit's built-in `/healthcheck`, `/metrics` and `/loglevels`:
 * accept lists and allowed origins (both token-only), and the `version` member of the health result.
 *
 * Health itself is wired where its parts live: the context registers dbStatus (the store's ping), mqStatus
 * (the queue's connection) and kmsStatus (the signing keys), the vct-client feature vctStatus, and the
 * server reports "Starting" (503) until every feature has started; maintenance
 * mode (`--enable-maintenance-mode`) keeps /healthcheck at 200 reporting `"status": "Maintenance"` while
 * operations, resolution and the inbox answer 503.
 */
export function createSystemFeature(ctx: NodeContext): SystemFeature {
  ctx.http.health.addFields(() => ({ version: PROJECT_VERSION }));
  return {
    name: 'system',
    handlers: {
      acceptList: acceptListHandlers(ctx.acceptLists),
      allowedOrigins: allowedOriginsHandlers(ctx.allowedOrigins),
    },
    async start() {
      if (ctx.maintenance)
        ctx.log.warn(
          'maintenance mode: operations, resolution and the inbox answer 503 until the node is restarted without --enable-maintenance-mode',
        );
    },
  };
}
