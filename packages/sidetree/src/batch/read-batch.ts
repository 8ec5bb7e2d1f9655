import { AppError, badRequest } from '@anchor/common/errors';
import { isJsonObject, type JsonObject } from '../json.js';
import { parseOperationRequest } from '../operations/parse-operation.js';
import type { ParsedOperation } from '../operations/types.js';
import { DID_NODE_PROTOCOL, type ProtocolParameters } from '../protocol.js';
import { checkCasUri, parseAnchorString, type AnchorString } from './anchor-string.js';
import { decompressFile } from './compression.js';
import {
  FILE_NAMES,
  type BatchFileKind,
  type ChunkFile,
  type CoreIndexFile,
  type CoreProofFile,
  type ProvisionalIndexFile,
  type ProvisionalProofFile,
  type SignedOperationReference,
} from './files.js';

/**
 * Reading a batch back from its anchor string and the files fetched from the CAS, in the order a node
 * fetches them: core index, then (as its URIs say) core proof and provisional index, then provisional proof
 * and chunk. Each `parse*File` checks one file (size, decompression limit, shape); `assembleBatch` checks
 * the files against each other and returns the operations, parsed in anchored mode, in batch order
 * (creates, recovers, deactivates, updates). Unknown members in the files are ignored, as Orb
 * ignores them.
 */
export function parseCoreIndexFile(
  content: Uint8Array,
  protocol: ProtocolParameters = DID_NODE_PROTOCOL,
): CoreIndexFile {
  const json = fileObject('coreIndex', content, protocol);
  const file: CoreIndexFile = {};
  if (json.provisionalIndexFileUri !== undefined)
    file.provisionalIndexFileUri = checkCasUri(
      json.provisionalIndexFileUri,
      'core index file provisionalIndexFileUri',
      protocol,
    );
  if (json.coreProofFileUri !== undefined)
    file.coreProofFileUri = checkCasUri(json.coreProofFileUri, 'core index file coreProofFileUri', protocol);
  if (json.operations !== undefined) {
    const operations = objectMember(json.operations, 'core index file operations');
    file.operations = {};
    if (operations.create !== undefined) {
      file.operations.create = arrayMember(operations.create, 'core index file operations.create').map(
        (entry, index) => ({
          suffixData: objectMember(
            objectMember(entry, `core index file create ${index}`).suffixData,
            `core index file create ${index} suffixData`,
          ),
        }),
      );
    }
    if (operations.recover !== undefined)
      file.operations.recover = references(operations.recover, 'core index file operations.recover');
    if (operations.deactivate !== undefined)
      file.operations.deactivate = references(operations.deactivate, 'core index file operations.deactivate');
  }
  const signed = (file.operations?.recover?.length ?? 0) + (file.operations?.deactivate?.length ?? 0);
  if (signed > 0 && file.coreProofFileUri === undefined)
    throw badRequest('core index file has recover or deactivate operations but no coreProofFileUri');
  if (signed === 0 && file.coreProofFileUri !== undefined)
    throw badRequest('core index file references a core proof file but has no recover or deactivate operations');
  if (
    (file.operations?.create?.length ?? 0) + (file.operations?.recover?.length ?? 0) > 0 &&
    file.provisionalIndexFileUri === undefined
  ) {
    throw badRequest('core index file has create or recover operations but no provisionalIndexFileUri');
  }
  return file;
}

export function parseProvisionalIndexFile(
  content: Uint8Array,
  protocol: ProtocolParameters = DID_NODE_PROTOCOL,
): ProvisionalIndexFile {
  const json = fileObject('provisionalIndex', content, protocol);
  const chunks = arrayMember(json.chunks, 'provisional index file chunks');
  if (chunks.length !== 1)
    throw badRequest(`provisional index file must reference exactly one chunk file, got ${chunks.length}`);
  const chunkFileUri = checkCasUri(
    objectMember(chunks[0], 'provisional index file chunk').chunkFileUri,
    'chunk file URI',
    protocol,
  );
  const file: ProvisionalIndexFile = { chunks: [{ chunkFileUri }] };
  if (json.provisionalProofFileUri !== undefined) {
    file.provisionalProofFileUri = checkCasUri(
      json.provisionalProofFileUri,
      'provisional index file provisionalProofFileUri',
      protocol,
    );
  }
  if (json.operations !== undefined) {
    const operations = objectMember(json.operations, 'provisional index file operations');
    if (operations.update !== undefined)
      file.operations = { update: references(operations.update, 'provisional index file operations.update') };
  }
  const updates = file.operations?.update?.length ?? 0;
  if (updates > 0 && file.provisionalProofFileUri === undefined)
    throw badRequest('provisional index file has update operations but no provisionalProofFileUri');
  if (updates === 0 && file.provisionalProofFileUri !== undefined)
    throw badRequest('provisional index file references a provisional proof file but has no update operations');
  return file;
}

