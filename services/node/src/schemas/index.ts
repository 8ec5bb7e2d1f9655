/**
 * The request-body schemas of the node's own JSON endpoints (applied with `validate` / `isValid` from
 * `@anchor/common/schemas`).
 */
import { registerSchemas } from '@anchor/common/schemas';
import {
  ACCEPT_LIST_UPDATE,
  ACTIVITY,
  ALLOWED_ORIGINS_UPDATE,
  INBOX_ACTIVITY,
  LOG_MONITOR_UPDATE,
} from './node-requests.js';

export {
  type AcceptListUpdate,
  type Activity,
  type AllowedOriginsUpdate,
  type LogMonitorUpdate,
  ACCEPT_LIST_UPDATE,
  ACTIVITY,
  ALLOWED_ORIGINS_UPDATE,
  INBOX_ACTIVITY,
  LOG_MONITOR_UPDATE,
} from './node-requests.js';

registerSchemas(ACCEPT_LIST_UPDATE, ALLOWED_ORIGINS_UPDATE, ACTIVITY, INBOX_ACTIVITY, LOG_MONITOR_UPDATE);
