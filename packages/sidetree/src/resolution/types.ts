import type { CreateOperation, OperationType, ParsedOperation } from '../operations/types.js';
import type { InternalDocument } from '../patches/types.js';
import type { ProtocolParameters } from '../protocol.js';

/** Where and when an operation was anchored, as the observer recorded it. */
export interface AnchorMetadata {
  /** The anchor hash (`uEi...`): the multibase multihash of the anchor the operation came in. */
  canonicalReference: string;
  /** Other references to the same anchor, e.g. `hl:<hash>:<metadata>` and `https:<domain>:<hash>`. */
  equivalentReferences?: readonly string[];
  /** Anchor time in Unix seconds (the anchor credential's issuanceDate). */
  transactionTime: number;
  /** Orders anchors within one second; orb leaves it 0 (see "Divergences" in the README). */
  transactionNumber?: number;
  /** Position of the operation in its batch. */
  operationIndex?: number;
  protocolVersion?: number;
  /** The anchor origin recorded with the operation (update/deactivate carry none of their own). */
  anchorOrigin?: string;
}

export interface PublishedOperationRecord {
  operation: ParsedOperation;
  anchor: AnchorMetadata;
}

/** An accepted operation not yet seen in an anchor (orb's unpublished-operation store). */
export interface UnpublishedOperationRecord {
  operation: ParsedOperation;
  /** When this node accepted it, Unix seconds; orders unpublished operations and stands in for anchor time. */
  receivedTime: number;
  protocolVersion?: number;
  anchorOrigin?: string;
}

export interface ResolutionInput {
  published?: readonly PublishedOperationRecord[];
  unpublished?: readonly UnpublishedOperationRecord[];
  /** The create carried by a long-form DID: resolved as one more unpublished create, so a published create wins. */
  longFormCreate?: CreateOperation;
}

export interface ResolveOptions {
  protocol?: ProtocolParameters;
  /** Resolve the state right after the operation anchored in this anchor hash (published history only). */
  versionId?: string;
  /** Resolve the state at this RFC 3339 time, e.g. `2021-05-10T17:00:00Z` (published history only). */
  versionTime?: string;
}

/** An operation the resolver applied, with what the metadata reports about it. */
export interface AppliedOperation {
  type: OperationType;
  operation: ParsedOperation;
  published: boolean;
  /** Anchor time (published) or receive time (unpublished), Unix seconds. */
  transactionTime: number;
  transactionNumber: number;
  protocolVersion: number;
  canonicalReference: string | undefined;
  equivalentReferences: readonly string[];
  anchorOrigin: string | undefined;
}

/** The resolved state of a DID: what the renderers turn into a DID resolution result. */
export interface ResolutionModel {
  didSuffix: string;
  document: InternalDocument;
  /** Absent after a deactivate. */
  recoveryCommitment: string | undefined;
  /** Absent after a deactivate, or when the last create/recover had an unusable delta. */
  updateCommitment: string | undefined;
  deactivated: boolean;
  /** Whether any applied operation is published. */
  published: boolean;
  anchorOrigin: string | undefined;
  /** Anchor hash of the last applied create or recover, when that one is published: the canonical id's hash. */
  canonicalReference: string | undefined;
  equivalentReferences: readonly string[];
  /** Anchor time of the create, when published. */
  createdTime: number | undefined;
  /** Time of the last applied update, recover or deactivate. */
  updatedTime: number | undefined;
  /** Anchor hash of the last applied operation, when that one is published. */
  versionId: string | undefined;
  /** Every applied operation, in the order applied. */
  appliedOperations: readonly AppliedOperation[];
}
