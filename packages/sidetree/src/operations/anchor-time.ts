import { badRequest } from '@anchor/common/errors';
import type { ProtocolParameters } from '../protocol.js';

/**
 * `anchorFrom` / `anchorUntil` (Unix seconds, in signed data): the window in which an operation may be
 * anchored. Absent and 0 both mean "not set", as in Orb. When only `anchorFrom` is set, the
 * window closes `protocol.anchorUntilWindow` seconds later, both at ingest and in resolution.
 */
export interface AnchorWindow {
  anchorFrom?: number | undefined;
  anchorUntil?: number | undefined;
}

function bounds(window: AnchorWindow, protocol: ProtocolParameters): { from: number; until: number } | undefined {
  const from = window.anchorFrom ?? 0;
  let until = window.anchorUntil ?? 0;
  if (from === 0 && until === 0) return undefined;
  if (until === 0) until = from + protocol.anchorUntilWindow;
  return { from, until };
}

/** Ingest: refuse an operation that is early (`anchorFrom` after now) or expired (window closed by now). */
export function checkAnchorWindowAtIngest(window: AnchorWindow, now: number, protocol: ProtocolParameters): void {
  const limits = bounds(window, protocol);
  if (!limits) return;
  if (limits.from > now)
    throw badRequest(`operation is not valid yet: anchorFrom ${limits.from} is after the current time ${now}`);
  if (limits.until <= now)
    throw badRequest(`operation expired: its anchoring window ended at ${limits.until}, the current time is ${now}`);
}

/** Resolution: why an operation anchored at `anchorTime` falls outside its window (undefined when inside). */
export function anchorWindowProblem(
  window: AnchorWindow,
  anchorTime: number,
  protocol: ProtocolParameters,
): string | undefined {
  const limits = bounds(window, protocol);
  if (!limits) return undefined;
  if (limits.from > anchorTime) return `anchored at ${anchorTime}, before anchorFrom ${limits.from}`;
  if (limits.until < anchorTime) return `anchored at ${anchorTime}, after the window closed at ${limits.until}`;
  return undefined;
}
