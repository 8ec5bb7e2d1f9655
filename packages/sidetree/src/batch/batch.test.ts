import { gzipSync } from 'node:zlib';
import { createHashlink, multibaseMultihash } from '@anchor/common/encoding';
import { describe, expect, it } from 'vitest';
import { serializeRequest } from '../client/build-requests.js';
import type { OperationRequest } from '../client/requests.js';
import { revealValueOf } from '../keys/signing-key.js';
import { parseOperation } from '../operations/parse-operation.js';
import type { ParsedOperation } from '../operations/types.js';
import { DID_NODE_PROTOCOL, type ProtocolParameters } from '../protocol.js';
import { expectBadRequest } from '../testing/assertions.test-helpers.js';
import { DOMAIN } from '../testing/ledger.test-helpers.js';
import { requestFixture } from '../testing/requests.test-helpers.js';
import { formatAnchorString, parseAnchorString } from './anchor-string.js';
import type { BatchFileKind } from './files.js';
import {
  assembleBatch,
  parseChunkFile,
  parseCoreIndexFile,
  parseCoreProofFile,
  parseProvisionalIndexFile,
  parseProvisionalProofFile,
  type BatchFiles,
} from './read-batch.js';
import { selectBatch } from './select-batch.js';
import { batchMemberOf, buildBatch, type BuiltBatch } from './write-batch.js';

const accept = (request: OperationRequest) => parseOperation(serializeRequest(request));
const contentUri = (content: Buffer) =>
  createHashlink(content, [`https://${DOMAIN}/cas/${multibaseMultihash(content)}`]);
const gz = (json: unknown) => gzipSync(Buffer.from(JSON.stringify(json)));
const a = requestFixture('Ed25519');
const b = requestFixture('P-256');
const c = requestFixture('secp256k1');
const d = requestFixture('Ed25519');
const mixed = [accept(a.created.request), accept(b.update()), accept(c.recover()), accept(d.deactivate())];

/** Reads a built batch back the way a node would: anchor string → core index → what it references. */
function readBack(batch: BuiltBatch, protocol: ProtocolParameters = DID_NODE_PROTOCOL): ParsedOperation[] {
  const byUri = new Map(batch.files.map((file) => [file.uri, file.content]));
  const fetch = (uri: string | undefined) => (uri === undefined ? undefined : byUri.get(uri));
  const anchor = parseAnchorString(batch.anchorString, protocol);
  const coreIndex = parseCoreIndexFile(fetch(anchor.coreIndexFileUri) as Buffer, protocol);
  const files: BatchFiles = { anchorString: anchor, coreIndex };
  const coreProof = fetch(coreIndex.coreProofFileUri);
  if (coreProof) files.coreProof = parseCoreProofFile(coreProof, protocol);
  const provisionalIndex = fetch(coreIndex.provisionalIndexFileUri);
  if (provisionalIndex) {
    files.provisionalIndex = parseProvisionalIndexFile(provisionalIndex, protocol);
    const proof = fetch(files.provisionalIndex.provisionalProofFileUri);
    if (proof) files.provisionalProof = parseProvisionalProofFile(proof, protocol);
    files.chunk = parseChunkFile(fetch(files.provisionalIndex.chunks[0]?.chunkFileUri) as Buffer, protocol);
  }
  return assembleBatch(files, { protocol });
}

