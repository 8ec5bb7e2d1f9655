import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { KeyPair } from '@anchor/common/crypto';
import {
  type Cosigner,
  cosignatureVerifierKey,
  ed25519VerifierKey,
  openNote,
  parseCheckpoint,
  parseCosignatureVerifierKey,
  parseVerifierKey,
  verifyCosignatures,
} from '@anchor/common/tlog';
import { makeTempDir, type TempDir } from '@anchor/testing/process';
import { askTlogGo, ensureTlogGoClient } from '@anchor/testing/tlog-go';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type VctLogServer } from '../src/server.js';
import { anchorCredential, call } from '../src/testing/index.js';

const origin = (alias: string): string => `log.example/${alias}`;

/**
 * Three vct-logs in witness mode and logs that ask them (`--witnesses`): the log's checkpoint is served with
 * the witnesses' cosignatures, grows with consistency proofs from the size each witness acknowledged, and goes
 * on past a witness that does not answer. A log that shows two different checkpoints of one size (two
 * databases under one key and origin) to two witnesses is caught: the witness that saw the first refuses the
 * second (422, a split view), and the two checkpoints, each signed by the log and cosigned, are conflicting
 * cosigned heads; the second view lacks the 2-of-3 cosignatures a monitor asks for. Go (test/tlog-go) opens a
 * served cosigned checkpoint with the witnesses' keys.
 */
