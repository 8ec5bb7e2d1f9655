import { badRequest, notFound } from '@anchor/common/errors';
import { LOG_MONITOR_UPDATE } from '../schemas/index.js';
import { answer, jsonBody, type Handler } from '@anchor/common/http';
import { checkLogUrl } from '../vct-client/log-setting.js';
import type { MonitoredLog, MonitoredLogs } from './monitored-logs.js';

const STATUSES = ['active', 'inactive', 'failed'] as const;
type ListedStatus = (typeof STATUSES)[number];

/**
 * `GET|POST /log-monitor` (orb.md §1.2): GET `?status=active|inactive` (default active) answers
 * `{"active": [...]}` / `{"inactive": [...]}` with each log's state under Orb's member names (Log,
 * STH, PubKey, Active) and this node's additions; `?status=failed` lists the logs found misbehaving, each
 * with its `Evidence`. 404 when none. POST `{"activate": [url], "deactivate": [url]}` switches monitoring (activating a failed log
 * starts it again from its current tree head; its evidence stays).
 */
export function logMonitorHandlers(logs: MonitoredLogs): { get: Handler; post: Handler } {
  const get: Handler = async (req) => {
    const status = req.query.get('status') ?? 'active';
    if (!(STATUSES as readonly string[]).includes(status))
      throw badRequest(`status '${status}' is not supported: active, inactive or failed`);
    const listed = status as ListedStatus;
    const records =
      listed === 'failed'
        ? (await logs.all()).filter((log) => log.failure !== undefined)
        : await logs.withStatus(listed);
    if (records.length === 0) throw notFound(`no ${listed} logs`);
    const views = records.map(view);
    // The failed list carries what the log did: both tree heads, the proof, the key.
    if (listed === 'failed')
      for (const [index, record] of records.entries())
        views[index]!.Evidence = (await logs.evidence(record.failure!.evidence)) ?? null;
    return answer({ json: { [listed]: views } });
  };

  const post: Handler = async (req) => {
    const change = jsonBody(req, LOG_MONITOR_UPDATE, 'log monitor update');
    const activate = (change.activate ?? []).map(checkLogUrl);
    const deactivate = (change.deactivate ?? []).map(checkLogUrl);
    for (const logUrl of activate) await logs.activate(logUrl);
    for (const logUrl of deactivate) await logs.deactivate(logUrl, 'operator');
    return answer({ status: 200 });
  };

  return { get, post };
}

function view(log: MonitoredLog): Record<string, unknown> {
  return {
    Log: log.logUrl,
    STH: log.sth ?? null,
    PubKey: log.publicKey ?? null,
    Active: log.status === 'active',
    Source: log.source,
    ...(log.verifiedAt !== undefined ? { VerifiedAt: new Date(log.verifiedAt).toISOString() } : {}),
    ...(log.checkedAt !== undefined ? { CheckedAt: new Date(log.checkedAt).toISOString() } : {}),
    ...(log.lastError !== undefined ? { LastError: log.lastError } : {}),
    ...(log.failure !== undefined
      ? {
          Failure: {
            kind: log.failure.kind,
            message: log.failure.message,
            detectedAt: new Date(log.failure.detectedAt).toISOString(),
            evidence: log.failure.evidence,
          },
        }
      : {}),
  };
}
