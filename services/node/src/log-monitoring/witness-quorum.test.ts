import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { KeyPair } from '@anchor/common/crypto';
import {
  cosignCheckpoint,
  cosignatureKeyHash,
  cosignatureVerifierKey,
  ed25519NoteSign,
  ed25519VerifierKey,
  formatCheckpoint,
  noteKeyHash,
  parseCosignatureVerifierKey,
  signNote,
} from '@anchor/common/tlog';
import { makeTempDir, waitFor, type ServiceProcess, type TempDir } from '@anchor/testing/process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestNode, type TestNode } from '../testing/test-node.js';
import type { MonitoredLog } from './monitored-logs.js';
import { anchorCredential, startLog, startSplitViewLog, type SplitViewLog } from './monitoring.test-helpers.js';
import { witnessedHeadProblem } from './witnessed-head.js';

const ORIGIN = 'log.example/main';
const ROOT = Buffer.alloc(32, 9);
const names = ['w1.example/witness', 'w2.example/witness', 'w3.example/witness'];

describe('witnessedHeadProblem (k of n cosignatures on the log checkpoint)', () => {
  const log = KeyPair.generate('Ed25519');
  const witnesses = names.map(() => KeyPair.generate('Ed25519'));
  const cosigners = witnesses.map((w, i) =>
    parseCosignatureVerifierKey(cosignatureVerifierKey(names[i]!, w.publicKeyBytes())),
  );
  const text = formatCheckpoint({ origin: ORIGIN, size: 12, rootHash: ROOT });
  const sth = { tree_size: 12, sha256_root_hash: ROOT.toString('base64') };
  const note = async (by: number[], key = log): Promise<string> => {
    let signed = await signNote(text, [
      { name: ORIGIN, keyHash: noteKeyHash(ORIGIN, key.publicKeyBytes()), sign: ed25519NoteSign(key.privateKey!) },
    ]);
    for (const i of by) {
      const w = witnesses[i]!;
      signed += await cosignCheckpoint(
        text,
        {
          name: names[i]!,
          keyHash: cosignatureKeyHash(names[i]!, w.publicKeyBytes()),
          sign: ed25519NoteSign(w.privateKey!),
        },
        1_796_000_000 + i,
      );
    }
    return signed;
  };
  const policy = { cosigners, quorum: 2 };

  it('trusts a head 2 of the 3 known witnesses cosigned, refuses one that 1 did, saying so', async () => {
    expect(witnessedHeadProblem(await note([0, 2]), log.publicKeyBytes(), sth, policy)).toBeUndefined();
    expect(witnessedHeadProblem(await note([0, 1, 2]), log.publicKeyBytes(), sth, policy)).toBeUndefined();
    expect(witnessedHeadProblem(await note([1]), log.publicKeyBytes(), sth, policy)).toBe(
      'cosigned by 1 of the 3 known witnesses (w2.example/witness), 2 required',
    );
    expect(witnessedHeadProblem(await note([]), log.publicKeyBytes(), sth, policy)).toBe(
      'cosigned by 0 of the 3 known witnesses, 2 required',
    );
  });

  it('refuses a checkpoint of another head, of another key, or with a bad cosignature', async () => {
    const two = await note([0, 1]);
    expect(witnessedHeadProblem(two, log.publicKeyBytes(), { ...sth, tree_size: 13 }, policy)).toMatch(
      /checkpoint is of size 12, not this tree head of size 13/,
    );
    expect(
      witnessedHeadProblem(
        two,
        log.publicKeyBytes(),
        { ...sth, sha256_root_hash: Buffer.alloc(32).toString('base64') },
        policy,
      ),
    ).toMatch(/not this tree head/);
    expect(
      witnessedHeadProblem(await note([0, 1], KeyPair.generate('Ed25519')), log.publicKeyBytes(), sth, policy),
    ).toMatch(/no checkpoint signed by the log's key: the note has no signature by a known key/);
    // A cosignature line moved onto another checkpoint of the log: it does not verify there.
    const other = formatCheckpoint({ origin: ORIGIN, size: 13, rootHash: ROOT });
    const lines = two.slice(two.indexOf('\n— w1'));
    const moved =
      (await signNote(other, [
        { name: ORIGIN, keyHash: noteKeyHash(ORIGIN, log.publicKeyBytes()), sign: ed25519NoteSign(log.privateKey!) },
      ])) + lines.slice(1);
    expect(witnessedHeadProblem(moved, log.publicKeyBytes(), { ...sth, tree_size: 13 }, policy)).toMatch(
      /bad cosignature: invalid cosignature for key w1\.example\/witness/,
    );
    expect(witnessedHeadProblem('not a note', log.publicKeyBytes(), sth, policy)).toMatch(
      /^its checkpoint is no checkpoint/,
    );
  });
});

/**
 * A node whose log monitor requires 2 of 3 known witnesses, against real vct-log processes: two witnesses
 * (the third is known but never asked) and a log asking first one of them, then both. The head lacking the
 * cosignatures is refused with the reason and not trusted; the cosigned one is.
 */
describe('log monitoring with --vct-log-monitoring-witness-quorum 2 of 3', () => {
  let dir: TempDir;
  let view: SplitViewLog;
  let node: TestNode;
  let logUrl: string;
  const processes: ServiceProcess[] = [];
  const logKey = KeyPair.generate('Ed25519');
  const witnessKeys = names.map(() => KeyPair.generate('Ed25519'));
  const vkeys = witnessKeys.map((k, i) => cosignatureVerifierKey(names[i]!, k.publicKeyBytes()));
  const witnessUrls: string[] = [];
  let logKeyFile: string;

  const state = async (): Promise<MonitoredLog | undefined> => node.server.services.logMonitoring.logs.get(logUrl);
  const startAskingLog = async (name: string, asked: number[]) => {
    const log = await startLog(dir, name, {
      keyFile: logKeyFile,
      baseUrl: view.url,
      args: [
        '--tlog-origin',
        'log.example/{alias}',
        '--witnesses',
        asked.map((i) => `${vkeys[i]}@${witnessUrls[i]}`).join(','),
      ],
    });
    processes.push(log.process);
    view.target = log.url;
    return log;
  };

  beforeAll(async () => {
    dir = await makeTempDir('witness-quorum-');
    view = await startSplitViewLog();
    logUrl = `${view.url}/main`;
    logKeyFile = join(dir.path, 'log-key.pem');
    await writeFile(logKeyFile, logKey.privateKeyPem(), { mode: 0o600 });
    const logVkey = ed25519VerifierKey(ORIGIN, logKey.publicKeyBytes());
    for (const i of [0, 1]) {
      const keyFile = join(dir.path, `w${i + 1}-key.pem`);
      await writeFile(keyFile, witnessKeys[i]!.privateKeyPem(), { mode: 0o600 });
      const witness = await startLog(dir, `w${i + 1}`, {
        keyFile: join(dir.path, `w${i + 1}-log-key.pem`),
        baseUrl: `http://w${i + 1}.example`,
        args: ['--witness-logs', logVkey, '--witness-key', keyFile, '--witness-name', names[i]!],
      });
      processes.push(witness.process);
      witnessUrls.push(witness.url);
    }
    node = await startTestNode({
      args: [
        '--vct-log-monitoring-interval',
        '100ms',
        '--vct-proof-monitoring-interval',
        '1h',
        '--vct-log-monitoring-witnesses',
        vkeys.join(','),
        '--vct-log-monitoring-witness-quorum',
        '2',
      ],
    });
  }, 120_000);

  afterAll(async () => {
    await node?.stop();
    await view?.close();
    for (const process of processes) await process.stop();
    await dir?.remove();
  });

  it('refuses a head one witness cosigned, with the reason; trusts it once two have', async () => {
    const first = await startAskingLog('log-1', [0]);
    for (let i = 0; i < 3; i++) await node.server.services.vct.client.addCredential(logUrl, anchorCredential(`q${i}`));
    const set = await fetch(`${node.url}/log`, {
      method: 'POST',
      body: logUrl,
      headers: { 'content-type': 'text/plain' },
    });
    expect(set.status).toBe(200);
    const refused = await waitFor(
      async () => {
        const record = await state();
        return record?.lastError?.includes('cosigned by 1 of the 3') ? record : undefined;
      },
      { timeoutMs: 20_000, description: 'the head refused for want of cosignatures' },
    );
    expect(refused.lastError).toMatch(
      /^tree head of size 3 not trusted: cosigned by 1 of the 3 known witnesses \(w1\.example\/witness\), 2 required$/,
    );
    expect(refused.sth).toBeUndefined();
    expect(refused.failure).toBeUndefined();

    // The same log, now asking both running witnesses: its head is cosigned twice and trusted.
    await first.process.stop();
    await startAskingLog('log-1', [0, 1]);
    const trusted = await waitFor(
      async () => {
        const record = await state();
        return record?.sth?.tree_size === 3 ? record : undefined;
      },
      { timeoutMs: 20_000, description: 'the head trusted with 2 of 3 cosignatures' },
    );
    expect(trusted.failure).toBeUndefined();
  }, 90_000);
});
