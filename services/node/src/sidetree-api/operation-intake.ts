import { AppError } from '@anchor/common/errors';
import type { Logger } from '@anchor/common/log';
import { storeUnavailable, type ProviderBatchOp } from '@anchor/common/storage';
import {
  canonicalDid,
  parseOperation,
  renderNodeResolution,
  resolveOperations,
  unpublishedDid,
  type DidResolutionResult,
  type OperationType,
  type ParsedOperation,
  type ProtocolParameters,
  type ResolutionModel,
  type UnpublishedOperationRecord,
} from '@anchor/sidetree';
import type { NodeMetrics } from '../observability/node-metrics.js';
import { encodeRequest, operationKey, type QueuedOperation } from '../operations/operation-records.js';
import { OperationRejected } from '../operations/operation-rejected.js';
import { OperationStores, STORE } from '../operations/operation-stores.js';
import type { ResolutionService } from '../resolution/resolution-service.js';
import type { AllowedOrigins } from '../runtime-config/allowed-origins.js';
import { KeyedMutex } from '@anchor/common/concurrency';
import { QueueFull, type IntakeBackPressure } from './intake-back-pressure.js';

/** Told about every write (the batch writer mirrors the queue). */
export interface AcceptedOperationSink {
  accepting(): void;
  accepted(
    entry:
      | { key: string; suffix: string; acceptedAt: number; operation: ParsedOperation; protocolVersion: number }
      | undefined,
  ): void;
}

export interface OperationIntakeOptions {
  namespace: string;
  /** `host[:port]` for the https-hinted equivalent id. */
  domain: string;
  includePublishedOperations: boolean;
  /** The current protocol version (`--current-sidetree-protocol-version`): operations are accepted under it. */
  protocol: ProtocolParameters;
}

export interface OperationIntakeDeps {
  stores: OperationStores;
  resolution: ResolutionService;
  allowedOrigins: AllowedOrigins;
  sink: AcceptedOperationSink;
  metrics: NodeMetrics;
  log: Logger;
  /**
   * How long the store has been known silent or failing (the service kit's store probe), undefined while it
   * answers: intake then refuses at once with 503 and Retry-After instead of holding the request on a write
   * that would wait for the adapter's deadline.
   */
  storeStalledForMs?: (() => number | undefined) | undefined;
  /** Refuses operations while the anchoring queue is full (`--max-queued-operations`). */
  backPressure?: IntakeBackPressure | undefined;
  /**
   * `--verify-latest-from-anchor-origin`: throws when the DID's anchor origin has operations this node lacks.
   * Given the state from the DID's published operations here and the state with the pending ones too.
   */
  verifyLatest?: ((suffix: string, published: ResolutionModel, current: ResolutionModel) => Promise<void>) | undefined;
}

/**
 * `POST /sidetree/v1/operations` (orb.md §2.1 intake): validate, check the anchor origin, check the
 * operation against the DID's state, write it durably, then answer. Nothing invalid reaches a batch:
 *
 * - the request must parse in ingest mode (size, JSON, members, hashes, signature, reveal value vs key, key
 *   reuse, anchor window);
 * - create and recover must name an allowed anchor origin;
 * - update, recover and deactivate must reveal the DID's current commitment (update / recovery) as left by
 *   its published and every still-pending accepted operation, the DID must exist and not be deactivated, and
 *   the operation must apply on top of that state. Operations of one DID are checked one at a time.
 *
 * The write is one atomic batch: the queued operation (insert-if-absent under `<suffix>:<claim>`, so a
 * commitment is spent once even across instances; the queue is also the unpublished view) and, for
 * operations on an existing DID, the DID's version token. A repeated request is answered again without
 * being queued twice.
 */
export class OperationIntake {
  private readonly locks = new KeyedMutex();

  constructor(
    private readonly deps: OperationIntakeDeps,
    private readonly options: OperationIntakeOptions,
  ) {}

