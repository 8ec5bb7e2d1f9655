/**
 * The credential service with the other three: a kms (the issuer's keys), two nodes federated with a vct-log
 * (node 2 follows node 1 and witnesses its anchors), and two vcs processes: an issuer on node 1 and a verifier
 * resolving through node 2. A profile's DID is created on node 1 with its keys in the kms; a credential is
 * issued, logged, resolved on node 2 and verified there, revoked, and verified again (fails: Revoked); the log
 * holds it with a valid inclusion proof.
 */
import { VctLogClient } from '@anchor/common/clients';
import { makeTempDir, stopAllProcesses, waitFor, type TempDir } from '@anchor/testing/process';
import { metadataOf, resolveDid } from '@anchor/node/testing';
import { call as http } from '@anchor/vct-log/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startNode, startVctLog, type RunningNode } from './federation.test-helpers.js';
import { counterValue, startKms, type RunningKms } from './kms.test-helpers.js';
import { startVcs } from './vcs.test-helpers.js';

const WITNESS_POLICY = 'MinPercent(100,batch) AND MinPercent(100,system)';
const NODE_FLAGS = [
  '--follow-auth-policy',
  'accept-list',
  '--invite-witness-auth-policy',
  'accept-list',
  '--mq-redelivery-initial-interval',
  '500ms',
  '--mq-redelivery-max-interval',
  '2s',
];

describe('the vcs with a kms, two federated nodes and a vct-log', () => {
  const dirs: TempDir[] = [];
  let kms: RunningKms;
  let node1: RunningNode;
  let node2: RunningNode;
  let logUrl: string;
  let issuer: string;
  let verifier: string;

  beforeAll(async () => {
    const [kmsDir, vctDir, dir1, dir2, issuerDir, verifierDir] = await Promise.all(
      ['vcs-fed-kms-', 'vcs-fed-vct-', 'vcs-fed-node1-', 'vcs-fed-node2-', 'vcs-fed-issuer-', 'vcs-fed-verifier-'].map(
        (prefix) => makeTempDir(prefix),
      ),
    );
    dirs.push(kmsDir!, vctDir!, dir1!, dir2!, issuerDir!, verifierDir!);
    kms = await startKms(kmsDir!);
    logUrl = (await startVctLog(vctDir!)).logUrl;
    [node1, node2] = await Promise.all([startNode('node1', dir1!, NODE_FLAGS), startNode('node2', dir2!, NODE_FLAGS)]);
    await node1.admin.allow('follow', [node2.service]);
    await node2.admin.allow('invite-witness', [node1.service]);
    for (const node of [node1, node2]) expect(await node.admin.setLog(logUrl)).toBe(logUrl);
    expect(await node1.admin.setWitnessPolicy(WITNESS_POLICY)).toBe(WITNESS_POLICY);
    await node2.admin.follow(node1.service);
    await node1.admin.inviteWitness(node2.service);
    await Promise.all([
      node1.admin.waitUntilIn('followers', node2.service),
      node1.admin.waitUntilIn('witnesses', node2.service),
    ]);
    [issuer, verifier] = (
      await Promise.all([
        startVcs(issuerDir!, ['--mode', 'issuer', '--kms-url', kms.url, '--node-url', node1.url, '--vct-url', logUrl]),
        startVcs(verifierDir!, ['--mode', 'verifier', '--node-url', node2.url, '--vct-url', logUrl]),
      ])
    ).map((vcs) => vcs.url) as [string, string];
  });

  afterAll(async () => {
    for (const node of [node1, node2]) node?.admin.close();
    kms?.client.close();
    await stopAllProcesses();
    await Promise.all(dirs.map((dir) => dir.remove()));
  });

  it('issues on node 1 with kms keys, verifies through node 2, revokes, and finds the credential in the log', async () => {
    const health = await http<Record<string, string>>(`${issuer}/healthcheck`);
    expect(health.body).toMatchObject({ kmsStatus: 'success', nodeStatus: 'success', vctStatus: 'success' });

    const profile = await http<{ did: string; creator: string }>(`${issuer}/profile`, {
      json: { name: 'university', uri: 'https://university.example', signatureType: 'Ed25519Signature2020' },
    });
    expect(profile.status).toBe(201);
    const { did } = profile.body;
    expect(did).toMatch(/^did:node:uAAA:/);

    const credential = {
      '@context': ['https://www.w3.org/2018/credentials/v1'],
      id: 'urn:uuid:3c1a7e4e-5b0d-4a57-9d8e-1f2a3b4c5d6e',
      type: ['VerifiableCredential'],
      issuanceDate: '2024-01-01T00:00:00Z',
      credentialSubject: { id: 'did:example:alice' },
    };
    const kmsSignatures = async () =>
      counterValue((await http(`${kms.url}/metrics`)).text, 'kms_operations_total{operation="sign",outcome="success"}');
    const signedBefore = await kmsSignatures();
    const issued = await http<Record<string, unknown> & { proof: { verificationMethod: string } }>(
      `${issuer}/university/credentials/issueCredential`,
      { json: { credential } },
    );
    expect(issued.status).toBe(201);
    expect(issued.body.proof.verificationMethod).toBe(profile.body.creator);
    const receipt = JSON.parse(issued.headers.get('vct-receipt') as string) as { timestamp: number };

    // The proof was made by the kms, with the key the DID document on node 1 lists.
    expect(await kmsSignatures()).toBeGreaterThan(signedBefore);
    expect((await resolveDid(node1.url, did)).status).toBe(200);

    // Node 2 learns the DID once node 1 has anchored it and node 2 has witnessed and observed the anchor.
    await waitFor(
      async () => {
        const result = await resolveDid(node2.url, did);
        return result.status === 200 && (metadataOf(result).method as { published?: boolean }).published === true;
      },
      { timeoutMs: 60_000, intervalMs: 250, description: `${did} published on node 2` },
    );

    const verify = () =>
      http<{ checks: unknown[] }>(`${verifier}/verifier/credentials`, {
        json: {
          verifiableCredential: issued.body,
          options: { checks: ['proof', 'status', 'logged'], vctTimestamp: receipt.timestamp },
        },
      });
    const first = await waitFor(
      async () => {
        const answer = await verify();
        // The log integrates every 250 ms: "logged" may lag the first try.
        return answer.status === 200 ? answer : undefined;
      },
      { timeoutMs: 10_000, intervalMs: 250, description: 'the credential verified on node 2' },
    );
    expect(first.body).toEqual({ checks: ['proof', 'status', 'logged'] });

    const revoked = await http(`${issuer}/university/credentials/status`, {
      json: { credentialId: credential.id, credentialStatus: { type: 'StatusList2021Entry', status: 'true' } },
    });
    expect(revoked.status).toBe(200);
    const after = await verify();
    expect(after.status).toBe(400);
    expect(after.body.checks).toEqual([{ check: 'status', error: 'Revoked' }]);

    // The log holds the credential, proven against its current tree head by a client of its own.
    const log = new VctLogClient();
    const sth = await log.signedTreeHead(logUrl);
    const inclusion = await log.verifyInclusion(logUrl, await log.leafHashOf(issued.body, receipt.timestamp), sth);
    expect(inclusion.treeSize).toBe(sth.tree_size);
  });
});
