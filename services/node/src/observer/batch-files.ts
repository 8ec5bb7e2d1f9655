import {
  assembleBatch,
  parseChunkFile,
  parseCoreIndexFile,
  parseCoreProofFile,
  parseProvisionalIndexFile,
  parseProvisionalProofFile,
  type ParsedOperation,
  type ProtocolParameters,
} from '@anchor/sidetree';
import { CAS_MEDIA } from '../cas/cas-store.js';
import type { ContentResolver } from '../cas/content-resolver.js';

/**
 * Fetches an anchor's Sidetree batch files in the order a node must (core index, then what it references,
 * then what those reference), from the local CAS or wherever their hashlinks and the event's sources say,
 * and assembles the batch: its operations in batch order (the index is the operation's position).
 */
export async function readBatchOperations(
  resolver: ContentResolver,
  input: {
    coreIndexHashlink: string;
    operationCount: number;
    sources: readonly string[];
    /** The protocol version the anchor names: its limits apply to every file and operation. */
    protocol: ProtocolParameters;
  },
): Promise<ParsedOperation[]> {
  const fetch = (uri: string): Promise<Buffer> =>
    resolver.resolve(uri, { sources: input.sources, mediaType: CAS_MEDIA.batchFile });
  const { protocol } = input;
  const coreIndex = parseCoreIndexFile(await fetch(input.coreIndexHashlink), protocol);
  const [coreProof, provisionalIndex] = await Promise.all([
    coreIndex.coreProofFileUri === undefined
      ? undefined
      : fetch(coreIndex.coreProofFileUri).then((bytes) => parseCoreProofFile(bytes, protocol)),
    coreIndex.provisionalIndexFileUri === undefined
      ? undefined
      : fetch(coreIndex.provisionalIndexFileUri).then((bytes) => parseProvisionalIndexFile(bytes, protocol)),
  ]);
  const chunkUri = provisionalIndex?.chunks[0]?.chunkFileUri;
  const [provisionalProof, chunk] = await Promise.all([
    provisionalIndex?.provisionalProofFileUri === undefined
      ? undefined
      : fetch(provisionalIndex.provisionalProofFileUri).then((bytes) => parseProvisionalProofFile(bytes, protocol)),
    chunkUri === undefined ? undefined : fetch(chunkUri).then((bytes) => parseChunkFile(bytes, protocol)),
  ]);
  return assembleBatch(
    {
      anchorString: { operationCount: input.operationCount, coreIndexFileUri: input.coreIndexHashlink },
      coreIndex,
      ...(coreProof ? { coreProof } : {}),
      ...(provisionalIndex ? { provisionalIndex } : {}),
      ...(provisionalProof ? { provisionalProof } : {}),
      ...(chunk ? { chunk } : {}),
    },
    { protocol },
  );
}