  async submit(body: Buffer | undefined): Promise<DidResolutionResult> {
    const started = performance.now();
    let type = 'unknown';
    try {
      this.refuseWhileStoreUnavailable();
      await this.deps.backPressure?.admit();
      if (body === undefined || body.length === 0)
        throw new OperationRejected('invalid', 'the request body must be a Sidetree operation request (JSON)');
      const operation = this.parse(body);
      type = operation.type;
      if (operation.type === 'create' || operation.type === 'recover') await this.checkOrigin(operation);
      const result = await this.locks.run(operation.didSuffix, () =>
        operation.type === 'create' ? this.acceptCreate(operation) : this.acceptChange(operation),
      );
      this.deps.metrics.operationsAccepted.inc({ type });
      return result;
    } catch (error) {
      const reason =
        error instanceof OperationRejected
          ? error.reason
          : error instanceof QueueFull
            ? 'queue-full'
            : error instanceof AppError && error.code === 'unavailable'
              ? 'store-unavailable'
              : 'error';
      this.deps.metrics.operationsRejected.inc({ reason });
      throw error;
    } finally {
      this.deps.metrics.operationAcceptSeconds.observe({ type }, (performance.now() - started) / 1000);
    }
  }

  private refuseWhileStoreUnavailable(): void {
    const stalledMs = this.deps.storeStalledForMs?.();
    if (stalledMs === undefined) return;
    throw storeUnavailable(
      `the node's database has not answered for ${(stalledMs / 1000).toFixed(1)} s: the operation was not accepted, retry later`,
    );
  }

  private parse(body: Buffer): ParsedOperation {
    try {
      return parseOperation(body, { protocol: this.options.protocol });
    } catch (error) {
      if (error instanceof AppError && error.status < 500) throw new OperationRejected('invalid', error.message);
      throw error;
    }
  }

  private async checkOrigin(operation: ParsedOperation): Promise<void> {
    const origin = operation.anchorOrigin;
    if (origin === undefined)
      throw new OperationRejected('origin', `a ${operation.type} operation must name its anchorOrigin`);
    if (!(await this.deps.allowedOrigins.isAllowed(origin)))
      throw new OperationRejected('origin', `anchor origin '${origin}' is not allowed on this node`);
  }

  private async acceptCreate(operation: ParsedOperation): Promise<DidResolutionResult> {
    const suffix = operation.didSuffix;
    const receivedTime = Math.floor(Date.now() / 1000);
    if (await this.deps.stores.didAnchors.get(suffix)) {
      // Already anchored: answer with what the DID is now.
      return (await this.deps.resolution.resolve(unpublishedDid(suffix, this.options.namespace))).result;
    }
    // Insert-if-absent: a repeated create (here or on another instance) finds its first copy and is answered the same.
    await this.write(operation, operation.anchorOrigin, receivedTime);
    const { protocolVersion } = this.options.protocol;
    const model = resolveOperations(suffix, { unpublished: [{ operation, receivedTime, protocolVersion }] });
    return this.render(model, unpublishedDid(suffix, this.options.namespace));
  }

