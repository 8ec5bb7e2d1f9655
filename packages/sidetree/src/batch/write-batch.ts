import { badRequest } from '@anchor/common/errors';
import type { JsonObject } from '../json.js';
import type { CreateOperation, DeactivateOperation, RecoverOperation, UpdateOperation } from '../operations/types.js';
import { DID_NODE_PROTOCOL, type ProtocolParameters } from '../protocol.js';
import { checkCasUri, formatAnchorString } from './anchor-string.js';
import { compressFile } from './compression.js';
import {
  FILE_NAMES,
  type BatchFileKind,
  type ChunkFile,
  type CoreIndexFile,
  type CoreProofFile,
  type ProvisionalIndexFile,
  type ProvisionalProofFile,
} from './files.js';

export interface BatchFile {
  kind: BatchFileKind;
  /** The URI `contentUri` gave the compressed content. */
  uri: string;
  /** gzip of the JCS content: what to write to the CAS under `uri`. */
  content: Buffer;
  json: object;
}

export interface BuiltBatch {
  /** `<operation count>.<core index file URI>`. */
  anchorString: string;
  coreIndexFileUri: string;
  operationCount: number;
  /** In write order: chunk, provisional proof, provisional index, core proof, core index. */
  files: BatchFile[];
}

/**
 * What a batch file needs of an operation: a `ParsedOperation` is one, and so is what
 * `batchMemberOf` rebuilds from a canonical request without parsing it again.
 */
export type BatchMember =
  | Pick<CreateOperation, 'type' | 'didSuffix' | 'suffixData' | 'delta'>
  | Pick<UpdateOperation, 'type' | 'didSuffix' | 'delta' | 'signedData' | 'revealValue'>
  | Pick<RecoverOperation, 'type' | 'didSuffix' | 'delta' | 'signedData' | 'revealValue'>
  | Pick<DeactivateOperation, 'type' | 'didSuffix' | 'signedData' | 'revealValue'>;

type CreateMember = Extract<BatchMember, { type: 'create' }>;
type UpdateMember = Extract<BatchMember, { type: 'update' }>;
type RecoverMember = Extract<BatchMember, { type: 'recover' }>;
type DeactivateMember = Extract<BatchMember, { type: 'deactivate' }>;

export interface BuildBatchOptions {
  protocol?: ProtocolParameters;
  /**
   * The CAS URI of a file's compressed content, computed synchronously (e.g. a hashlink of the bytes with the
   * node's CAS link); the caller writes `files` to its CAS afterwards.
   */
  contentUri: (content: Buffer, kind: BatchFileKind) => string;
}

/**
 * Builds the batch files for operations accepted at ingest (at most one per DID suffix, at most the
 * protocol's batch size). Files without content are skipped: no chunk or provisional files for an
 * all-deactivate batch, no proof file without signed operations of its kind.
 *
 * ```ts
 * const batch = buildBatch(operations, { contentUri: (bytes) => createHashlink(bytes, [casLink(bytes)]) });
 * for (const file of batch.files) await cas.write(file.uri, file.content);
 * await anchor(batch.anchorString);
 * ```
 */
