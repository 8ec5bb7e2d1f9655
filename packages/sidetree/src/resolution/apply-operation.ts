import { anchorWindowProblem } from '../operations/anchor-time.js';
import type { CreateOperation, DeactivateOperation, RecoverOperation, UpdateOperation } from '../operations/types.js';
import { signatureProblem } from '../operations/verify-signature.js';
import { applyPatches } from '../patches/apply-patches.js';
import { EMPTY_DOCUMENT, type InternalDocument, type Patch } from '../patches/types.js';
import type { ProtocolParameters } from '../protocol.js';
import type { TimelineEntry } from './operation-timeline.js';
import type { AppliedOperation } from './types.js';

/** The state the resolver carries from one operation to the next. */
export interface DidState {
  document: InternalDocument;
  recoveryCommitment: string | undefined;
  updateCommitment: string | undefined;
  deactivated: boolean;
  anchorOrigin: string | undefined;
  canonicalReference: string | undefined;
  equivalentReferences: readonly string[];
  createdTime: number | undefined;
  updatedTime: number | undefined;
  versionId: string | undefined;
  /** Timeline position of the last applied create, recover or deactivate: updates must come after it. */
  lastFullPosition: number;
  /** The operation that produced this state. */
  applied: AppliedOperation;
}

/**
 * The applier: one function per operation type, each returning the next state, or undefined when the
 * operation is rejected (the resolver then tries the next candidate). Outcomes follow Orb:
 *
 * | operation  | rejected when                      | unusable delta                      | outside its anchor window  |
 * |------------|------------------------------------|-------------------------------------|----------------------------|
 * | create     | never                              | recovery only, empty doc            | (no window)                |
 * | update     | bad signature, unusable delta      | (rejected)                          | commitment rotates, doc kept |
 * | recover    | bad signature                      | new recovery only, empty doc        | both rotate, empty doc     |
 * | deactivate | bad signature, outside its window  | (no delta)                          | (rejected)                 |
 */
export function applyCreate(entry: TimelineEntry, operation: CreateOperation): DidState {
  const patches = usablePatches(operation);
  return {
    document: patches ? applyPatches(EMPTY_DOCUMENT, patches) : EMPTY_DOCUMENT,
    recoveryCommitment: operation.nextRecoveryCommitment,
    updateCommitment: patches ? operation.nextUpdateCommitment : undefined,
    deactivated: false,
    anchorOrigin: operation.anchorOrigin,
    canonicalReference: entry.canonicalReference,
    equivalentReferences: entry.equivalentReferences,
    createdTime: entry.published ? entry.time : undefined,
    updatedTime: undefined,
    versionId: entry.canonicalReference,
    lastFullPosition: entry.position,
    applied: appliedRecord(entry, operation.anchorOrigin),
  };
}

export function applyUpdate(
  entry: TimelineEntry,
  operation: UpdateOperation,
  state: DidState,
  protocol: ProtocolParameters,
): DidState | undefined {
  if (signatureProblem(operation) !== undefined) return undefined;
  const patches = usablePatches(operation);
  if (!patches) return undefined;
  const inWindow = anchorWindowProblem(operation, entry.time, protocol) === undefined;
  return {
    ...state,
    document: inWindow ? applyPatches(state.document, patches) : state.document,
    updateCommitment: operation.nextUpdateCommitment,
    updatedTime: entry.time,
    versionId: entry.canonicalReference,
    applied: appliedRecord(entry, entry.anchorOrigin ?? state.anchorOrigin),
  };
}

export function applyRecover(
  entry: TimelineEntry,
  operation: RecoverOperation,
  state: DidState,
  protocol: ProtocolParameters,
): DidState | undefined {
  if (signatureProblem(operation) !== undefined) return undefined;
  const patches = usablePatches(operation);
  const inWindow = anchorWindowProblem(operation, entry.time, protocol) === undefined;
  return {
    ...state,
    // A recover always starts from an empty document.
    document: patches && inWindow ? applyPatches(EMPTY_DOCUMENT, patches) : EMPTY_DOCUMENT,
    recoveryCommitment: operation.nextRecoveryCommitment,
    updateCommitment: patches ? operation.nextUpdateCommitment : undefined,
    anchorOrigin: operation.anchorOrigin,
    canonicalReference: entry.canonicalReference,
    equivalentReferences: entry.equivalentReferences,
    updatedTime: entry.time,
    versionId: entry.canonicalReference,
    lastFullPosition: entry.position,
    applied: appliedRecord(entry, operation.anchorOrigin),
  };
}

export function applyDeactivate(
  entry: TimelineEntry,
  operation: DeactivateOperation,
  state: DidState,
  protocol: ProtocolParameters,
): DidState | undefined {
  if (signatureProblem(operation) !== undefined) return undefined;
  if (anchorWindowProblem(operation, entry.time, protocol) !== undefined) return undefined;
  return {
    ...state,
    document: EMPTY_DOCUMENT,
    recoveryCommitment: undefined,
    updateCommitment: undefined,
    deactivated: true,
    updatedTime: entry.time,
    versionId: entry.canonicalReference,
    lastFullPosition: entry.position,
    applied: appliedRecord(entry, entry.anchorOrigin ?? state.anchorOrigin),
  };
}

/** The delta's patches when the delta is usable (valid and matching its hash). */
function usablePatches(operation: CreateOperation | UpdateOperation | RecoverOperation): readonly Patch[] | undefined {
  return operation.deltaProblem === undefined ? operation.patches : undefined;
}

function appliedRecord(entry: TimelineEntry, anchorOrigin: string | undefined): AppliedOperation {
  return {
    type: entry.operation.type,
    operation: entry.operation,
    published: entry.published,
    transactionTime: entry.time,
    transactionNumber: entry.transactionNumber,
    protocolVersion: entry.protocolVersion,
    canonicalReference: entry.canonicalReference,
    equivalentReferences: entry.equivalentReferences,
    anchorOrigin,
  };
}
