import { answer, textBody, type Handler, type RouteRequest } from '@anchor/common/http';
import type { Operation, VctMetrics } from '../metrics.js';
import type { LogApi } from './log-api.js';

/** The log API's endpoints under `/<alias>` as the HTTP kit's handlers (the route table mounts them on the fast path). */
export interface LogApiHandlers {
  readonly addVc: Handler;
  readonly getSth: Handler;
  readonly getSthConsistency: Handler;
  readonly getProofByHash: Handler;
  readonly getEntries: Handler;
  readonly getEntryAndProof: Handler;
  /** The spec gives get-issuers both with and without /v1: one handler for both. */
  readonly getIssuers: Handler;
}

/**
 * The log API as fast handlers: a proof costs less to compute than express's per-request machinery, which
 * capped the log near 3,000 proofs/s on two cores with high tail latency. Each records its `vct_*`
 * operation metrics. add-vc takes its body as text whatever its Content-Type (as trustbloc/vct reads
 * it); it is parsed on a worker thread with the rest of the credential work.
 */
const CROSS_ORIGIN = { 'Access-Control-Allow-Origin': '*' } as const;

export function logApiHandlers(api: LogApi, metrics: VctMetrics): LogApiHandlers {
  const handler =
    (
      op: Operation,
      action: (alias: string, request: RouteRequest) => string | Promise<string>,
      crossOrigin = false,
    ): Handler =>
    async (req) => {
      const alias = req.params.alias ?? '';
      const done = metrics.time(op, alias);
      try {
        const body = await action(alias, req);
        done(true);
        // Tree heads and proofs are public and self-verifying: a node's explorer checks them in the page.
        return answer({ text: body, type: 'application/json', ...(crossOrigin ? { headers: CROSS_ORIGIN } : {}) });
      } catch (error) {
        done(false);
        throw error;
      }
    };
  return {
    addVc: handler('add_vc', (alias, req) => api.addVc(alias, textBody(req))),
    getSth: handler('get_sth', (alias) => api.getSth(alias), true),
    getSthConsistency: handler('get_sth_consistency', (alias, req) => api.getSthConsistency(alias, req.query)),
    getProofByHash: handler('get_proof_by_hash', (alias, req) => api.getProofByHash(alias, req.query), true),
    getEntries: handler('get_entries', (alias, req) => api.getEntries(alias, req.query)),
    getEntryAndProof: handler('get_entry_and_proof', (alias, req) => api.getEntryAndProof(alias, req.query)),
    getIssuers: handler('get_issuers', (alias) => api.getIssuers(alias)),
  };
}
