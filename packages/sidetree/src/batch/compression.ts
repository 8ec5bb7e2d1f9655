import { gunzipSync, gzipSync } from 'node:zlib';
import { canonicalBytes } from '@anchor/common/encoding';
import { badRequest } from '@anchor/common/errors';
import type { ProtocolParameters } from '../protocol.js';
import { FILE_NAMES, type BatchFileKind } from './files.js';

/**
 * Batch files are gzip-compressed JSON (the protocol's compression algorithm). Compression is CPU work
 * only, so it stays inside this pure package. Files are written as JCS so the same batch always gives the
 * same bytes (and the same CAS address).
 */
export function maxFileSize(kind: BatchFileKind, protocol: ProtocolParameters): number {
  switch (kind) {
    case 'coreIndex':
      return protocol.maxCoreIndexFileSize;
    case 'provisionalIndex':
      return protocol.maxProvisionalIndexFileSize;
    case 'coreProof':
    case 'provisionalProof':
      return protocol.maxProofFileSize;
    case 'chunk':
      return protocol.maxChunkFileSize;
  }
}

/** JCS + gzip, refusing a result above the file's size limit. */
export function compressFile(kind: BatchFileKind, content: object, protocol: ProtocolParameters): Buffer {
  const compressed = gzipSync(canonicalBytes(content));
  const limit = maxFileSize(kind, protocol);
  if (compressed.length > limit)
    throw badRequest(`${FILE_NAMES[kind]} is too large: ${compressed.length} bytes exceeds the maximum of ${limit}`);
  return compressed;
}

/**
 * gunzip + JSON.parse with the protocol's guards: the compressed file must be within its size limit and may
 * expand to at most `maxMemoryDecompressionFactor` times that limit (zlib stops there, so a decompression
 * bomb never gets materialised).
 */
export function decompressFile(kind: BatchFileKind, content: Uint8Array, protocol: ProtocolParameters): unknown {
  const name = FILE_NAMES[kind];
  const limit = maxFileSize(kind, protocol);
  if (content.length > limit)
    throw badRequest(`${name} is too large: ${content.length} bytes exceeds the maximum of ${limit}`);
  const maxExpanded = limit * protocol.maxMemoryDecompressionFactor;
  let expanded: Buffer;
  try {
    expanded = gunzipSync(content, { maxOutputLength: maxExpanded });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') {
      throw badRequest(
        `${name} decompresses to more than ${maxExpanded} bytes (${protocol.maxMemoryDecompressionFactor}x its size limit)`,
      );
    }
    throw badRequest(`${name} is not valid gzip: ${(error as Error).message}`);
  }
  try {
    return JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(expanded));
  } catch {
    throw badRequest(`${name} is not valid UTF-8 JSON`);
  }
}
