import { generateKeyPairSync } from 'node:crypto';
import { MerkleTree, leafHash } from '@anchor/common/merkle';
import {
  TLOG_SIZE_MEDIA_TYPE,
  ed25519NoteSign,
  ed25519VerifierKey,
  formatAddCheckpoint,
  formatCheckpoint,
  noteKeyHash,
  parseCosignatureLines,
  parseCosignatureVerifierKey,
  signNote,
} from '@anchor/common/tlog';
import { makeTempDir, type TempDir } from '@anchor/testing/process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type VctLogServer } from '../src/server.js';
import { call } from '../src/testing/index.js';

const ORIGIN = 'log.example/main';
const logKey = generateKeyPairSync('ed25519');
const logRaw = logKey.publicKey.export({ format: 'der', type: 'spki' }).subarray(12);
const tree = MerkleTree.fromLeafHashes(Array.from({ length: 40 }, (_, i) => leafHash(Buffer.from(`entry ${i}`))));

const checkpoint = (size: number, root = tree.root(size), origin = ORIGIN, key = logKey.privateKey): Promise<string> =>
  signNote(formatCheckpoint({ origin, size, rootHash: root }), [
    { name: origin, keyHash: noteKeyHash(origin, logRaw), sign: ed25519NoteSign(key) },
  ]);

/**
 * The vct-log's witness mode over HTTP (C2SP tlog-witness): a log's checkpoints, signed here with a key the
 * witness is configured with, are cosigned when consistent and refused with the spec's statuses otherwise; the
 * checkpoint held survives a restart (the service's LMDB store) and no refused request changes it.
 */
describe('witness mode: POST /add-checkpoint', () => {
  let dir: TempDir;
  let witness: VctLogServer;
  const start = async (): Promise<VctLogServer> => {
    const server = createServer({
      dataDir: dir.path,
      storage: { type: 'lmdb' },
      canonicalizeWorkers: 0,
      witnessLogs: [ed25519VerifierKey(ORIGIN, logRaw)],
      witnessName: 'witness.example/w1',
    });
    await server.start();
    return server;
  };
  const add = (body: string) =>
    call(`${witness.url}/add-checkpoint`, { body, headers: { 'content-type': 'text/plain' } });

  beforeAll(async () => {
    dir = await makeTempDir('vct-witness-');
    witness = await start();
  }, 60_000);

  afterAll(async () => {
    await witness?.stop();
    await dir?.remove();
  });

  it('cosigns a first checkpoint and a consistent next one; 409 names the size held', async () => {
    const cosigner = parseCosignatureVerifierKey(witness.witnessVerifierKey ?? '');
    expect(cosigner.name).toBe('witness.example/w1');
    const ten = await checkpoint(10);
    const first = await add(formatAddCheckpoint({ oldSize: 0, proof: [], note: ten }));
    expect(first.status).toBe(200);
    const text = ten.slice(0, ten.indexOf('\n\n') + 1);
    const [cosignature] = parseCosignatureLines(text, first.text, [cosigner]);
    expect(cosignature?.name).toBe('witness.example/w1');

    const twenty = await checkpoint(20);
    const stale = await add(formatAddCheckpoint({ oldSize: 0, proof: [], note: twenty }));
    expect([stale.status, stale.headers.get('content-type'), stale.text]).toEqual([409, TLOG_SIZE_MEDIA_TYPE, '10\n']);
    const next = await add(formatAddCheckpoint({ oldSize: 10, proof: tree.consistencyProof(10, 20), note: twenty }));
    expect(next.status).toBe(200);
    expect(parseCosignatureLines(twenty.slice(0, twenty.indexOf('\n\n') + 1), next.text, [cosigner])).toHaveLength(1);
  });

  it('refuses with the spec statuses and keeps what it holds', async () => {
    const thirty = await checkpoint(30);
    const other = generateKeyPairSync('ed25519').privateKey;
    const refusals = [
      [formatAddCheckpoint({ oldSize: 0, proof: [], note: await checkpoint(5, tree.root(5), 'other.example/x') }), 404],
      [
        formatAddCheckpoint({
          oldSize: 20,
          proof: tree.consistencyProof(20, 30),
          note: await checkpoint(30, tree.root(30), ORIGIN, other),
        }),
        403,
      ],
      [formatAddCheckpoint({ oldSize: 31, proof: [], note: thirty }), 400],
      ['old 20\nnot base64\n\n' + thirty, 400],
      ['garbage', 400],
      [formatAddCheckpoint({ oldSize: 20, proof: tree.consistencyProof(19, 30), note: thirty }), 422],
      // Another root at the size held: the split view a witness exists to catch.
      [formatAddCheckpoint({ oldSize: 20, proof: [], note: await checkpoint(20, tree.root(19)) }), 422],
    ] as const;
    for (const [body, status] of refusals) expect((await add(body)).status, body.slice(0, 40)).toBe(status);
    const held = await add(formatAddCheckpoint({ oldSize: 0, proof: [], note: thirty }));
    expect([held.status, held.text]).toEqual([409, '20\n']);
  });

  it('holds the checkpoint across a restart (the service store)', async () => {
    await witness.stop();
    witness = await start();
    const thirty = await checkpoint(30);
    const again = await add(formatAddCheckpoint({ oldSize: 0, proof: [], note: thirty }));
    expect([again.status, again.text]).toEqual([409, '20\n']);
    expect(
      (await add(formatAddCheckpoint({ oldSize: 20, proof: tree.consistencyProof(20, 30), note: thirty }))).status,
    ).toBe(200);
  }, 60_000);

  it('lists the route in /openapi.json', async () => {
    const openapi = (await call<{ paths: Record<string, unknown> }>(`${witness.url}/openapi.json`)).body;
    expect(Object.keys(openapi.paths)).toContain('/add-checkpoint');
  });
});

describe('a vct-log without --witness-logs', () => {
  it('knows no origin: 404', async () => {
    const dir = await makeTempDir('vct-witness-off-');
    const server = createServer({ dataDir: dir.path, storage: { type: 'mem' }, canonicalizeWorkers: 0 });
    await server.start();
    try {
      const reply = await call(`${server.url}/add-checkpoint`, {
        body: formatAddCheckpoint({ oldSize: 0, proof: [], note: await checkpoint(1) }),
      });
      expect(reply.status).toBe(404);
      expect(server.witnessVerifierKey).toBeUndefined();
    } finally {
      await server.stop();
      await dir.remove();
    }
  });
});
