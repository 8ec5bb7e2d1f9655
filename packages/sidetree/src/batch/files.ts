import type { JsonObject } from '../json.js';

/**
 * The Sidetree batch files in Orb's shapes (what it writes to its CAS): the proof files hold
 * bare JWS strings, not `{signedData}` objects as in the DIF spec.
 */
export interface SignedOperationReference {
  didSuffix: string;
  revealValue: string;
}

export interface CoreIndexFile {
  provisionalIndexFileUri?: string;
  coreProofFileUri?: string;
  operations?: {
    create?: { suffixData: JsonObject }[];
    recover?: SignedOperationReference[];
    deactivate?: SignedOperationReference[];
  };
}

export interface ProvisionalIndexFile {
  provisionalProofFileUri?: string;
  chunks: { chunkFileUri: string }[];
  operations?: { update?: SignedOperationReference[] };
}

export interface ChunkFile {
  /** Deltas of the creates, then the recovers, then the updates, in batch order. */
  deltas: JsonObject[];
}

export interface CoreProofFile {
  operations: { recover?: string[]; deactivate?: string[] };
}

export interface ProvisionalProofFile {
  operations: { update: string[] };
}

export type BatchFileKind = 'chunk' | 'provisionalProof' | 'provisionalIndex' | 'coreProof' | 'coreIndex';

/** Human names for error messages. */
export const FILE_NAMES: Readonly<Record<BatchFileKind, string>> = {
  chunk: 'chunk file',
  provisionalProof: 'provisional proof file',
  provisionalIndex: 'provisional index file',
  coreProof: 'core proof file',
  coreIndex: 'core index file',
};
