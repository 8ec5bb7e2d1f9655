import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { createHashlink, multibaseMultihash } from '@anchor/common/encoding';
import { internal } from '@anchor/common/errors';
import { WorkerPool } from '@anchor/common/workers';
import {
  assembleBatch,
  batchMemberOf,
  buildBatch,
  parseChunkFile,
  parseCoreIndexFile,
  parseCoreProofFile,
  parseProvisionalIndexFile,
  parseProvisionalProofFile,
  protocolOfVersion,
  type ParsedOperation,
} from '@anchor/sidetree';
import { buildAnchorLink, type AnchorLink } from './anchor-linkset.js';

/** A batch's Sidetree files, ready for the CAS: URIs are hashlinks naming this node's `/cas/<hash>`. */
export interface BuiltBatchFiles {
  coreIndexFileUri: string;
  files: Array<{ uri: string; content: Buffer }>;
}

/** What an anchor link is built from (see `buildAnchorLink`). */
export type AnchorLinkInput = Parameters<typeof buildAnchorLink>[0];

/** An operation as the builder takes it: its canonical request (JSON text) and its DID suffix. */
export interface BatchFileInput {
  requests: readonly string[];
  suffixes: readonly string[];
  /** The batch's protocol version (its file limits); absent: v1.0. */
  protocolVersion?: number;
}

/** An anchor's fetched batch files (bytes as fetched and checked against their hashes), to be read into operations. */
export interface FetchedBatchInput {
  coreIndexFileUri: string;
  operationCount: number;
  protocolVersion: number;
  coreIndex: Uint8Array;
  coreProof?: Uint8Array;
  provisionalIndex?: Uint8Array;
  provisionalProof?: Uint8Array;
  chunk?: Uint8Array;
}

/** What the observer commits of an operation read from batch files: what crosses back from the worker thread. */
export type AnchoredOperation = Pick<ParsedOperation, 'type' | 'didSuffix' | 'canonicalRequest' | 'anchorOrigin'> & {
  revealedCommitment?: string;
};

/**
 * Reads an anchor's batch files into its operations, in batch order (anchored mode: every file and operation
 * under the anchor's protocol version; a batch that does not assemble is refused).
 */
export function readBatchFiles(input: FetchedBatchInput): AnchoredOperation[] {
  const protocol = protocolOfVersion(input.protocolVersion);
  if (protocol === undefined) throw internal(`batch files: unknown protocol version ${input.protocolVersion}`);
  const operations = assembleBatch(
    {
      anchorString: { operationCount: input.operationCount, coreIndexFileUri: input.coreIndexFileUri },
      coreIndex: parseCoreIndexFile(input.coreIndex, protocol),
      ...(input.coreProof ? { coreProof: parseCoreProofFile(input.coreProof, protocol) } : {}),
      ...(input.provisionalIndex
        ? { provisionalIndex: parseProvisionalIndexFile(input.provisionalIndex, protocol) }
        : {}),
      ...(input.provisionalProof
        ? { provisionalProof: parseProvisionalProofFile(input.provisionalProof, protocol) }
        : {}),
      ...(input.chunk ? { chunk: parseChunkFile(input.chunk, protocol) } : {}),
    },
    { protocol },
  );
  return operations.map((operation) => ({
    type: operation.type,
    didSuffix: operation.didSuffix,
    canonicalRequest: operation.canonicalRequest,
    anchorOrigin: operation.anchorOrigin,
    ...(operation.type !== 'create' ? { revealedCommitment: operation.revealedCommitment } : {}),
  }));
}

/**
 * Builds what an anchor needs off the event loop: the batch files of this node's accepted operations given
 * in batch order, and the anchor link (JCS and gzip of the content object, the related linkset and the
 * credential).
 */
