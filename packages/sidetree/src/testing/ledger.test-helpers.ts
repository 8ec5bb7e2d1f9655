import { hashlinkMetadata, multibaseMultihash } from '@anchor/common/encoding';
import { serializeRequest } from '../client/build-requests.js';
import type { OperationRequest } from '../client/requests.js';
import { parseOperation } from '../operations/parse-operation.js';
import type { ParsedOperation } from '../operations/types.js';
import { DID_NODE_PROTOCOL, type ProtocolParameters } from '../protocol.js';
import { resolveOperations } from '../resolution/resolve-operations.js';
import type {
  PublishedOperationRecord,
  ResolutionModel,
  ResolveOptions,
  UnpublishedOperationRecord,
} from '../resolution/types.js';

export const DOMAIN = 'node1.example.com';
export const ORIGIN = 'https://node1.example.com';
export const START_TIME = 1_700_000_000;

/**
 * A stand-in for the node's stores in unit tests: requests are accepted through ingest parsing (as the API
 * would), anchored by re-parsing their canonical bytes in anchored mode (as the observer would), each anchor
 * getting a real `uEi…` hash and the hashlink / https equivalent references orb records.
 */
export class TestLedger {
  readonly published: PublishedOperationRecord[] = [];
  readonly unpublished: UnpublishedOperationRecord[] = [];
  private anchors = 0;
  now = START_TIME;

  constructor(readonly protocol: ProtocolParameters = DID_NODE_PROTOCOL) {}

  /** Ingest-parses the request (throws its AppError when refused). */
  accept(request: OperationRequest | Uint8Array): ParsedOperation {
    const bytes = request instanceof Uint8Array ? request : serializeRequest(request);
    return parseOperation(bytes, { protocol: this.protocol, now: this.now });
  }

  /** Accepts and keeps the operation as unpublished, received now. */
  submit(request: OperationRequest): ParsedOperation {
    const operation = this.accept(request);
    this.unpublished.push({ operation, receivedTime: this.now });
    return operation;
  }

  /** Anchors operations (already accepted or not) in a new anchor at `time` (default: now). Returns the anchor hash. */
  anchor(
    requests: (OperationRequest | ParsedOperation)[],
    options: { time?: number; transactionNumber?: number } = {},
  ): string {
    const hash = multibaseMultihash(`anchor ${++this.anchors}`);
    requests.forEach((request, operationIndex) => {
      const canonical = 'canonicalRequest' in request ? request.canonicalRequest : serializeRequest(request);
      const operation = parseOperation(canonical, { protocol: this.protocol, mode: 'anchored' });
      this.published.push({
        operation,
        anchor: {
          canonicalReference: hash,
          equivalentReferences: [
            `hl:${hash}:${hashlinkMetadata([`https://${DOMAIN}/cas/${hash}`])}`,
            `https:${DOMAIN}:${hash}`,
          ],
          transactionTime: options.time ?? this.now,
          transactionNumber: options.transactionNumber ?? this.anchors,
          operationIndex,
          protocolVersion: 0,
          anchorOrigin: ORIGIN,
        },
      });
      // The observer drops the unpublished copy once the operation is seen anchored.
      const index = this.unpublished.findIndex((record) =>
        record.operation.canonicalRequest.equals(operation.canonicalRequest),
      );
      if (index >= 0) this.unpublished.splice(index, 1);
    });
    return hash;
  }

  resolve(suffix: string, options: ResolveOptions = {}): ResolutionModel {
    return resolveOperations(
      suffix,
      { published: this.published, unpublished: this.unpublished },
      { protocol: this.protocol, ...options },
    );
  }
}
