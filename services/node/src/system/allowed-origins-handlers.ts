import { requireToken } from '@anchor/common/http';
import { validate } from '@anchor/common/schemas';
import { ALLOWED_ORIGINS_UPDATE } from '../schemas/index.js';
import type { NodeContext } from '../context.js';
import { KeyedMutex } from '../util/keyed-mutex.js';
import { jsonBody } from '../util/json-body.js';

/**
 * `GET|POST /allowedorigins` (spec System endpoints, "Allowed anchor origins"): the anchor origins create
 * and recover operations may name. Token-only, as in the original.
 *
 *   GET                      → ["https://...", ...]
 *   POST {add?: [], remove?: []} → adds then removes (idempotent); answers the new list. The intake uses
 *        the same `AllowedOrigins`, so the change applies to the next operation this instance receives.
 */
export function registerAllowedOriginsRoutes(ctx: NodeContext): void {
  const updates = new KeyedMutex();

  ctx.http.routes.get('/allowedorigins', requireToken, async (_req, res) => {
    res.json(await ctx.allowedOrigins.list());
  });

  ctx.http.routes.post('/allowedorigins', requireToken, async (req, res) => {
    const change = validate(ALLOWED_ORIGINS_UPDATE, jsonBody(req.body, 'allowed origins update'), { what: 'allowed origins update' });
    res.json(await updates.run('allowed-origins', () => ctx.allowedOrigins.update(change)));
  });
}