describe('batch files: build and read back', () => {
  it('round-trips a batch of all four operation types in Go file shapes', () => {
    const batch = buildBatch(mixed, { contentUri });
    expect(batch.files.map((file) => file.kind)).toEqual([
      'chunk',
      'provisionalProof',
      'provisionalIndex',
      'coreProof',
      'coreIndex',
    ]);
    expect(batch.anchorString).toBe(`4.${batch.coreIndexFileUri}`);
    expect(batch.coreIndexFileUri).toMatch(/^hl:uEi[^:]+:uoQ/);
    const json = Object.fromEntries(batch.files.map((file) => [file.kind, file.json])) as Record<
      BatchFileKind,
      Record<string, unknown>
    >;
    expect(json.coreProof).toEqual({
      operations: {
        recover: [mixed[2]?.type === 'recover' && mixed[2].signedData],
        deactivate: [mixed[3]?.type === 'deactivate' && mixed[3].signedData],
      },
    });
    expect(json.provisionalProof).toEqual({
      operations: { update: [mixed[1]?.type === 'update' && mixed[1].signedData] },
    });
    expect(json.coreIndex.operations).toEqual({
      create: [{ suffixData: a.created.request.suffixData }],
      recover: [{ didSuffix: c.didSuffix, revealValue: revealValueOf(c.keys.recovery.publicJwk()) }],
      deactivate: [{ didSuffix: d.didSuffix, revealValue: revealValueOf(d.keys.recovery.publicJwk()) }],
    });
    expect((json.chunk.deltas as unknown[]).length).toBe(3);

    const read = readBack(batch);
    expect(read.map((operation) => operation.type)).toEqual(['create', 'recover', 'deactivate', 'update']);
    const original = new Map(mixed.map((operation) => [operation.didSuffix, operation.canonicalRequest.toString()]));
    for (const operation of read) expect(operation.canonicalRequest.toString()).toBe(original.get(operation.didSuffix));
  });

  it('is deterministic: the same operations give the same files and URIs', () => {
    expect(buildBatch(mixed, { contentUri }).anchorString).toBe(buildBatch(mixed, { contentUri }).anchorString);
  });

  it('skips files without content', () => {
    const deactivates = buildBatch([accept(d.deactivate())], { contentUri });
    expect(deactivates.files.map((file) => file.kind)).toEqual(['coreProof', 'coreIndex']);
    expect(readBack(deactivates).map((operation) => operation.didSuffix)).toEqual([d.didSuffix]);
    const creates = buildBatch([accept(a.created.request), accept(b.created.request)], { contentUri });
    expect(creates.files.map((file) => file.kind)).toEqual(['chunk', 'provisionalIndex', 'coreIndex']);
    expect(readBack(creates)).toHaveLength(2);
    const updates = buildBatch([accept(a.update())], { contentUri });
    expect(updates.files.map((file) => file.kind)).toEqual([
      'chunk',
      'provisionalProof',
      'provisionalIndex',
      'coreIndex',
    ]);
    expect(readBack(updates)[0]?.type).toBe('update');
  });

  it('refuses batches it must not write', () => {
    expectBadRequest(() => buildBatch([], { contentUri }), 'a batch needs at least one operation');
    expectBadRequest(
      () => buildBatch([mixed[0]!, accept(a.update())], { contentUri }),
      `batch has more than one operation for DID suffix ${a.didSuffix}`,
    );
    const small: ProtocolParameters = { ...DID_NODE_PROTOCOL, maxOperationCount: 2 };
    expectBadRequest(
      () => buildBatch(mixed, { contentUri, protocol: small }),
      'a batch holds at most 2 operations, got 4',
    );
    const tinyChunks: ProtocolParameters = { ...DID_NODE_PROTOCOL, maxChunkFileSize: 100 };
    expectBadRequest(() => buildBatch(mixed, { contentUri, protocol: tinyChunks }), 'chunk file is too large:');
    expectBadRequest(
      () => buildBatch(mixed, { contentUri: () => `hl:${'u'.repeat(600)}` }),
      'URI of the chunk file is too long: 603 characters exceeds 500',
    );
  });
});

