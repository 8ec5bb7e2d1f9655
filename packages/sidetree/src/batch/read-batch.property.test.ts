import { gzipSync } from 'node:zlib';
import { AppError } from '@anchor/common/errors';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  parseChunkFile,
  parseCoreIndexFile,
  parseCoreProofFile,
  parseProvisionalIndexFile,
  parseProvisionalProofFile,
} from './read-batch.js';

/**
 * Property tests of the batch-file readers with a fixed seed (the same cases every run): the files come from
 * other nodes' CAS, so any bytes may arrive, and a bad file must be an AppError bad_request, never a crash.
 */
const RUNS = { seed: 20261126, numRuns: 300 };

const READERS = {
  parseCoreIndexFile,
  parseProvisionalIndexFile,
  parseChunkFile,
  parseCoreProofFile,
  parseProvisionalProofFile,
};

/** Objects built from the files' own member names, so cases get past the first shape checks. */
const NAMES = [
  'operations',
  'create',
  'recover',
  'deactivate',
  'update',
  'suffixData',
  'didSuffix',
  'revealValue',
  'signedData',
  'deltas',
  'chunks',
  'chunkFileUri',
];
const URIS = [
  'uEiBk2xoA1vVq9eN6bG9z2cP0bJzV1kXwq8C1m0Q8cY2a4',
  'EiBk2xoA1vVq9eN6bG9z2cP0bJzV1kXwq8C1m0Q8cY2a4A',
  'hl:uEiB',
  '',
];
const fileLike = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    fc.constantFrom(...URIS),
    fc.jsonValue({ maxDepth: 1 }),
    fc.array(tie('value'), { maxLength: 3 }),
    fc.dictionary(
      fc.oneof(
        fc.constantFrom(...NAMES),
        fc.constantFrom('provisionalIndexFileUri', 'coreProofFileUri', 'provisionalProofFileUri'),
      ),
      tie('value'),
      { maxKeys: 4 },
    ),
  ),
})).value;

function expectOnlyBadRequest(read: (content: Uint8Array) => unknown, content: Uint8Array): void {
  try {
    read(content);
  } catch (error) {
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).code).toBe('bad_request');
  }
}

describe('batch file readers (property, fixed seed)', () => {
  for (const [name, read] of Object.entries(READERS)) {
    it(`${name} throws nothing but an AppError bad_request on arbitrary bytes and on gzipped arbitrary JSON`, () => {
      fc.assert(
        fc.property(
          fc.oneof(
            fc.uint8Array({ maxLength: 256 }),
            fc.jsonValue({ stringUnit: 'binary' }).map((value) => gzipSync(JSON.stringify(value) ?? '')),
            fileLike.map((value) => gzipSync(JSON.stringify(value) ?? '')),
          ),
          (content) => expectOnlyBadRequest(read, content),
        ),
        RUNS,
      );
    });
  }
});
