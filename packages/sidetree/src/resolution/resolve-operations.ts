import { notFound } from '@anchor/common/errors';
import { DID_NODE_PROTOCOL } from '../protocol.js';
import { applyCreate, applyDeactivate, applyRecover, applyUpdate, type DidState } from './apply-operation.js';
import { buildTimeline, type TimelineEntry } from './operation-timeline.js';
import type { AppliedOperation, ResolutionInput, ResolutionModel, ResolveOptions } from './types.js';

/**
 * Resolves a DID from its operations (Sidetree §3.1, Orb's processor):
 *
 * 1. order the operations (published, then unpublished; `versionId` / `versionTime` cut the history);
 * 2. the first create wins (published creates come first);
 * 3. follow the recover/deactivate chain from the recovery commitment, then the update chain from the update
 *    commitment. Operations are filed under the commitment they open; in each bucket the earliest operation
 *    that applies wins (late publishing), invalid ones are skipped, and an operation whose next commitment
 *    was already used (or is the current one) is refused as a loop. Deactivation ends everything.
 *
 * Updates count only when they come after the last applied create / recover in the timeline order
 * (anchor time, transaction number, position in batch), so an update anchored before a recover is never
 * replayed on top of it, while one anchored in the same second after it is kept.
 *
 * Each bucket is visited at most once per chain and each operation applied at most once, so resolution is
 * linear in the number of operations (after the sort). Throws not_found when there is no create.
 *
 * ```ts
 * const model = resolveOperations(suffix, { published: records, unpublished: pending }, { versionTime });
 * ```
 */
export function resolveOperations(
  didSuffix: string,
  input: ResolutionInput,
  options: ResolveOptions = {},
): ResolutionModel {
  const protocol = options.protocol ?? DID_NODE_PROTOCOL;
  const known = (input.published?.length ?? 0) + (input.unpublished?.length ?? 0) + (input.longFormCreate ? 1 : 0);
  if (known === 0) throw notFound(`DID ${didSuffix} not found`);
  const timeline = buildTimeline(input, options, protocol);

  const creates: TimelineEntry[] = [];
  const fullOperations = new Map<string, TimelineEntry[]>();
  const updates = new Map<string, TimelineEntry[]>();
  for (const entry of timeline) {
    const { operation } = entry;
    if (operation.didSuffix !== didSuffix) continue; // filed under another DID: not ours to apply
    if (operation.type === 'create') creates.push(entry);
    else fileUnder(operation.type === 'update' ? updates : fullOperations, operation.revealedCommitment, entry);
  }
  const create = creates[0];
  if (!create || create.operation.type !== 'create') throw notFound(`DID ${didSuffix} not found: no create operation`);

  const applied: AppliedOperation[] = [];
  let state = applyCreate(create, create.operation);
  applied.push(state.applied);

  state = followChain(
    state,
    fullOperations,
    (current) => current.recoveryCommitment,
    applied,
    (entry, current) => {
      const { operation } = entry;
      if (operation.type === 'recover') return applyRecover(entry, operation, current, protocol);
      if (operation.type === 'deactivate') return applyDeactivate(entry, operation, current, protocol);
      return undefined;
    },
  );

  if (!state.deactivated) {
    const after = state.lastFullPosition;
    state = followChain(
      state,
      updates,
      (current) => current.updateCommitment,
      applied,
      (entry, current) =>
        entry.position > after && entry.operation.type === 'update'
          ? applyUpdate(entry, entry.operation, current, protocol)
          : undefined,
    );
  }

  return {
    didSuffix,
    document: state.document,
    recoveryCommitment: state.recoveryCommitment,
    updateCommitment: state.updateCommitment,
    deactivated: state.deactivated,
    published: applied.some((operation) => operation.published),
    anchorOrigin: state.anchorOrigin,
    canonicalReference: state.canonicalReference,
    equivalentReferences: state.equivalentReferences,
    createdTime: state.createdTime,
    updatedTime: state.updatedTime,
    versionId: state.versionId,
    appliedOperations: applied,
  };
}

function fileUnder(buckets: Map<string, TimelineEntry[]>, commitment: string, entry: TimelineEntry): void {
  const bucket = buckets.get(commitment);
  if (bucket) bucket.push(entry);
  else buckets.set(commitment, [entry]);
}

/** Follows one commitment chain; `apply` returns undefined for a rejected candidate. */
function followChain(
  start: DidState,
  buckets: ReadonlyMap<string, readonly TimelineEntry[]>,
  commitmentOf: (state: DidState) => string | undefined,
  applied: AppliedOperation[],
  apply: (entry: TimelineEntry, state: DidState) => DidState | undefined,
): DidState {
  const used = new Set<string>();
  let state = start;
  let commitment = commitmentOf(state);
  while (commitment !== undefined) {
    const candidates = buckets.get(commitment);
    if (!candidates) break;
    let next: DidState | undefined;
    for (const entry of candidates) {
      const candidate = apply(entry, state);
      if (!candidate) continue;
      const nextCommitment = commitmentOf(candidate);
      // Loop guard: never move to the current or an already used commitment.
      if (nextCommitment !== undefined && (nextCommitment === commitment || used.has(nextCommitment))) continue;
      next = candidate;
      break;
    }
    if (!next) break;
    used.add(commitment);
    state = next;
    applied.push(state.applied);
    commitment = commitmentOf(state);
  }
  return state;
}
