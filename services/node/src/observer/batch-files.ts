import {
  parseCoreIndexFile,
  parseProvisionalIndexFile,
  type CoreIndexFile,
  type ProtocolParameters,
  type ProvisionalIndexFile,
} from '@anchor/sidetree';
import type { AnchoredOperation, BatchFileBuilder } from '../anchor-model/batch-file-builder.js';
import { CAS_MEDIA } from '../cas/cas-store.js';
import type { ContentResolver } from '../cas/content-resolver.js';

/** The raw files of one anchor's batch, as fetched (each verified against its hash by the resolver), with the two index files parsed. */
export interface FetchedBatchFiles {
  coreIndex: { bytes: Buffer; file: CoreIndexFile };
  coreProof?: Buffer;
  provisionalIndex?: { bytes: Buffer; file: ProvisionalIndexFile };
  provisionalProof?: Buffer;
  chunk?: Buffer;
}

/**
 * Fetches an anchor's Sidetree batch files in the order a node must (core index, then what it references,
 * then what those reference), from the local CAS or wherever their hashlinks and the sources say. Only the
 * index files are parsed: they name the others.
 */
export async function fetchBatchFiles(
  resolver: ContentResolver,
  input: { coreIndexHashlink: string; sources: readonly string[]; protocol: ProtocolParameters },
): Promise<FetchedBatchFiles> {
  const fetch = (uri: string): Promise<Buffer> =>
    resolver.resolve(uri, { sources: input.sources, mediaType: CAS_MEDIA.batchFile });
  const { protocol } = input;
  const coreIndexBytes = await fetch(input.coreIndexHashlink);
  const coreIndex = parseCoreIndexFile(coreIndexBytes, protocol);
  const [coreProof, provisionalIndex] = await Promise.all([
    coreIndex.coreProofFileUri === undefined ? undefined : fetch(coreIndex.coreProofFileUri),
    coreIndex.provisionalIndexFileUri === undefined
      ? undefined
      : fetch(coreIndex.provisionalIndexFileUri).then((bytes) => ({
          bytes,
          file: parseProvisionalIndexFile(bytes, protocol),
        })),
  ]);
  const chunkUri = provisionalIndex?.file.chunks[0]?.chunkFileUri;
  const [provisionalProof, chunk] = await Promise.all([
    provisionalIndex?.file.provisionalProofFileUri === undefined
      ? undefined
      : fetch(provisionalIndex.file.provisionalProofFileUri),
    chunkUri === undefined ? undefined : fetch(chunkUri),
  ]);
  return {
    coreIndex: { bytes: coreIndexBytes, file: coreIndex },
    ...(coreProof ? { coreProof } : {}),
    ...(provisionalIndex ? { provisionalIndex } : {}),
    ...(provisionalProof ? { provisionalProof } : {}),
    ...(chunk ? { chunk } : {}),
  };
}

/** Every file of a fetched batch, core index first. */
export function batchFileBytes(files: FetchedBatchFiles): Buffer[] {
  return [
    files.coreIndex.bytes,
    files.coreProof,
    files.provisionalIndex?.bytes,
    files.provisionalProof,
    files.chunk,
  ].filter((bytes): bytes is Buffer => bytes !== undefined);
}

/**
 * Fetches an anchor's batch files (`fetchBatchFiles`, here: I/O) and has `reader` assemble the batch (CPU, on
 * its worker thread): its operations in batch order (the index is the operation's position).
 */
export async function readBatchOperations(
  resolver: ContentResolver,
  reader: Pick<BatchFileBuilder, 'read'>,
  input: {
    coreIndexHashlink: string;
    operationCount: number;
    sources: readonly string[];
    /** The protocol version the anchor names: its limits apply to every file and operation. */
    protocol: ProtocolParameters;
  },
): Promise<AnchoredOperation[]> {
  const files = await fetchBatchFiles(resolver, input);
  return reader.read({
    coreIndexFileUri: input.coreIndexHashlink,
    operationCount: input.operationCount,
    protocolVersion: input.protocol.protocolVersion,
    coreIndex: files.coreIndex.bytes,
    ...(files.coreProof ? { coreProof: files.coreProof } : {}),
    ...(files.provisionalIndex ? { provisionalIndex: files.provisionalIndex.bytes } : {}),
    ...(files.provisionalProof ? { provisionalProof: files.provisionalProof } : {}),
    ...(files.chunk ? { chunk: files.chunk } : {}),
  });
}