export function buildBatch(operations: readonly BatchMember[], options: BuildBatchOptions): BuiltBatch {
  const protocol = options.protocol ?? DID_NODE_PROTOCOL;
  checkBatchMembership(operations, protocol);
  const creates = operations.filter((operation): operation is CreateMember => operation.type === 'create');
  const recovers = operations.filter((operation): operation is RecoverMember => operation.type === 'recover');
  const deactivates = operations.filter((operation): operation is DeactivateMember => operation.type === 'deactivate');
  const updates = operations.filter((operation): operation is UpdateMember => operation.type === 'update');

  const files: BatchFile[] = [];
  const write = (kind: BatchFileKind, json: object): string => {
    const content = compressFile(kind, json, protocol);
    const uri = checkCasUri(options.contentUri(content, kind), `URI of the ${FILE_NAMES[kind]}`, protocol);
    files.push({ kind, uri, content, json });
    return uri;
  };

  let provisionalIndexFileUri: string | undefined;
  const withDelta = [...creates, ...recovers, ...updates];
  if (withDelta.length > 0) {
    const chunk: ChunkFile = { deltas: withDelta.map((operation) => deltaOf(operation)) };
    const chunkFileUri = write('chunk', chunk);
    const provisionalIndex: ProvisionalIndexFile = { chunks: [{ chunkFileUri }] };
    if (updates.length > 0) {
      const proof: ProvisionalProofFile = { operations: { update: updates.map((operation) => operation.signedData) } };
      provisionalIndex.provisionalProofFileUri = write('provisionalProof', proof);
      provisionalIndex.operations = { update: updates.map(reference) };
    }
    provisionalIndexFileUri = write('provisionalIndex', provisionalIndex);
  }

  const coreIndex: CoreIndexFile = {};
  if (provisionalIndexFileUri !== undefined) coreIndex.provisionalIndexFileUri = provisionalIndexFileUri;
  if (recovers.length + deactivates.length > 0) {
    const proof: CoreProofFile = { operations: {} };
    if (recovers.length > 0) proof.operations.recover = recovers.map((operation) => operation.signedData);
    if (deactivates.length > 0) proof.operations.deactivate = deactivates.map((operation) => operation.signedData);
    coreIndex.coreProofFileUri = write('coreProof', proof);
  }
  const coreOperations: NonNullable<CoreIndexFile['operations']> = {};
  if (creates.length > 0)
    coreOperations.create = creates.map((operation) => ({ suffixData: operation.suffixData as unknown as JsonObject }));
  if (recovers.length > 0) coreOperations.recover = recovers.map(reference);
  if (deactivates.length > 0) coreOperations.deactivate = deactivates.map(reference);
  if (Object.keys(coreOperations).length > 0) coreIndex.operations = coreOperations;
  const coreIndexFileUri = write('coreIndex', coreIndex);

  return {
    anchorString: formatAnchorString({ operationCount: operations.length, coreIndexFileUri }),
    coreIndexFileUri,
    operationCount: operations.length,
    files,
  };
}

function checkBatchMembership(operations: readonly BatchMember[], protocol: ProtocolParameters): void {
  if (operations.length === 0) throw badRequest('a batch needs at least one operation');
  if (operations.length > protocol.maxOperationCount) {
    throw badRequest(`a batch holds at most ${protocol.maxOperationCount} operations, got ${operations.length}`);
  }
  const suffixes = new Set<string>();
  for (const operation of operations) {
    if (suffixes.has(operation.didSuffix))
      throw badRequest(`batch has more than one operation for DID suffix ${operation.didSuffix}`);
    suffixes.add(operation.didSuffix);
  }
}

function deltaOf(operation: CreateMember | RecoverMember | UpdateMember): JsonObject {
  if (operation.delta === undefined)
    throw badRequest(`${operation.type} operation for ${operation.didSuffix} has no delta to write`);
  return operation.delta;
}

function reference(operation: RecoverMember | DeactivateMember | UpdateMember): {
  didSuffix: string;
  revealValue: string;
} {
  return { didSuffix: operation.didSuffix, revealValue: operation.revealValue };
}

/**
 * The batch member of an operation from its canonical request (`ParsedOperation.canonicalRequest`, parsed as
 * JSON) and its DID suffix, without validating it again: for operations this node accepted and stored, whose
 * canonical request holds the normalised suffix data and delta that parsing would give (so the batch files
 * are byte for byte the same). The suffix is the caller's because a create's is a hash of its suffix data;
 * other operations must name the same one.
 */
export function batchMemberOf(request: JsonObject, didSuffix: string): BatchMember {
  const { type } = request;
  if (type === 'create')
    return {
      type,
      didSuffix,
      suffixData: request.suffixData as unknown as CreateMember['suffixData'],
      delta: request.delta as JsonObject | undefined,
    };
  if (type !== 'update' && type !== 'recover' && type !== 'deactivate')
    throw badRequest(`a canonical request of type ${JSON.stringify(type)} cannot join a batch`);
  if (request.didSuffix !== didSuffix)
    throw badRequest(
      `a canonical ${type} request names DID suffix ${JSON.stringify(request.didSuffix)}, not ${didSuffix}`,
    );
  if (typeof request.signedData !== 'string' || typeof request.revealValue !== 'string')
    throw badRequest(`a canonical ${type} request lacks signedData or revealValue`);
  const signed = { didSuffix, signedData: request.signedData, revealValue: request.revealValue };
  if (type === 'deactivate') return { type, ...signed };
  return { type, ...signed, delta: request.delta as JsonObject | undefined };
}
