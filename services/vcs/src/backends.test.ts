import { createServer as createKms, type KmsServer } from '@anchor/kms';
import { startTestNode, waitPublished, type TestNode } from '@anchor/node/testing';
import { freePort, makeTempDir, type TempDir } from '@anchor/testing/process';
import { createServer as createLog, type VctLogServer } from '@anchor/vct-log';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { credentialV1, issue, issuerProfile, startTestVcs, type TestVcs } from './vcs.test-helpers.js';

/** The vcs with the real services it works with, in this process: the kms, a did:node node, the transparency log. */
describe('the vcs with a kms, a node and a log', () => {
  let kms: KmsServer;
  let node: TestNode;
  let log: VctLogServer;
  let logDir: TempDir;
  let kmsDir: TempDir;
  const started: TestVcs[] = [];

  beforeAll(async () => {
    kmsDir = await makeTempDir('vcs-kms-');
    kms = createKms({ dataDir: kmsDir.path, storage: { type: 'mem' }, devMode: true, bbsWorkers: 0 });
    await kms.start();
    node = await startTestNode();
    logDir = await makeTempDir('vcs-log-');
    log = createLog({ dataDir: logDir.path, storage: { type: 'mem' }, canonicalizeWorkers: 0, integrationIntervalMs: 50 });
    await log.start();
  });

  afterAll(async () => {
    for (const vcs of started) await vcs.stop();
    await log?.stop();
    await node?.stop();
    await kms?.stop();
    await logDir?.remove();
    await kmsDir?.remove();
  });

  const start = async (options: Parameters<typeof startTestVcs>[0]): Promise<TestVcs> => {
    const vcs = await startTestVcs(options);
    started.push(vcs);
    return vcs;
  };

  it('creates keys in the kms and signs every proof there; the keystore is remembered across restarts', async () => {
    const first = await startTestVcs({ kmsUrl: kms.url, storage: { type: 'lmdb' }, keyStorage: { type: 'lmdb' } });
    const health = await first.call('GET', '/healthcheck');
    expect(health.body.kmsStatus).toBe('success');
    for (const [name, signatureType] of [
      ['kms-ed', 'Ed25519Signature2020'],
      ['kms-p256', 'ecdsa-rdfc-2019'],
    ] as const) {
      await issuerProfile(first, name, { signatureType });
      const signed = await issue(first, name, credentialV1());
      const verified = await first.call('POST', '/verifier/credentials', { verifiableCredential: signed, options: { checks: ['proof', 'status'] } });
      expect(verified.status).toBe(200);
    }
    await first.server.stop();
    const second = await start({ kmsUrl: kms.url, dataDir: first.dir.path, storage: { type: 'lmdb' }, keyStorage: { type: 'lmdb' } });
    const signed = await issue(second, 'kms-ed', credentialV1());
    expect((await second.call('POST', '/verifier/credentials', { verifiableCredential: signed })).status).toBe(200);
    await first.dir.remove();
  });

  it('waits at start-up for a kms that comes up later, and says so when it never does', async () => {
    const port = await freePort();
    const dir = await makeTempDir('vcs-late-kms-');
    const late = createKms({ port, dataDir: dir.path, storage: { type: 'mem' }, devMode: true, bbsWorkers: 0 });
    const starting = start({ kmsUrl: `http://127.0.0.1:${port}`, retry: { maxRetries: 40, initialBackoffMs: 50, factor: 1 } });
    await new Promise((resolve) => setTimeout(resolve, 300));
    await late.start();
    try {
      const vcs = await starting;
      expect((await vcs.call('GET', '/healthcheck')).body.kmsStatus).toBe('success');
    } finally {
      await late.stop();
      await dir.remove();
    }
    const nowhere = `http://127.0.0.1:${await freePort()}`;
    await expect(startTestVcs({ kmsUrl: nowhere, retry: { maxRetries: 2, initialBackoffMs: 10, factor: 1 } })).rejects.toThrow(
      `kms ${nowhere} cannot be reached`,
    );
  });

  it('creates a did:node issuer on the node (keys in the kms), resolves it there and verifies its credentials', async () => {
    const vcs = await start({ kmsUrl: kms.url, nodeUrl: node.url });
    const profile = await issuerProfile(vcs, 'on-node');
    expect(profile.did).toMatch(/^did:node:uAAA:/);
    expect(profile.creator).toBe(`${profile.did}#key-1`);
    const holder = await vcs.call('POST', '/holder/profile', { name: 'holder-on-node', signatureType: 'JsonWebSignature2020' });
    expect(holder.body.did).toMatch(/^did:node:uAAA:/);
    const signed = await issue(vcs, 'on-node', credentialV1());
    const verified = await vcs.call('POST', '/verifier/credentials', { verifiableCredential: signed, options: { checks: ['proof', 'status'] } });
    expect(verified.status).toBe(200);
    expect((await vcs.call('GET', '/healthcheck')).body).toMatchObject({ nodeStatus: 'success', kmsStatus: 'success' });
    // Once anchored, the DID still resolves under the form the profile holds, and its credentials still verify.
    await waitPublished(node.url, profile.did);
    const later = await start({ mode: 'verifier', nodeUrl: node.url });
    expect((await later.call('POST', '/verifier/credentials', { verifiableCredential: signed })).status).toBe(200);
  });

  it('adds issued credentials to the log, returns the receipt and proves inclusion in the logged check', async () => {
    const vctUrl = `${log.url}/main`;
    const vcs = await start({ vctUrl });
    await issuerProfile(vcs, 'logged');
    const reply = await vcs.call('POST', '/logged/credentials/issueCredential', { credential: credentialV1() });
    expect(reply.status).toBe(201);
    const receipt = JSON.parse(reply.headers.get('vct-receipt') as string);
    expect(receipt).toMatchObject({ id: log.logId, timestamp: expect.any(Number), signature: expect.any(String) });
    await log.integrateNow();
    const signed = reply.body;
    const verified = await vcs.call('POST', '/verifier/credentials', { verifiableCredential: signed, options: { checks: ['proof', 'logged'] } });
    expect(verified).toMatchObject({ status: 200, body: { checks: ['proof', 'logged'] } });
    // Another verifier, given the receipt's timestamp.
    const other = await start({ mode: 'verifier', vctUrl });
    const elsewhere = await other.call('POST', '/verifier/credentials', { verifiableCredential: signed, options: { checks: ['logged'], vctTimestamp: receipt.timestamp } });
    expect(elsewhere.status).toBe(200);
    const wrongTime = await other.call('POST', '/verifier/credentials', { verifiableCredential: signed, options: { checks: ['logged'], vctTimestamp: receipt.timestamp + 1 } });
    expect(wrongTime.status).toBe(400);
    expect(wrongTime.body.checks[0].error).toMatch(/not in the log/);
    expect((await vcs.call('GET', '/healthcheck')).body.vctStatus).toBe('success');
  });
});
