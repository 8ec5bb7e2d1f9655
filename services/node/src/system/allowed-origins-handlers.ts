import { ALLOWED_ORIGINS_UPDATE } from '../schemas/index.js';
import { KeyedMutex } from '@anchor/common/concurrency';
import { answer, jsonBody, type Handler } from '@anchor/common/http';
import type { AllowedOrigins } from '../runtime-config/allowed-origins.js';

/**
 * `GET|POST /allowedorigins` (spec System endpoints, "Allowed anchor origins"): the anchor origins create
 * and recover operations may name. Token-only, as in Orb.
 *
 *   GET                      → ["https://...", ...]
 *   POST {add?: [], remove?: []} → adds then removes (idempotent); answers the new list. The intake uses
 *        the same `AllowedOrigins`, so the change applies to the next operation this instance receives.
 */
export function allowedOriginsHandlers(allowedOrigins: AllowedOrigins): { get: Handler; post: Handler } {
  const updates = new KeyedMutex();

  const get: Handler = async () => answer({ json: await allowedOrigins.list() });

  const post: Handler = async (req) => {
    const change = jsonBody(req, ALLOWED_ORIGINS_UPDATE, 'allowed origins update');
    return answer({ json: await updates.run('allowed-origins', () => allowedOrigins.update(change)) });
  };
  return { get, post };
}
