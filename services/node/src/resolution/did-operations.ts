import {
  parseOperation,
  type ProtocolRegistry,
  type OperationType,
  type ParsedOperation,
  type PublishedOperationRecord,
  type UnpublishedOperationRecord,
} from '@anchor/sidetree';
import {
  decodeRequest,
  encodeRequest,
  queuedProtocolVersion,
  type PublishedOperation,
  type QueuedOperation,
} from '../operations/operation-records.js';
import { OperationStores } from '../operations/operation-stores.js';

/** Which queued operations resolution shows before they are anchored (`--enable-unpublished-operation-store` & co). */
export interface UnpublishedView {
  enabled: boolean;
  types: readonly OperationType[];
  lifetimeMs: number;
}

/**
 * Everything this node knows about one DID's operations, parsed: what resolution and intake validation
 * work from. `token` is the DID's version (intake token and observer version, see `DidVersion`) as read
 * *before* the operations, so a view whose token still matches the stored one is current.
 */
export interface DidOperations {
  suffix: string;
  token: string | undefined;
  published: PublishedOperationRecord[];
  /** Every accepted operation not yet anchored, in acceptance order (intake validates against these). */
  pending: UnpublishedOperationRecord[];
  /** The unpublished view resolution shows: pending operations of the configured types, within their lifetime. */
  unpublished: UnpublishedOperationRecord[];
  /** Epoch ms after which the view is stale anyway (an unpublished operation's lifetime ends). */
  validUntil: number;
}

/**
 * Loads a DID's operations from the stores and parses them (anchored mode: the stored canonical requests
 * were validated at ingest or come from anchors, which the resolver judges as Orb does). Parsed
 * operations of a previous view are reused by request, so a reload after a change parses only what is new
 * and keeps the memoised signature checks.
 */
export class DidOperationsLoader {
  constructor(
    private readonly stores: OperationStores,
    private readonly view: UnpublishedView,
    /** Each operation is read under the protocol version it was anchored in (or accepted under). */
    private readonly protocols: ProtocolRegistry,
  ) {}

  /** The DID's version: the intake's token and the observer's version, read together. */
  async token(suffix: string): Promise<string | undefined> {
    const [accepted, anchored] = await Promise.all([
      this.stores.didVersions.get(suffix),
      this.stores.didAnchors.get(suffix),
    ]);
    if (accepted === undefined && anchored === undefined) return undefined;
    return `${accepted?.token ?? ''}/${anchored?.version ?? ''}`;
  }

  async load(suffix: string, previous?: DidOperations): Promise<DidOperations> {
    const token = await this.token(suffix);
    const [published, queued] = await Promise.all([
      OperationStores.all(this.stores.published, suffix),
      OperationStores.all(this.stores.queued, suffix),
    ]);
    // Read by key prefix (in key order): anchoring order for the published, acceptance order for the queue.
    published.sort(
      (a, b) =>
        a.value.transactionNumber - b.value.transactionNumber || a.value.operationIndex - b.value.operationIndex,
    );
    queued.sort((a, b) => a.value.acceptedAt - b.value.acceptedAt || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    const reuse = parsedByRequest(previous);
    const now = Date.now();
    const pending: UnpublishedOperationRecord[] = [];
    const unpublished: UnpublishedOperationRecord[] = [];
    let validUntil = Number.POSITIVE_INFINITY;
    for (const { value } of queued) {
      const record = pendingRecord(value, reuse, this.protocols);
      pending.push(record);
      const endsAt = value.acceptedAt + this.view.lifetimeMs;
      if (this.view.enabled && this.view.types.includes(value.type) && endsAt > now) {
        unpublished.push(record);
        validUntil = Math.min(validUntil, endsAt);
      }
    }
    return {
      suffix,
      token,
      published: published.map(({ value }) => publishedRecord(value, reuse, this.protocols)),
      pending,
      unpublished,
      validUntil,
    };
  }
}

function parsedByRequest(view: DidOperations | undefined): Map<string, ParsedOperation> {
  const parsed = new Map<string, ParsedOperation>();
  if (!view) return parsed;
  for (const record of [...view.published, ...view.pending])
    parsed.set(encodeRequest(record.operation.canonicalRequest), record.operation);
  return parsed;
}

function parse(
  request: string,
  reuse: Map<string, ParsedOperation>,
  protocols: ProtocolRegistry,
  protocolVersion: number,
): ParsedOperation {
  return (
    reuse.get(request) ??
    parseOperation(decodeRequest(request), { mode: 'anchored', protocol: protocols.forOperation(protocolVersion) })
  );
}

function publishedRecord(
  record: PublishedOperation,
  reuse: Map<string, ParsedOperation>,
  protocols: ProtocolRegistry,
): PublishedOperationRecord {
  return {
    operation: parse(record.request, reuse, protocols, record.protocolVersion),
    anchor: {
      canonicalReference: record.canonicalReference,
      equivalentReferences: record.equivalentReferences,
      transactionTime: record.transactionTime,
      transactionNumber: record.transactionNumber,
      operationIndex: record.operationIndex,
      protocolVersion: record.protocolVersion,
      ...(record.anchorOrigin !== undefined ? { anchorOrigin: record.anchorOrigin } : {}),
    },
  };
}

function pendingRecord(
  record: QueuedOperation,
  reuse: Map<string, ParsedOperation>,
  protocols: ProtocolRegistry,
): UnpublishedOperationRecord {
  const protocolVersion = queuedProtocolVersion(record);
  return {
    operation: parse(record.request, reuse, protocols, protocolVersion),
    receivedTime: record.receivedTime,
    protocolVersion,
    ...(record.anchorOrigin !== undefined ? { anchorOrigin: record.anchorOrigin } : {}),
  };
}
