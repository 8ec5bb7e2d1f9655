import type { FastHandler, FastRequest, FastRoutes } from '@anchor/common/http';
import type { Operation, VctMetrics } from '../metrics.js';
import type { LogApi } from './log-api.js';

type Action = (api: LogApi, alias: string, request: FastRequest) => string | Promise<string>;

/** The log API's actions: method, path under `/<alias>`, the `vct_*` operation label, and the call. */
const ACTIONS: ReadonlyArray<readonly ['GET' | 'POST', string, Operation, Action]> = [
  ['POST', '/v1/add-vc', 'add_vc', (api, alias, req) => api.addVc(alias, req.body?.toString('utf8'))],
  ['GET', '/v1/get-sth', 'get_sth', (api, alias) => api.getSth(alias)],
  ['GET', '/v1/get-sth-consistency', 'get_sth_consistency', (api, alias, req) => api.getSthConsistency(alias, req.query)],
  ['GET', '/v1/get-proof-by-hash', 'get_proof_by_hash', (api, alias, req) => api.getProofByHash(alias, req.query)],
  ['GET', '/v1/get-entries', 'get_entries', (api, alias, req) => api.getEntries(alias, req.query)],
  ['GET', '/v1/get-entry-and-proof', 'get_entry_and_proof', (api, alias, req) => api.getEntryAndProof(alias, req.query)],
  // The spec gives get-issuers both with and without /v1.
  ['GET', '/v1/get-issuers', 'get_issuers', (api, alias) => api.getIssuers(alias)],
  ['GET', '/get-issuers', 'get_issuers', (api, alias) => api.getIssuers(alias)],
];

/**
 * Mounts the log API (`/<alias>/v1/...`) as the HTTP kit's fast routes: a proof costs less to compute than
 * express's per-request machinery, which capped the log near 3,000 proofs/s on two cores with high tail
 * latency. The kit keeps its behaviour for them (token rules, body limit, error body, security headers,
 * request metrics). add-vc takes its body as text whatever its Content-Type (the original reads any body);
 * it is parsed on a worker thread with the rest of the credential work.
 */
export function mountLogApi(routes: FastRoutes, api: LogApi, metrics: VctMetrics): void {
  for (const [method, path, op, action] of ACTIONS) {
    const handler: FastHandler = async (req) => {
      const alias = req.params.alias ?? '';
      const done = metrics.time(op, alias);
      try {
        const body = await action(api, alias, req);
        done(true);
        return { contentType: 'application/json', body };
      } catch (error) {
        done(false);
        throw error;
      }
    };
    if (method === 'POST') routes.post(`/:alias${path}`, handler);
    else routes.get(`/:alias${path}`, handler);
  }
}