  private async acceptChange(operation: ParsedOperation): Promise<DidResolutionResult> {
    if (operation.type === 'create') throw new Error('acceptChange takes update, recover or deactivate operations');
    const suffix = operation.didSuffix;
    const key = operationKey(operation);
    // Cached and checked against the DID's version: current on every instance.
    const { published, pending } = await this.deps.resolution.didOperations(suffix);

    const same = pending.find((record) => operationKey(record.operation) === key);
    if (same !== undefined && same.operation.canonicalRequest.equals(operation.canonicalRequest)) {
      // The same request again (a client retry): answer as the first time, queue nothing.
      return this.renderState(resolveOperations(suffix, { published, unpublished: pending }));
    }

    let model: ResolutionModel;
    try {
      model = resolveOperations(suffix, { published, unpublished: pending });
    } catch (error) {
      if (error instanceof AppError && error.code === 'not_found')
        throw new OperationRejected(
          'unknown-did',
          `DID ${suffix} is not known to this node: its create must be accepted first`,
        );
      throw error;
    }
    if (model.deactivated)
      throw new OperationRejected('deactivated', `DID ${suffix} is deactivated: no ${operation.type} is possible`);
    if (this.deps.verifyLatest !== undefined && published.length > 0)
      await this.deps.verifyLatest(suffix, resolveOperations(suffix, { published }), model);
    if (same !== undefined) {
      throw new OperationRejected(
        'commitment',
        `another pending operation of DID ${suffix} already reveals this ${commitmentName(operation.type)} commitment`,
      );
    }
    const expected = operation.type === 'update' ? model.updateCommitment : model.recoveryCommitment;
    if (expected === undefined) {
      throw new OperationRejected(
        'commitment',
        `DID ${suffix} has no update commitment (its last create or recover had an unusable delta): recover it`,
      );
    }
    if (operation.revealedCommitment !== expected) {
      throw new OperationRejected(
        'commitment',
        `the reveal value does not match the current ${commitmentName(operation.type)} commitment of DID ${suffix}`,
      );
    }

    const receivedTime = Math.floor(Date.now() / 1000);
    const anchorOrigin = operation.anchorOrigin ?? model.anchorOrigin;
    const record: UnpublishedOperationRecord = {
      operation,
      receivedTime,
      protocolVersion: this.options.protocol.protocolVersion,
      ...(anchorOrigin !== undefined ? { anchorOrigin } : {}),
    };
    const after = resolveOperations(suffix, { published, unpublished: [...pending, record] });
    if (!after.appliedOperations.some((applied) => applied.operation === operation)) {
      throw new OperationRejected(
        'commitment',
        `the ${operation.type} operation does not apply to the current state of DID ${suffix} (its next commitment was already used)`,
      );
    }
    if (!(await this.write(operation, anchorOrigin, receivedTime))) {
      throw new OperationRejected(
        'commitment',
        `another operation of DID ${suffix} revealing this ${commitmentName(operation.type)} commitment was accepted at the same time`,
      );
    }
    return this.renderState(after);
  }

  /** The durable write; false when another instance took the same key in the meantime. */
  private async write(
    operation: ParsedOperation,
    anchorOrigin: string | undefined,
    receivedTime: number,
  ): Promise<boolean> {
    const suffix = operation.didSuffix;
    const key = operationKey(operation);
    const acceptedAt = performance.timeOrigin + performance.now();
    const request = encodeRequest(operation.canonicalRequest);
    const { protocolVersion } = this.options.protocol;
    const queued: QueuedOperation = {
      suffix,
      type: operation.type,
      request,
      acceptedAt,
      receivedTime,
      protocolVersion,
    };
    if (anchorOrigin !== undefined) queued.anchorOrigin = anchorOrigin;
    const ops: ProviderBatchOp[] = [{ store: STORE.queued, op: 'insert', key, value: queued }];
    // A create makes a DID nobody has a view of (empty views are never cached): no version to move.
    if (operation.type !== 'create') ops.push(OperationStores.touch(suffix));

    this.deps.sink.accepting();
    let written = false;
    try {
      await this.deps.stores.provider.batch(ops);
      written = true;
      this.deps.backPressure?.accepted();
    } catch (error) {
      if (!(error instanceof AppError && error.code === 'conflict')) throw error;
    } finally {
      this.deps.sink.accepted(written ? { key, suffix, acceptedAt, operation, protocolVersion } : undefined);
      this.deps.resolution.invalidate(suffix);
    }
    return written;
  }

  private renderState(model: ResolutionModel): DidResolutionResult {
    const did =
      model.canonicalReference !== undefined
        ? canonicalDid(model.canonicalReference, model.didSuffix, this.options.namespace)
        : unpublishedDid(model.didSuffix, this.options.namespace);
    return this.render(model, did);
  }

  private render(model: ResolutionModel, did: string): DidResolutionResult {
    return renderNodeResolution(model, {
      did,
      namespace: this.options.namespace,
      domain: this.options.domain,
      includePublishedOperations: this.options.includePublishedOperations,
    });
  }
}

function commitmentName(type: OperationType): string {
  return type === 'update' ? 'update' : 'recovery';
}
