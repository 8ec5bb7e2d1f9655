import { base64UrlEncode } from '@anchor/common/encoding';
import type { DidHistory, DidHistoryEntry } from '@anchor/common/did/history';
import { canonicalDid, resolveOperations, type ParsedOperation } from '@anchor/sidetree';
import type { DidOperations } from './did-operations.js';

export type { DidHistory, DidHistoryEntry } from '@anchor/common/did/history';

/**
 * Every operation this node holds for a DID, in resolution order: published ones in anchoring order, then the
 * accepted ones not yet anchored, each with its anchor, the versionId that opens its version, the canonical id
 * it leaves and whether it deactivated the DID. Pure: resolution decides which ones apply.
 */
export function didHistory(operations: DidOperations, namespace: string): DidHistory {
  // Applied as of its own version: a recover ends the update chain, so the current state no longer lists
  // the updates before it, though each was applied in its time. One resolution per anchor (quadratic in the
  // DID's operations, which stay few), and one of everything for the pending ones.
  const applied = new Set<ParsedOperation>();
  const appliedIn = (options: { versionId?: string }, unpublished: DidOperations['pending']): void => {
    try {
      const model = resolveOperations(operations.suffix, { published: operations.published, unpublished }, options);
      for (const operation of model.appliedOperations) applied.add(operation.operation);
    } catch {
      // No create among them: nothing applies, the operations are still listed.
    }
  };
  for (const anchor of new Set(operations.published.map((record) => record.anchor.canonicalReference)))
    appliedIn({ versionId: anchor }, []);
  if (operations.pending.length > 0) appliedIn({}, operations.pending);
  let canonicalId: string | undefined;
  let deactivated = false;
  const entries: DidHistoryEntry[] = [];
  const record = (
    operation: ParsedOperation,
    anchor: DidHistoryEntry['anchor'],
    receivedTime: number | undefined,
  ): void => {
    const isApplied = applied.has(operation);
    let changed = false;
    if (isApplied && anchor !== undefined && (operation.type === 'create' || operation.type === 'recover')) {
      canonicalId = canonicalDid(anchor.canonicalReference, operations.suffix, namespace);
      changed = true;
    }
    if (isApplied && operation.type === 'deactivate') deactivated = true;
    entries.push({
      type: operation.type,
      published: anchor !== undefined,
      applied: isApplied,
      ...(anchor !== undefined ? { anchor, versionId: anchor.canonicalReference } : {}),
      ...(canonicalId !== undefined && anchor !== undefined ? { canonicalId } : {}),
      canonicalIdChanged: changed,
      deactivated,
      ...(receivedTime !== undefined ? { receivedTime } : {}),
      operationRequest: base64UrlEncode(operation.canonicalRequest),
    });
  };
  for (const { operation, anchor } of operations.published) {
    record(
      operation,
      {
        canonicalReference: anchor.canonicalReference,
        equivalentReferences: [...(anchor.equivalentReferences ?? [])],
        transactionTime: anchor.transactionTime,
        ...(anchor.transactionNumber !== undefined ? { transactionNumber: anchor.transactionNumber } : {}),
        ...(anchor.operationIndex !== undefined ? { operationIndex: anchor.operationIndex } : {}),
        ...(anchor.protocolVersion !== undefined ? { protocolVersion: anchor.protocolVersion } : {}),
        ...(anchor.anchorOrigin !== undefined ? { anchorOrigin: anchor.anchorOrigin } : {}),
      },
      undefined,
    );
  }
  for (const pending of operations.pending) record(pending.operation, undefined, pending.receivedTime);
  return { didSuffix: operations.suffix, operations: entries };
}
