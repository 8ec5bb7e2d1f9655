import { PROJECT_VERSION } from '@anchor/common/version';
import type { NodeContext } from '../context.js';
import type { NodeFeature } from '../feature.js';
import { registerAcceptListRoutes } from './accept-list-routes.js';
import { registerAllowedOriginsRoutes } from './allowed-origins-routes.js';

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
export function createSystemFeature(ctx: NodeContext): NodeFeature {
  registerAcceptListRoutes(ctx, ctx.acceptLists);
  registerAllowedOriginsRoutes(ctx);
  ctx.http.health.addFields(() => ({ version: PROJECT_VERSION }));
  return {
    name: 'system',
    async start() {
      if (ctx.maintenance) ctx.log.warn('maintenance mode: operations, resolution and the inbox answer 503 until the node is restarted without --enable-maintenance-mode');
    },
  };
}