export function parseChunkFile(content: Uint8Array, protocol: ProtocolParameters = DID_NODE_PROTOCOL): ChunkFile {
  const json = fileObject('chunk', content, protocol);
  return {
    deltas: arrayMember(json.deltas, 'chunk file deltas').map((delta, index) =>
      objectMember(delta, `chunk file delta ${index}`),
    ),
  };
}

export function parseCoreProofFile(
  content: Uint8Array,
  protocol: ProtocolParameters = DID_NODE_PROTOCOL,
): CoreProofFile {
  const operations = objectMember(fileObject('coreProof', content, protocol).operations, 'core proof file operations');
  const file: CoreProofFile = { operations: {} };
  if (operations.recover !== undefined)
    file.operations.recover = jwsList(operations.recover, 'core proof file operations.recover');
  if (operations.deactivate !== undefined)
    file.operations.deactivate = jwsList(operations.deactivate, 'core proof file operations.deactivate');
  return file;
}

export function parseProvisionalProofFile(
  content: Uint8Array,
  protocol: ProtocolParameters = DID_NODE_PROTOCOL,
): ProvisionalProofFile {
  const operations = objectMember(
    fileObject('provisionalProof', content, protocol).operations,
    'provisional proof file operations',
  );
  return { operations: { update: jwsList(operations.update ?? [], 'provisional proof file operations.update') } };
}

export interface BatchFiles {
  anchorString: string | AnchorString;
  coreIndex: CoreIndexFile;
  coreProof?: CoreProofFile;
  provisionalIndex?: ProvisionalIndexFile;
  provisionalProof?: ProvisionalProofFile;
  chunk?: ChunkFile;
}

/**
 * Cross-checks the files of one batch and returns its operations (anchored mode, batch order; the index in
 * the returned array is the operation's position in the batch). Checks: every referenced file is present and
 * no unreferenced one; the anchor string's count equals the operations found; proof counts equal the
 * signed operations; the chunk holds one delta per create, recover and update; at most one operation per
 * DID suffix; every operation parses.
 */
