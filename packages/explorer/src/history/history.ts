/**
 * A DID's history as the node lists it (`GET /sidetree/v1/identifiers/{did}/history`), and the timeline rows
 * the page draws from it. Pure (no fetch, no DOM), so it is unit-tested on a node's real answers.
 */
import type { DidHistory, DidHistoryEntry } from '@anchor/common/did/history';

export type { DidHistory };
export type HistoryOperation = DidHistoryEntry;

/** One row of the timeline: what happened, when, in which anchor, and what it changed. */
export interface TimelineRow {
  /** 1-based position in the history. */
  number: number;
  type: HistoryOperation['type'];
  /** RFC 3339 UTC: the anchor time, or when the node took a pending operation. */
  time: string | undefined;
  status: 'published' | 'pending' | 'not applied';
  /** The anchor hash (also the versionId that opens this version). */
  anchor: string | undefined;
  versionId: string | undefined;
  /** Set when this operation moved the canonical id: the new one. */
  newCanonicalId: string | undefined;
  /** This operation deactivated the DID. */
  deactivates: boolean;
  transactionNumber: number | undefined;
  /** The DID's anchor origin at this operation (a create names it; later operations keep the last one named). */
  anchorOrigin: string | undefined;
}

/** The history URL of a DID on a node (any form of the DID the node resolves). */
export function historyUrl(base: string, did: string): string {
  return `${base}/sidetree/v1/identifiers/${encodeURIComponent(did.trim())}/history`;
}

/** The resolution URL of one version of a DID. */
export function versionUrl(base: string, did: string, versionId: string): string {
  return `${base}/sidetree/v1/identifiers/${encodeURIComponent(did.trim())}?versionId=${encodeURIComponent(versionId)}`;
}

/** Checks the shape of a history answer; throws naming what is wrong, so a bad answer never draws half a page. */
export function parseHistory(value: unknown): DidHistory {
  const body = value as Partial<DidHistory> | null;
  if (
    typeof body !== 'object' ||
    body === null ||
    typeof body.didSuffix !== 'string' ||
    !Array.isArray(body.operations)
  )
    throw new Error('the node answered something that is not a DID history');
  body.operations.forEach((operation, index) => {
    if (typeof operation !== 'object' || operation === null || typeof operation.type !== 'string')
      throw new Error(`history operation ${index} has no type`);
  });
  return body as DidHistory;
}

function rfc3339(seconds: number | undefined): string | undefined {
  return seconds === undefined ? undefined : new Date(seconds * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

export function timelineOf(history: DidHistory): TimelineRow[] {
  let deactivatedBefore = false;
  let origin: string | undefined;
  return history.operations.map((operation, index) => {
    origin = operation.anchor?.anchorOrigin ?? origin;
    const deactivates = operation.deactivated && !deactivatedBefore;
    deactivatedBefore = operation.deactivated;
    return {
      number: index + 1,
      type: operation.type,
      time: rfc3339(operation.anchor?.transactionTime ?? operation.receivedTime),
      status: !operation.published ? 'pending' : operation.applied ? 'published' : 'not applied',
      anchor: operation.anchor?.canonicalReference,
      versionId: operation.versionId,
      newCanonicalId: operation.canonicalIdChanged ? operation.canonicalId : undefined,
      deactivates,
      transactionNumber: operation.anchor?.transactionNumber,
      anchorOrigin: origin,
    };
  });
}

/**
 * The id to ask the history of, from a resolution: the canonical id when published; for a did:web view (which
 * has no did:node history of its own) the did:node id in `alsoKnownAs`; otherwise the id as typed.
 */
export function historyDid(
  typed: string,
  result: { didDocument?: unknown; didDocumentMetadata?: Record<string, unknown> },
): string {
  const canonical = result.didDocumentMetadata?.['canonicalId'];
  if (typeof canonical === 'string') return canonical;
  if (typed.trim().startsWith('did:web:')) {
    const aka = (result.didDocument as { alsoKnownAs?: unknown } | undefined)?.alsoKnownAs;
    const first = Array.isArray(aka)
      ? aka.find((id): id is string => typeof id === 'string' && !id.startsWith('did:web:'))
      : undefined;
    if (first !== undefined) return first;
  }
  return typed.trim();
}
