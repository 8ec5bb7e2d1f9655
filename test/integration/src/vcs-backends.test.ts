/**
 * The vcs with each service it works with, one at a time, as processes: the kms (keys and every signature
 * there, its keystore remembered across restarts, waited for at start-up), a did:node node (issuer DIDs created
 * and resolved there, still verifying once anchored) and the transparency log (the receipt, and the `logged`
 * check proving inclusion).
 */
import { KeyPair } from '@anchor/common/crypto';
import { didKeyFromKeyPair, resolveDidKey } from '@anchor/common/did';
import { signDocument } from '@anchor/common/jsonld';
import { serviceBin } from '@anchor/dev-env';
import { freePort, makeTempDir, startProcess, stopAllProcesses, type TempDir } from '@anchor/testing/process';
import { call as http } from '@anchor/vct-log/testing';
import { waitPublished } from '@anchor/node/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startNode, startVctLog, type RunningNode } from './federation.test-helpers.js';
import { startKms, type RunningKms } from './kms.test-helpers.js';
import { credential, startVcs } from './vcs.test-helpers.js';

describe('the vcs with a kms, a node and a log', () => {
  const dirs: TempDir[] = [];
  let kms: RunningKms;
  let node: RunningNode;
  let logUrl: string;
  const dir = async (prefix: string): Promise<TempDir> => {
    const made = await makeTempDir(prefix);
    dirs.push(made);
    return made;
  };

  beforeAll(async () => {
    const [kmsDir, nodeDir, logDir] = await Promise.all([dir('vcs-be-kms-'), dir('vcs-be-node-'), dir('vcs-be-log-')]);
    [kms, node, logUrl] = await Promise.all([
      startKms(kmsDir),
      startNode('node', nodeDir, ['--batch-writer-timeout', '200ms']),
      startVctLog(logDir, ['--integration-interval', '50ms']).then((log) => log.logUrl),
    ]);
  });

  afterAll(async () => {
    node?.admin.close();
    kms?.client.close();
    await stopAllProcesses();
    await Promise.all(dirs.map((made) => made.remove()));
  });

  it('creates keys in the kms and signs there; the keystore is remembered across a restart', async () => {
    const data = await dir('vcs-be-kms-vcs-');
    let vcs = await startVcs(data, ['--kms-url', kms.url]);
    expect((await http<Record<string, string>>(`${vcs.url}/healthcheck`)).body.kmsStatus).toBe('success');
    for (const [name, signatureType] of [
      ['kms-ed', 'Ed25519Signature2020'],
      ['kms-p256', 'ecdsa-rdfc-2019'],
    ] as const) {
      expect((await vcs.post('/profile', { name, uri: 'https://x.example', signatureType })).status).toBe(201);
      const issued = await vcs.post(`/${name}/credentials/issueCredential`, { credential: credential() });
      expect(issued.status).toBe(201);
      const verified = await vcs.post('/verifier/credentials', {
        verifiableCredential: issued.body,
        options: { checks: ['proof', 'status'] },
      });
      expect(verified.status).toBe(200);
    }
    expect((await vcs.process.stop()).code).toBe(0);
    vcs = await startVcs(data, ['--kms-url', kms.url], vcs.port);
    const issued = await vcs.post('/kms-ed/credentials/issueCredential', { credential: credential() });
    expect(issued.status).toBe(201);
    expect((await vcs.post('/verifier/credentials', { verifiableCredential: issued.body })).status).toBe(200);
  });

  it('waits at start-up for a kms that is not up yet (--max-retries, --initial-backoff-millisec)', async () => {
    const [kmsDir, data] = await Promise.all([dir('vcs-be-late-kms-'), dir('vcs-be-late-vcs-')]);
    const port = await freePort();
    const starting = startVcs(data, [
      '--kms-url',
      `http://127.0.0.1:${port}`,
      '--max-retries',
      '100',
      '--initial-backoff-millisec',
      '100',
      '--backoff-factor',
      '1',
    ]);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    await startProcess(serviceBin('@anchor/kms'), {
      name: 'late-kms',
      args: ['--host-url', `127.0.0.1:${port}`, '--data-dir', kmsDir.path, '--dev-mode', '--log-level', 'warning'],
      readyUrl: `http://127.0.0.1:${port}/healthcheck`,
      readyStatus: (status) => status === 200,
    });
    const vcs = await starting;
    expect((await http<Record<string, string>>(`${vcs.url}/healthcheck`)).body.kmsStatus).toBe('success');
  });

  it('creates did:node issuers on the node with kms keys, resolves them there, and they still verify once anchored', async () => {
    const vcs = await startVcs(await dir('vcs-be-node-vcs-'), ['--kms-url', kms.url, '--node-url', node.url]);
    const profile = await vcs.post<{ did: string; creator: string }>('/profile', {
      name: 'on-node',
      uri: 'https://x.example',
      signatureType: 'Ed25519Signature2020',
    });
    expect(profile.status).toBe(201);
    expect(profile.body.did).toMatch(/^did:node:uAAA:/);
    expect(profile.body.creator).toBe(`${profile.body.did}#key-1`);
    const holder = await vcs.post<{ did: string }>('/holder/profile', {
      name: 'holder-on-node',
      signatureType: 'JsonWebSignature2020',
    });
    expect(holder.body.did).toMatch(/^did:node:uAAA:/);
    const issued = await vcs.post('/on-node/credentials/issueCredential', { credential: credential() });
    expect(issued.status).toBe(201);
    expect(
      (
        await vcs.post('/verifier/credentials', {
          verifiableCredential: issued.body,
          options: { checks: ['proof', 'status'] },
        })
      ).status,
    ).toBe(200);
    expect((await http<Record<string, string>>(`${vcs.url}/healthcheck`)).body).toMatchObject({
      nodeStatus: 'success',
      kmsStatus: 'success',
    });
    await waitPublished(node.url, profile.body.did, 1, 30_000);
    const verifier = await startVcs(await dir('vcs-be-node-verifier-'), ['--mode', 'verifier', '--node-url', node.url]);
    expect((await verifier.post('/verifier/credentials', { verifiableCredential: issued.body })).status).toBe(200);

    // The issuer is bound to the signer: a did:node issuer signed for by someone else's key is refused, and a
    // profile cannot issue as another profile's did:node.
    const mallory = KeyPair.generate('Ed25519');
    const malloryDid = didKeyFromKeyPair(mallory);
    const malloryMethod = resolveDidKey(malloryDid).verificationMethod?.[0]?.id as string;
    const forged = await signDocument(
      { ...credential(), issuer: profile.body.did },
      { key: mallory, verificationMethod: malloryMethod },
    );
    const refused = await verifier.post<{ checks: Array<{ check: string; error: string }> }>('/verifier/credentials', {
      verifiableCredential: forged,
    });
    expect(refused.status).toBe(400);
    expect(refused.body.checks[0]).toMatchObject({
      check: 'proof',
      error: `proof 0 (issuer): ${malloryMethod} is not a key of the issuer ${profile.body.did}: its DID document does not list it under assertionMethod`,
    });
    const asHolder = await vcs.post<{ message: string }>('/on-node/credentials/issueCredential', {
      credential: { ...credential(), issuer: holder.body.did },
    });
    expect(asHolder.status).toBe(400);
    expect(asHolder.body.message).toMatch(/is not the DID of profile on-node/);
  });

  it('adds issued credentials to the log, answers the receipt, and proves inclusion in the logged check', async () => {
    const vcs = await startVcs(await dir('vcs-be-log-vcs-'), ['--vct-url', logUrl]);
    expect(
      (await vcs.post('/profile', { name: 'logged', uri: 'https://x.example', signatureType: 'Ed25519Signature2020' }))
        .status,
    ).toBe(201);
    const issued = await vcs.post('/logged/credentials/issueCredential', { credential: credential() });
    expect(issued.status).toBe(201);
    const receipt = JSON.parse(issued.headers.get('vct-receipt') as string) as {
      id: string;
      timestamp: number;
      signature: string;
    };
    expect(receipt).toMatchObject({
      id: expect.any(String),
      timestamp: expect.any(Number),
      signature: expect.any(String),
    });
    const logged = async (url: string, options: Record<string, unknown>) =>
      http<{ checks: unknown[] }>(`${url}/verifier/credentials`, {
        json: { verifiableCredential: issued.body, options: { checks: ['logged'], ...options } },
      });
    // Asked at once, before the log has merged it: the check waits for the merge (--vct-merge-delay), never fails it.
    expect(await logged(vcs.url, {})).toMatchObject({ status: 200, body: { checks: ['logged'] } });
    const verifier = await startVcs(await dir('vcs-be-log-verifier-'), [
      '--mode',
      'verifier',
      '--vct-url',
      logUrl,
      '--vct-merge-delay',
      '1s',
    ]);
    expect((await logged(verifier.url, { vctTimestamp: receipt.timestamp })).status).toBe(200);
    const wrong = await logged(verifier.url, { vctTimestamp: receipt.timestamp + 1 });
    expect(wrong.status).toBe(400);
    expect(JSON.stringify(wrong.body.checks)).toMatch(/not in the log.*past the merge delay of 1 s/);
    expect((await http<Record<string, string>>(`${vcs.url}/healthcheck`)).body.vctStatus).toBe('success');
  });
});