export function assembleBatch(files: BatchFiles, options: { protocol?: ProtocolParameters } = {}): ParsedOperation[] {
  const protocol = options.protocol ?? DID_NODE_PROTOCOL;
  const anchor =
    typeof files.anchorString === 'string' ? parseAnchorString(files.anchorString, protocol) : files.anchorString;
  const { coreIndex } = files;
  expectFile(coreIndex.provisionalIndexFileUri, files.provisionalIndex, 'provisional index file');
  expectFile(coreIndex.coreProofFileUri, files.coreProof, 'core proof file');
  expectFile(files.provisionalIndex?.provisionalProofFileUri, files.provisionalProof, 'provisional proof file');
  expectFile(files.provisionalIndex?.chunks[0]?.chunkFileUri, files.chunk, 'chunk file');

  const creates = coreIndex.operations?.create ?? [];
  const recovers = coreIndex.operations?.recover ?? [];
  const deactivates = coreIndex.operations?.deactivate ?? [];
  const updates = files.provisionalIndex?.operations?.update ?? [];
  const total = creates.length + recovers.length + deactivates.length + updates.length;
  if (total !== anchor.operationCount)
    throw badRequest(`anchor string declares ${anchor.operationCount} operations but the batch files hold ${total}`);
  if (total > protocol.maxOperationCount)
    throw badRequest(`batch holds ${total} operations; the maximum is ${protocol.maxOperationCount}`);
  expectCount(files.coreProof?.operations.recover, recovers.length, 'core proof file', 'recover');
  expectCount(files.coreProof?.operations.deactivate, deactivates.length, 'core proof file', 'deactivate');
  expectCount(files.provisionalProof?.operations.update, updates.length, 'provisional proof file', 'update');
  const deltas = files.chunk?.deltas ?? [];
  const withDelta = creates.length + recovers.length + updates.length;
  if (deltas.length !== withDelta)
    throw badRequest(`chunk file holds ${deltas.length} deltas for ${withDelta} creates, recovers and updates`);

  const requests: JsonObject[] = [
    ...creates.map(({ suffixData }, index) => ({ type: 'create', suffixData, delta: deltas[index] })),
    ...recovers.map((ref, index) =>
      signedRequest('recover', ref, files.coreProof?.operations.recover?.[index], deltas[creates.length + index]),
    ),
    ...deactivates.map((ref, index) =>
      signedRequest('deactivate', ref, files.coreProof?.operations.deactivate?.[index], undefined),
    ),
    ...updates.map((ref, index) =>
      signedRequest(
        'update',
        ref,
        files.provisionalProof?.operations.update[index],
        deltas[creates.length + recovers.length + index],
      ),
    ),
  ];
  const suffixes = new Set<string>();
  return requests.map((request, index) => {
    let operation: ParsedOperation;
    try {
      operation = parseOperationRequest(request, { protocol, mode: 'anchored' });
    } catch (error) {
      if (error instanceof AppError)
        throw badRequest(`batch operation ${index} (${String(request.type)}) is invalid: ${error.message}`);
      throw error;
    }
    if (suffixes.has(operation.didSuffix))
      throw badRequest(`batch has more than one operation for DID suffix ${operation.didSuffix}`);
    suffixes.add(operation.didSuffix);
    return operation;
  });
}

function signedRequest(
  type: string,
  reference: SignedOperationReference,
  signedData: string | undefined,
  delta: JsonObject | undefined,
): JsonObject {
  const request: JsonObject = { type, didSuffix: reference.didSuffix, revealValue: reference.revealValue, signedData };
  if (delta !== undefined) request.delta = delta;
  return request;
}

function expectFile(uri: string | undefined, file: object | undefined, name: string): void {
  if (uri !== undefined && file === undefined) throw badRequest(`${name} ${uri} is referenced but missing`);
  if (uri === undefined && file !== undefined) throw badRequest(`${name} was given but nothing references it`);
}

function expectCount(proofs: readonly string[] | undefined, operations: number, file: string, type: string): void {
  const count = proofs?.length ?? 0;
  if (count !== operations)
    throw badRequest(`${file} holds ${count} ${type} proofs for ${operations} ${type} operations`);
}

function fileObject(kind: BatchFileKind, content: Uint8Array, protocol: ProtocolParameters): JsonObject {
  const json = decompressFile(kind, content, protocol);
  if (!isJsonObject(json)) throw badRequest(`${FILE_NAMES[kind]} must be a JSON object`);
  return json;
}

function objectMember(value: unknown, what: string): JsonObject {
  if (!isJsonObject(value)) throw badRequest(`${what} must be a JSON object`);
  return value;
}

function arrayMember(value: unknown, what: string): unknown[] {
  if (!Array.isArray(value)) throw badRequest(`${what} must be an array`);
  return value;
}

function references(value: unknown, what: string): SignedOperationReference[] {
  return arrayMember(value, what).map((entry, index) => {
    const reference = objectMember(entry, `${what} ${index}`);
    if (typeof reference.didSuffix !== 'string' || typeof reference.revealValue !== 'string') {
      throw badRequest(`${what} ${index} needs string didSuffix and revealValue`);
    }
    return { didSuffix: reference.didSuffix, revealValue: reference.revealValue };
  });
}

function jwsList(value: unknown, what: string): string[] {
  return arrayMember(value, what).map((entry, index) => {
    if (typeof entry !== 'string') throw badRequest(`${what} ${index} must be a compact JWS string`);
    return entry;
  });
}
