import { DID_NODE_PROTOCOL, type OperationType, type ParsedOperation } from '@anchor/sidetree';

/**
 * The records of an operation's life on this node, from acceptance to publication, and the one key every
 * store files an operation under.
 *
 * An operation's key is `<suffix>:<claim>`: `create` for a create, otherwise the commitment it reveals.
 * A commitment can be revealed once in a valid history, so two accepted operations never share a key, a
 * client retrying the same request finds its first copy, and the observer, seeing an operation anchored
 * (by this node or another), can delete the queued copy without looking it up.
 */
export function operationKey(
  operation: Pick<ParsedOperation, 'type' | 'didSuffix'> & { revealedCommitment?: string },
): string {
  return `${operation.didSuffix}:${operation.type === 'create' ? 'create' : operation.revealedCommitment}`;
}

/** The DID suffix of an operation key (suffixes never contain a colon). */
export function suffixOfKey(key: string): string {
  return key.slice(0, key.indexOf(':'));
}

/**
 * Canonical request bytes as stored: their text (a canonical request is UTF-8 JCS JSON), which records hold
 * as a JSON string — smaller than base64 and nothing to decode.
 */
export const encodeRequest = (bytes: Uint8Array): string => Buffer.from(bytes).toString('utf8');
export const decodeRequest = (text: string): Buffer => Buffer.from(text, 'utf8');

/**
 * An accepted operation waiting to be anchored (store `operation-queue`), deleted by the observer once its
 * anchor is processed. Which batch holds it is recorded by the batch (its write-ahead record lists the keys
 * of its operations), so cutting a batch rewrites no operation.
 *
 * The queue is also the unpublished-operation store (orb.md §2.7): resolution shows the queued operations
 * of the configured types whose lifetime has not run out. One durable write per accepted operation serves
 * anchoring and early resolution alike, and the observer's deletion ends both.
 */
export interface QueuedOperation {
  suffix: string;
  type: OperationType;
  /** The canonical request (JCS JSON text). */
  request: string;
  /** Epoch ms (sub-millisecond, monotonic within an instance): orders the queue. */
  acceptedAt: number;
  /** Unix seconds: what the unpublished view reports as the operation's time. */
  receivedTime: number;
  anchorOrigin?: string;
  /** The protocol version it was accepted under, which its anchor is written in (absent: v1.0). */
  protocolVersion?: number;
}

/** The protocol version of a queued operation: records written before versions existed were all v1.0's. */
export function queuedProtocolVersion(record: Pick<QueuedOperation, 'protocolVersion'>): number {
  return record.protocolVersion ?? DID_NODE_PROTOCOL.protocolVersion;
}

/** An operation seen in a processed anchor (store `operation`), keyed `<suffix>:<anchor hash>`. */
export interface PublishedOperation {
  suffix: string;
  type: OperationType;
  request: string;
  /** The anchor hash (`uEi…`): the resource hash of the witnessed anchor linkset. */
  canonicalReference: string;
  /** `hl:<hash>:<links>` and, with a discovery domain, `https:<domain>:<hash>`. */
  equivalentReferences: string[];
  /** Unix seconds: the anchor credential's issuanceDate. */
  transactionTime: number;
  /** This node's processing order of anchors. */
  transactionNumber: number;
  /** Position in the batch. */
  operationIndex: number;
  protocolVersion: number;
  anchorOrigin?: string;
}

/** The latest processed anchor carrying an operation of a DID (store `operation`, keyed by the bare suffix). */
export interface DidAnchor {
  /** `hl:<anchor hash>:<links>`: the parent link the next anchor of this DID names. */
  anchor: string;
  transactionNumber: number;
  /**
   * Transaction number of the last commit that stored an operation of this DID (rewritten by every such
   * commit, even one of an older anchor): with the `did-version` token, the version of the DID's operations.
   */
  version: number;
}

/**
 * A token the intake rewrites whenever it accepts an operation of a DID (store `did-version`), in the same
 * atomic batch. With `DidAnchor.version` (rewritten by the observer) it versions the DID's operations: both
 * are read before the operations, so a cached view whose versions still match is current on every instance
 * sharing the database.
 */
export interface DidVersion {
  token: string;
}