describe('batch members rebuilt from canonical requests', () => {
  const rebuilt = (operations: readonly ParsedOperation[]) =>
    operations.map((operation) =>
      batchMemberOf(
        JSON.parse(operation.canonicalRequest.toString('utf8')) as Record<string, unknown>,
        operation.didSuffix,
      ),
    );
  const bytesOf = (batch: BuiltBatch) =>
    batch.files.map((file) => [file.kind, file.uri, file.content.toString('base64')]);

  it('give the very files the parsed operations give, for all four types and every key type', () => {
    const more = [requestFixture('P-256'), requestFixture('secp256k1'), requestFixture('Ed25519')];
    const operations = [
      ...mixed,
      accept(more[0]!.created.request),
      accept(more[1]!.recover()),
      accept(more[2]!.update()),
    ];
    expect(bytesOf(buildBatch(rebuilt(operations), { contentUri }))).toEqual(
      bytesOf(buildBatch(operations, { contentUri })),
    );
    // A create's suffix is the caller's: the member carries the one given.
    expect(rebuilt(mixed).map((member) => member.didSuffix)).toEqual(mixed.map((operation) => operation.didSuffix));
  });

  it('refuse requests that cannot be a batch member', () => {
    const update = mixed[1]!;
    const json = () => JSON.parse(update.canonicalRequest.toString('utf8')) as Record<string, unknown>;
    expectBadRequest(() => batchMemberOf(json(), 'EiAnotherSuffix'), 'names DID suffix');
    expectBadRequest(() => batchMemberOf({ ...json(), type: 'delete' }, update.didSuffix), 'cannot join a batch');
    expectBadRequest(
      () => batchMemberOf({ ...json(), signedData: undefined }, update.didSuffix),
      'lacks signedData or revealValue',
    );
  });
});