export interface BatchFileBuilder {
  build(input: BatchFileInput, casBase: string): Promise<BuiltBatchFiles>;
  link(input: AnchorLinkInput): Promise<AnchorLink>;
  /** Reads fetched batch files into operations (the observer's remote anchors; see `readBatchFiles`). */
  read(input: FetchedBatchInput): Promise<AnchoredOperation[]>;
  close(): Promise<void>;
}

/**
 * The work itself. The requests were validated at intake and are the canonical (normalised) ones, so each is
 * only read back as JSON: parsing them again (hashing the suffix data, checking keys) would more than double
 * the worker's time per anchor, time taken from the event loop's core on a small machine.
 */
export function buildBatchFiles(
  { requests, suffixes, protocolVersion = 0 }: BatchFileInput,
  casBase: string,
): BuiltBatchFiles {
  if (requests.length !== suffixes.length)
    throw internal(`batch files: ${requests.length} requests but ${suffixes.length} suffixes`);
  const protocol = protocolOfVersion(protocolVersion);
  if (protocol === undefined) throw internal(`batch files: unknown protocol version ${protocolVersion}`);
  const members = requests.map((request, index) =>
    batchMemberOf(JSON.parse(request) as Record<string, unknown>, suffixes[index] as string),
  );
  const built = buildBatch(members, {
    protocol,
    contentUri: (content) => createHashlink(content, [`${casBase}/${multibaseMultihash(content)}`]),
  });
  return {
    coreIndexFileUri: built.coreIndexFileUri,
    files: built.files.map((file) => ({ uri: file.uri, content: file.content })),
  };
}

/** The tasks of the builder's worker thread. */
export type BuildTask =
  | { kind: 'files'; input: BatchFileInput; casBase: string }
  | { kind: 'link'; input: AnchorLinkInput }
  | { kind: 'read'; input: FetchedBatchInput };

/** Runs one task (on the worker thread). */
export function runBuildTask(task: BuildTask): BuiltBatchFiles | AnchorLink | AnchoredOperation[] {
  if (task.kind === 'link') return buildAnchorLink(task.input);
  if (task.kind === 'read') return readBatchFiles(task.input);
  return buildBatchFiles(task.input, task.casBase);
}

const WORKER_FILE = fileURLToPath(new URL('./batch-file-worker.js', import.meta.url));

/**
 * The work runs on a worker thread when the compiled worker is there (the built service): JCS and gzip of
 * a batch of thousands of operations take tens of milliseconds, which would otherwise stall every request
 * the node is serving. Run from TypeScript sources (unit tests) it runs inline. One thread: the writer builds
 * one batch at a time.
 */
export function createBatchFileBuilder(): BatchFileBuilder {
  if (!existsSync(WORKER_FILE)) {
    return {
      build: async (input, casBase) => buildBatchFiles(input, casBase),
      link: async (input) => buildAnchorLink(input),
      read: async (input) => readBatchFiles(input),
      close: async () => undefined,
    };
  }
  const pool = new WorkerPool<BuildTask, BuiltBatchFiles | AnchorLink | AnchoredOperation[]>({
    file: WORKER_FILE,
    size: 1,
    taskName: 'building batch files',
    unref: true,
    logModule: 'anchor-writer',
  });
  return {
    async build(input, casBase) {
      const built = (await pool.run({ kind: 'files', input, casBase })) as BuiltBatchFiles;
      // The contents arrive as Uint8Arrays (structured clone); Buffers over the same memory, not copies.
      return {
        coreIndexFileUri: built.coreIndexFileUri,
        files: built.files.map(({ uri, content }) => ({
          uri,
          content: Buffer.from(content.buffer, content.byteOffset, content.byteLength),
        })),
      };
    },
    link: async (input) => (await pool.run({ kind: 'link', input })) as AnchorLink,
    async read(input) {
      const operations = (await pool.run({ kind: 'read', input })) as AnchoredOperation[];
      for (const operation of operations) {
        const bytes = operation.canonicalRequest as Uint8Array;
        operation.canonicalRequest = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
      }
      return operations;
    },
    close: () => pool.close(),
  };
}