describe('a three-witness federation', () => {
  let dir: TempDir;
  const logKey = KeyPair.generate('Ed25519');
  const vkeyOf = (alias: string): string => ed25519VerifierKey(origin(alias), logKey.publicKeyBytes());
  const witnesses: VctLogServer[] = [];
  let cosigners: Cosigner[] = [];
  const started: VctLogServer[] = [];
  /** A witness that never answers (nothing listens there), with a key of its own. */
  const deadWitness = `${cosignatureVerifierKey('dead.example/witness', KeyPair.generate('Ed25519').publicKeyBytes())}@http://127.0.0.1:9`;

  const startLog = async (name: string, alias: string, witnessUrls: string[]): Promise<VctLogServer> => {
    const keyFile = join(dir.path, `${name}-key.pem`);
    await writeFile(keyFile, logKey.privateKeyPem(), { mode: 0o600 });
    const server = createServer({
      dataDir: join(dir.path, name),
      keyFile,
      logs: [{ alias, read: true, write: true, issuers: [] }],
      storage: { type: 'lmdb' },
      canonicalizeWorkers: 0,
      integrationIntervalMs: 60_000,
      tlogOrigin: 'log.example/{alias}',
      witnesses: witnessUrls,
      witnessTimeoutMs: 2_000,
    });
    await server.start();
    started.push(server);
    return server;
  };
  const witnessUrl = (i: number): string => `${witnesses[i]!.witnessVerifierKey}@${witnesses[i]!.url}`;
  const addEntries = async (server: VctLogServer, alias: string, prefix: string, count: number): Promise<void> => {
    for (let i = 0; i < count; i++) {
      const reply = await call(`${server.url}/${alias}/v1/add-vc`, { json: anchorCredential(`${prefix}-${i}`) });
      expect(reply.status, reply.text).toBe(200);
    }
    await server.integrateNow();
    await server.cosignNow();
  };
  const checkpointOf = async (server: VctLogServer, alias: string) => {
    const note = (await call(`${server.url}/${alias}/checkpoint`)).text;
    const opened = openNote(note, [parseVerifierKey(vkeyOf(alias))]);
    const cosigned = verifyCosignatures(opened.text, opened.unverified, cosigners);
    return { note, checkpoint: parseCheckpoint(opened.text), cosignedBy: cosigned.map((c) => c.name) };
  };

  beforeAll(async () => {
    await ensureTlogGoClient();
    dir = await makeTempDir('vct-federation-');
    for (const n of [1, 2, 3]) {
      const witness = createServer({
        dataDir: join(dir.path, `w${n}`),
        storage: { type: 'lmdb' },
        canonicalizeWorkers: 0,
        witnessLogs: [vkeyOf('main'), vkeyOf('split')],
        witnessName: `w${n}.example/witness`,
      });
      await witness.start();
      witnesses.push(witness);
    }
    cosigners = witnesses.map((w) => parseCosignatureVerifierKey(w.witnessVerifierKey ?? ''));
  }, 300_000);

  afterAll(async () => {
    for (const server of [...started, ...witnesses]) await server.stop().catch(() => undefined);
    await dir?.remove();
  });

  it('serves the checkpoint cosigned by every witness, grows it consistently, and goes on past a dead one', async () => {
    const all = ['w1.example/witness', 'w2.example/witness', 'w3.example/witness'];
    const log = await startLog('honest', 'main', [witnessUrl(0), deadWitness, witnessUrl(1), witnessUrl(2)]);
    await addEntries(log, 'main', 'honest', 3);
    const three = await checkpointOf(log, 'main');
    expect(three.checkpoint.size).toBe(3);
    expect(three.cosignedBy).toEqual(all);
    await addEntries(log, 'main', 'honest-more', 2);
    const five = await checkpointOf(log, 'main');
    expect(five).toMatchObject({ checkpoint: { size: 5 }, cosignedBy: all });
    // Go (golang.org/x/mod sumdb/note with transparency-dev/formats' cosignature/v1 verifiers) opens the
    // served note: the log's signature and the three cosignatures verify; the dead witness's key signed nothing.
    const go = await askTlogGo<{ openedBy: string[]; timestamps: number[] }>(await ensureTlogGoClient(), {
      cosigned: {
        note: five.note,
        logVerifierKey: vkeyOf('main'),
        witnessKeys: witnesses.map((w) => w.witnessVerifierKey),
      },
    });
    expect(go.openedBy.map((id) => id.split('+')[0])).toEqual([origin('main'), ...all]);
    expect(go.timestamps.slice(1).every((t) => t > 0)).toBe(true);

    // A log restarted forgets what each witness holds: a 409 tells it, and it proves from there.
    await log.stop();
    const again = await startLog('honest', 'main', [witnessUrl(0), witnessUrl(1), witnessUrl(2)]);
    await addEntries(again, 'main', 'honest-after', 1);
    expect(await checkpointOf(again, 'main')).toMatchObject({ checkpoint: { size: 6 }, cosignedBy: all });
    await again.stop();
  }, 120_000);

  it('catches a log that shows two checkpoints of one size to two witnesses', async () => {
    // View A is shown to witnesses 1 and 2, view B (other entries, same key and origin) to 2 and 3.
    const viewA = await startLog('view-a', 'split', [witnessUrl(0), witnessUrl(1)]);
    const viewB = await startLog('view-b', 'split', [witnessUrl(1), witnessUrl(2)]);
    await addEntries(viewA, 'split', 'view-a', 4);
    await addEntries(viewB, 'split', 'view-b', 4);
    const a = await checkpointOf(viewA, 'split');
    const b = await checkpointOf(viewB, 'split');
    // Witness 2 holds A's root at size 4: B's checkpoint of that size with another root is a split view (422).
    expect(a.cosignedBy).toEqual(['w1.example/witness', 'w2.example/witness']);
    expect(b.cosignedBy).toEqual(['w3.example/witness']);
    // And the two heads side by side: one log key, one size, two roots, each cosigned: a proven split view.
    expect([a.checkpoint.size, b.checkpoint.size]).toEqual([4, 4]);
    expect(a.checkpoint.rootHash.equals(b.checkpoint.rootHash)).toBe(false);
    // Witness 2 says so itself: asked directly for B's checkpoint from the size it holds.
    const direct = await call(`${witnesses[1]!.url}/add-checkpoint`, {
      body: `old 4\n\n${b.note.split('\n— ').slice(0, 2).join('\n— ')}\n`,
    });
    expect([direct.status, (direct.body as { message?: string }).message]).toEqual([
      422,
      "the checkpoint's root differs from the one held at size 4: a split view",
    ]);
  }, 120_000);
});