describe('batch files: every check fails when violated', () => {
  const batch = buildBatch(mixed, { contentUri });
  const jsonOf = (kind: BatchFileKind) =>
    structuredClone(batch.files.find((file) => file.kind === kind)?.json) as Record<string, any>;
  const parsedFiles = (): BatchFiles => ({
    anchorString: batch.anchorString,
    coreIndex: parseCoreIndexFile(gz(jsonOf('coreIndex'))),
    coreProof: parseCoreProofFile(gz(jsonOf('coreProof'))),
    provisionalIndex: parseProvisionalIndexFile(gz(jsonOf('provisionalIndex'))),
    provisionalProof: parseProvisionalProofFile(gz(jsonOf('provisionalProof'))),
    chunk: parseChunkFile(gz(jsonOf('chunk'))),
  });

  it('anchor string: shape, count and URI', () => {
    expect(
      parseAnchorString(formatAnchorString({ operationCount: 12, coreIndexFileUri: 'hl:uEiA' }), DID_NODE_PROTOCOL),
    ).toEqual({ operationCount: 12, coreIndexFileUri: 'hl:uEiA' });
    expectBadRequest(
      () => parseAnchorString('hl:uEiA', DID_NODE_PROTOCOL),
      "anchor string 'hl:uEiA' must be <operation count>.<core index file URI>",
    );
    expectBadRequest(
      () => parseAnchorString('0.hl:uEiA', DID_NODE_PROTOCOL),
      "operation count '0' must be a positive integer without leading zeros",
    );
    expectBadRequest(
      () => parseAnchorString('01.hl:uEiA', DID_NODE_PROTOCOL),
      "operation count '01' must be a positive integer",
    );
    expectBadRequest(
      () => parseAnchorString('-1.hl:uEiA', DID_NODE_PROTOCOL),
      "operation count '-1' must be a positive integer",
    );
    expectBadRequest(
      () => parseAnchorString('10001.hl:uEiA', DID_NODE_PROTOCOL),
      'anchor string declares 10001 operations; the maximum per batch is 10000',
    );
    expectBadRequest(
      () => parseAnchorString('1.', DID_NODE_PROTOCOL),
      'core index file URI must be a non-empty string',
    );
    expectBadRequest(
      () => parseAnchorString(`1.${'x'.repeat(501)}`, DID_NODE_PROTOCOL),
      'core index file URI is too long: 501 characters exceeds 500',
    );
  });

  it('sizes, compression and decompression limits', () => {
    const tiny: ProtocolParameters = { ...DID_NODE_PROTOCOL, maxCoreIndexFileSize: 40 };
    expectBadRequest(
      () => parseCoreIndexFile(gz({ padding: 'x'.repeat(200) + Math.random() }), tiny),
      'core index file is too large:',
    );
    // A small file that expands beyond 3x the limit (a decompression bomb) is refused while inflating.
    const bomb = gzipSync(Buffer.from(JSON.stringify({ padding: ' '.repeat(500) })));
    expect(bomb.length).toBeLessThanOrEqual(100);
    expectBadRequest(
      () => parseCoreIndexFile(bomb, { ...DID_NODE_PROTOCOL, maxCoreIndexFileSize: 100 }),
      'core index file decompresses to more than 300 bytes (3x its size limit)',
    );
    expectBadRequest(() => parseCoreIndexFile(Buffer.from('not gzip')), 'core index file is not valid gzip');
    expectBadRequest(() => parseCoreIndexFile(gzipSync(Buffer.from('{'))), 'core index file is not valid UTF-8 JSON');
    expectBadRequest(() => parseChunkFile(gz([1])), 'chunk file must be a JSON object');
  });

  it('core index file', () => {
    const core = jsonOf('coreIndex');
    expectBadRequest(
      () => parseCoreIndexFile(gz({ ...core, operations: [] })),
      'core index file operations must be a JSON object',
    );
    expectBadRequest(
      () => parseCoreIndexFile(gz({ ...core, operations: { ...core.operations, create: {} } })),
      'core index file operations.create must be an array',
    );
    expectBadRequest(
      () => parseCoreIndexFile(gz({ ...core, operations: { ...core.operations, create: [{}] } })),
      'core index file create 0 suffixData must be a JSON object',
    );
    expectBadRequest(
      () => parseCoreIndexFile(gz({ ...core, operations: { ...core.operations, recover: [{ didSuffix: 1 }] } })),
      'core index file operations.recover 0 needs string didSuffix and revealValue',
    );
    const { coreProofFileUri: _proof, ...withoutProof } = core;
    expectBadRequest(
      () => parseCoreIndexFile(gz(withoutProof)),
      'core index file has recover or deactivate operations but no coreProofFileUri',
    );
    expectBadRequest(
      () => parseCoreIndexFile(gz({ ...core, operations: { create: core.operations.create } })),
      'core index file references a core proof file but has no recover or deactivate operations',
    );
    const { provisionalIndexFileUri: _index, ...withoutIndex } = core;
    expectBadRequest(
      () => parseCoreIndexFile(gz(withoutIndex)),
      'core index file has create or recover operations but no provisionalIndexFileUri',
    );
    expectBadRequest(
      () => parseCoreIndexFile(gz({ ...core, coreProofFileUri: 'u'.repeat(501) })),
      'core index file coreProofFileUri is too long',
    );
    // Unknown members are ignored, as Orb ignores them.
    expect(parseCoreIndexFile(gz({ ...core, writerLockId: 'lock' })).operations?.create).toHaveLength(1);
  });

  it('provisional index, chunk and proof files', () => {
    const index = jsonOf('provisionalIndex');
    expectBadRequest(
      () => parseProvisionalIndexFile(gz({ ...index, chunks: [] })),
      'provisional index file must reference exactly one chunk file, got 0',
    );
    expectBadRequest(
      () => parseProvisionalIndexFile(gz({ ...index, chunks: [index.chunks[0], index.chunks[0]] })),
      'exactly one chunk file, got 2',
    );
    expectBadRequest(
      () => parseProvisionalIndexFile(gz({ ...index, chunks: [{}] })),
      'chunk file URI must be a non-empty string',
    );
    const { provisionalProofFileUri: _proof, ...withoutProof } = index;
    expectBadRequest(
      () => parseProvisionalIndexFile(gz(withoutProof)),
      'provisional index file has update operations but no provisionalProofFileUri',
    );
    expectBadRequest(
      () => parseProvisionalIndexFile(gz({ ...index, operations: {} })),
      'provisional index file references a provisional proof file but has no update operations',
    );
    expectBadRequest(() => parseChunkFile(gz({ deltas: {} })), 'chunk file deltas must be an array');
    expectBadRequest(() => parseChunkFile(gz({ deltas: ['x'] })), 'chunk file delta 0 must be a JSON object');
    expectBadRequest(() => parseCoreProofFile(gz({})), 'core proof file operations must be a JSON object');
    expectBadRequest(
      () => parseCoreProofFile(gz({ operations: { recover: [{ signedData: 'x' }] } })),
      'core proof file operations.recover 0 must be a compact JWS string',
    );
    expectBadRequest(
      () => parseProvisionalProofFile(gz({ operations: { update: [7] } })),
      'provisional proof file operations.update 0 must be a compact JWS string',
    );
  });

  it('cross-file checks when assembling', () => {
    expect(assembleBatch(parsedFiles())).toHaveLength(4);
    expectBadRequest(
      () => assembleBatch({ ...parsedFiles(), anchorString: `5.${batch.coreIndexFileUri}` }),
      'anchor string declares 5 operations but the batch files hold 4',
    );
    expectBadRequest(
      () => assembleBatch({ ...parsedFiles(), coreProof: undefined }),
      `core proof file ${jsonOf('coreIndex').coreProofFileUri} is referenced but missing`,
    );
    expectBadRequest(() => assembleBatch({ ...parsedFiles(), chunk: undefined }), 'chunk file');
    const creates = buildBatch([mixed[0]!], { contentUri });
    const onlyCreate = {
      anchorString: creates.anchorString,
      coreIndex: parseCoreIndexFile(creates.files.at(-1)!.content),
    };
    expectBadRequest(
      () =>
        assembleBatch({
          ...onlyCreate,
          provisionalIndex: parsedFiles().provisionalIndex,
          coreProof: parsedFiles().coreProof,
        }),
      'core proof file was given but nothing references it',
    );
    const files = parsedFiles();
    files.coreProof!.operations.recover!.push('a.b.c');
    expectBadRequest(() => assembleBatch(files), 'core proof file holds 2 recover proofs for 1 recover operations');
    const noDeactivate = parsedFiles();
    noDeactivate.coreProof!.operations.deactivate = [];
    expectBadRequest(
      () => assembleBatch(noDeactivate),
      'core proof file holds 0 deactivate proofs for 1 deactivate operations',
    );
    const noUpdate = parsedFiles();
    noUpdate.provisionalProof!.operations.update = [];
    expectBadRequest(
      () => assembleBatch(noUpdate),
      'provisional proof file holds 0 update proofs for 1 update operations',
    );
    const extraDelta = parsedFiles();
    extraDelta.chunk!.deltas.push({});
    expectBadRequest(() => assembleBatch(extraDelta), 'chunk file holds 4 deltas for 3 creates, recovers and updates');
  });

  it('at most one operation per suffix across core and provisional index, and every operation must parse', () => {
    const duplicate = parsedFiles();
    // An update's signed data does not name its DID, so re-pointing it parses; the duplicate check catches it.
    duplicate.provisionalIndex!.operations!.update![0]!.didSuffix = c.didSuffix;
    expectBadRequest(() => assembleBatch(duplicate), `batch has more than one operation for DID suffix ${c.didSuffix}`);
    const badReveal = parsedFiles();
    badReveal.coreIndex.operations!.recover![0]!.revealValue = revealValueOf(c.keys.update.publicJwk());
    expectBadRequest(
      () => assembleBatch(badReveal),
      'batch operation 1 (recover) is invalid: revealValue does not match the hash of signedData.recoveryKey',
    );
  });
});

describe('selectBatch', () => {
  const item = (suffix: string, n: number) => ({ suffix, n });
  const queue = [item('a', 1), item('b', 2), item('a', 3), item('c', 4), item('b', 5), item('d', 6), item('e', 7)];

  it('takes at most N operations, one per suffix, in arrival order; the rest roll over in order', () => {
    const { batch, rollover } = selectBatch(queue, { maxOperations: 3, suffixOf: (entry) => entry.suffix });
    expect(batch.map((entry) => entry.n)).toEqual([1, 2, 4]);
    expect(rollover.map((entry) => entry.n)).toEqual([3, 5, 6, 7]);
    const next = selectBatch(rollover, { maxOperations: 3, suffixOf: (entry) => entry.suffix });
    expect(next.batch.map((entry) => entry.n)).toEqual([3, 5, 6]);
    expect(next.rollover.map((entry) => entry.n)).toEqual([7]);
  });

  it('takes everything when it fits', () => {
    expect(
      selectBatch([item('a', 1), item('b', 2)], { maxOperations: 10, suffixOf: (entry) => entry.suffix }).rollover,
    ).toEqual([]);
  });
});
