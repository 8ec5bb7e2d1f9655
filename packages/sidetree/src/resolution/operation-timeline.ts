import { badRequest } from '@anchor/common/errors';
import type { ParsedOperation } from '../operations/types.js';
import type { ProtocolParameters } from '../protocol.js';
import type { ResolutionInput, ResolveOptions } from './types.js';

/** One operation on the DID's timeline; `position` is its rank in the total order resolution uses. */
export interface TimelineEntry {
  operation: ParsedOperation;
  published: boolean;
  time: number;
  transactionNumber: number;
  operationIndex: number;
  protocolVersion: number;
  canonicalReference: string | undefined;
  equivalentReferences: readonly string[];
  anchorOrigin: string | undefined;
  position: number;
}

/**
 * The operations of one DID in resolution order: published ones by (anchor time, transaction number,
 * position in batch, then the order given), then unpublished ones by receive time, then a long-form create.
 * `versionId` / `versionTime` cut the published history and drop unpublished operations, since a version is
 * a point of the anchored history.
 */
export function buildTimeline(
  input: ResolutionInput,
  options: ResolveOptions,
  protocol: ProtocolParameters,
): TimelineEntry[] {
  const published: TimelineEntry[] = (input.published ?? []).map(({ operation, anchor }) => ({
    operation,
    published: true,
    time: anchor.transactionTime,
    transactionNumber: anchor.transactionNumber ?? 0,
    operationIndex: anchor.operationIndex ?? 0,
    protocolVersion: anchor.protocolVersion ?? protocol.protocolVersion,
    canonicalReference: anchor.canonicalReference,
    equivalentReferences: anchor.equivalentReferences ?? [],
    anchorOrigin: anchor.anchorOrigin,
    position: 0,
  }));
  published.sort(
    (a, b) => a.time - b.time || a.transactionNumber - b.transactionNumber || a.operationIndex - b.operationIndex,
  );

  let timeline: TimelineEntry[];
  if (options.versionId !== undefined && options.versionTime !== undefined)
    throw badRequest('versionId and versionTime cannot be used together');
  if (options.versionId !== undefined) {
    timeline = untilVersionId(published, options.versionId);
  } else if (options.versionTime !== undefined) {
    timeline = untilVersionTime(published, options.versionTime);
  } else {
    const unpublished: TimelineEntry[] = (input.unpublished ?? []).map(
      ({ operation, receivedTime, protocolVersion, anchorOrigin }) => ({
        operation,
        published: false,
        time: receivedTime,
        transactionNumber: 0,
        operationIndex: 0,
        protocolVersion: protocolVersion ?? protocol.protocolVersion,
        canonicalReference: undefined,
        equivalentReferences: [],
        anchorOrigin,
        position: 0,
      }),
    );
    unpublished.sort((a, b) => a.time - b.time);
    timeline = [...published, ...unpublished];
    if (input.longFormCreate) {
      const last = timeline.at(-1);
      timeline.push({
        operation: input.longFormCreate,
        published: false,
        time: last ? last.time : 0,
        transactionNumber: 0,
        operationIndex: 0,
        protocolVersion: protocol.protocolVersion,
        canonicalReference: undefined,
        equivalentReferences: [],
        anchorOrigin: undefined,
        position: 0,
      });
    }
  }
  timeline.forEach((entry, position) => {
    entry.position = position;
  });
  return timeline;
}

function untilVersionId(published: TimelineEntry[], versionId: string): TimelineEntry[] {
  for (let index = published.length - 1; index >= 0; index--) {
    if (published[index]?.canonicalReference === versionId) return published.slice(0, index + 1);
  }
  throw badRequest(`'${versionId}' is not a valid versionId`);
}

function untilVersionTime(published: TimelineEntry[], versionTime: string): TimelineEntry[] {
  const limit = parseVersionTime(versionTime);
  const kept = published.filter((entry) => entry.time <= limit);
  if (kept.length === 0) throw badRequest(`no operations found for version time ${versionTime}`);
  return kept;
}

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;

/** RFC 3339 (as Go's time.RFC3339 reads it) to Unix seconds; sub-second digits are dropped. */
export function parseVersionTime(text: string): number {
  const match = RFC3339.exec(text);
  const millis = match ? Date.parse(text) : Number.NaN;
  if (!match || Number.isNaN(millis) || !matchesCalendar(match, millis)) {
    throw badRequest(`failed to parse version time '${text}': expected RFC 3339, e.g. 2021-05-10T17:00:00Z`);
  }
  return Math.floor(millis / 1000);
}

/** Date.parse rolls over impossible dates (Feb 30); compare the parsed fields back against the text. */
function matchesCalendar(match: RegExpExecArray, millis: number): boolean {
  const zone = match[8] as string;
  const offsetMinutes = /^[Zz]$/.test(zone)
    ? 0
    : (zone.startsWith('-') ? -1 : 1) * (Number(zone.slice(1, 3)) * 60 + Number(zone.slice(4, 6)));
  const local = new Date(millis + offsetMinutes * 60_000);
  return (
    local.getUTCFullYear() === Number(match[1]) &&
    local.getUTCMonth() + 1 === Number(match[2]) &&
    local.getUTCDate() === Number(match[3]) &&
    local.getUTCHours() === Number(match[4]) &&
    local.getUTCMinutes() === Number(match[5])
  );
}
