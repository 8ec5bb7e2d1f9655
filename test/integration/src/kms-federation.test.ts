/**
 * A federation whose every signature is made by one kms: a kms process, a vct-log and two nodes signing
 * through it (`--kms-url`, `--kms-keystore`, `--kms-capability`; node 1 with a key the operator created,
 * node 2 and the log with keys they create on first start). A DID created on node 1 is witnessed by node 2,
 * logged, and resolves published with the same canonicalId on both, exactly as in the local-key federation
 * (federation.test.ts); the keys the services publish are the kms's, the kms counted their signatures, and
 * health reports the kms (`kmsStatus`) from a real call: 503 once the kms is gone.
 */
import { VctLogClient, type KmsKeystore } from '@anchor/common/clients';
import { KeyPair } from '@anchor/common/crypto';
import { decodeDataUri } from '@anchor/common/encoding';
import { parsePublicKeyPem } from '@anchor/common/httpsig';
import { makeTempDir, stopAllProcesses, waitFor, type TempDir } from '@anchor/testing/process';
import { TestDid, metadataOf, postOperation, resolveDid } from '@anchor/node/testing';
import { call as http } from '@anchor/vct-log/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startNode, startVctLog, type RunningNode } from './federation.test-helpers.js';
import { counterValue, createKeystore, startKms, type RunningKms } from './kms.test-helpers.js';

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

interface Proof {
  verificationMethod: string;
  domain?: string;
  created: string;
}

async function canonicalIdOn(node: RunningNode, did: string): Promise<string> {
  return waitFor(
    async () => {
      const result = await resolveDid(node.url, did);
      if (result.status !== 200) return undefined;
      const metadata = metadataOf(result);
      return (metadata.method as { published?: boolean }).published === true ? String(metadata.canonicalId) : undefined;
    },
    { timeoutMs: 60_000, intervalMs: 250, description: `${did} published on ${node.name}` },
  );
}

async function kmsSignatures(kms: RunningKms): Promise<number> {
  const { text } = await http(`${kms.url}/metrics`);
  return counterValue(text, 'kms_operations_total{operation="sign",outcome="success"}');
}

describe('a federation signing through one kms', () => {
  const dirs: TempDir[] = [];
  let kms: RunningKms;
  let keystore: KmsKeystore;
  let node1Key: string;
  let node1: RunningNode;
  let node2: RunningNode;
  let logUrl: string;
  const vct = new VctLogClient();

  beforeAll(async () => {
    const [kmsDir, vctDir, dir1, dir2] = await Promise.all(
      ['kms-fed-kms-', 'kms-fed-vct-', 'kms-fed-node1-', 'kms-fed-node2-'].map((prefix) => makeTempDir(prefix)),
    );
    dirs.push(kmsDir!, vctDir!, dir1!, dir2!);
    kms = await startKms(kmsDir!);
    const created = await createKeystore(kms);
    keystore = kms.client.keystore(created.id, { capability: created.capability });
    node1Key = (await keystore.createKey('ED25519')).keyId;
    const kmsFlags = ['--kms-url', kms.url, '--kms-keystore', created.id, `--kms-capability=${created.capability}`];

    const log = await startVctLog(vctDir!, ['--kms-type', 'web', ...kmsFlags]);
    logUrl = log.logUrl;
    [node1, node2] = await Promise.all([
      startNode('node1', dir1!, [...NODE_FLAGS, ...kmsFlags, '--kms-key-id', node1Key]),
      startNode('node2', dir2!, [...NODE_FLAGS, ...kmsFlags]),
    ]);
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
  });

  afterAll(async () => {
    for (const node of [node1, node2]) node?.admin.close();
    kms?.client.close();
    await stopAllProcesses();
    await Promise.all(dirs.map((dir) => dir.remove()));
  });

  it('publishes the kms keys: node 1 the key it was given, for proofs and HTTP signatures alike', async () => {
    const exported = await keystore.exportPublicKey(node1Key);
    const kmsKey = KeyPair.fromPublicKeyBytes('Ed25519', exported.publicKey);
    const didDocument = (
      await http<{ verificationMethod: Array<{ publicKeyMultibase: string }> }>(`${node1.url}/.well-known/did.json`)
    ).body;
    expect(didDocument.verificationMethod[0]!.publicKeyMultibase).toBe(kmsKey.publicKeyMultibase());
    const httpKey = (await http<{ publicKeyPem: string }>(`${node1.service}/keys/main-key`)).body;
    const published = KeyPair.fromKeyObject(parsePublicKeyPem(httpKey.publicKeyPem).keyObject);
    expect(published.publicKeyBytes()).toEqual(exported.publicKey);
    for (const url of [node1.url, node2.url, new URL(logUrl).origin]) {
      const health = await http<{ kmsStatus: string }>(`${url}/healthcheck`);
      expect([url, health.status, health.body.kmsStatus]).toEqual([url, 200, 'success']);
    }
  });

  it('a DID created on node 1 is witnessed by node 2, logged, and resolves with the same canonicalId on both', async () => {
    const signedBefore = await kmsSignatures(kms);
    const did = new TestDid(node1.url);
    expect((await postOperation(node1.url, did.created.request)).status).toBe(200);
    const [canonical1, canonical2] = await Promise.all([canonicalIdOn(node1, did.did), canonicalIdOn(node2, did.did)]);
    expect(canonical1).toMatch(new RegExp(`^did:node:uEi[A-Za-z0-9_-]+:${did.suffix}$`));
    expect(canonical2).toBe(canonical1);

    // Both proofs on the anchor credential, each backed by the log whose key is in the kms.
    const anchorHash = canonical1.split(':')[2]!;
    const linkset = await http<{ linkset: Array<{ replies: Array<{ href: string }> }> }>(
      `${node1.url}/cas/${anchorHash}`,
    );
    const credential = JSON.parse(decodeDataUri(linkset.body.linkset[0]!.replies[0]!.href).toString('utf8')) as {
      proof: Proof | Proof[];
    };
    const proofs = Array.isArray(credential.proof) ? credential.proof : [credential.proof];
    const didWebOf = (node: RunningNode) => `did:web:${encodeURIComponent(`127.0.0.1:${node.port}`)}#`;
    expect(proofs.some((proof) => proof.verificationMethod.startsWith(didWebOf(node1)))).toBe(true);
    const witnessProof = proofs.find((proof) => proof.verificationMethod.startsWith(didWebOf(node2)));
    expect(witnessProof?.domain).toBe(logUrl);

    // The log's tree heads verify with the key it publishes (VctLogClient checks the signature), and the
    // credential's entry is in the tree.
    const loggedAt = Date.parse(witnessProof!.created);
    await waitFor(
      async () => {
        const sth = await vct.signedTreeHead(logUrl);
        if (sth.tree_size === 0) return false;
        const { body } = await http<{ entries: Array<{ leaf_input: string }> }>(
          `${logUrl}/v1/get-entries?start=0&end=${sth.tree_size - 1}`,
        );
        return body.entries.some(
          (entry) =>
            (
              JSON.parse(Buffer.from(entry.leaf_input, 'base64').toString('utf8')) as {
                timestamped_entry: { timestamp: number };
              }
            ).timestamped_entry.timestamp === loggedAt,
        );
      },
      { timeoutMs: 15_000, description: `an entry logged at ${witnessProof!.created}` },
    );
    // Proofs (2), log timestamps (2), tree heads and the federation's HTTP signatures: all made by the kms.
    expect((await kmsSignatures(kms)) - signedBefore).toBeGreaterThanOrEqual(5);
  });

  it('reports the kms in health: 503 with the reason once the kms is gone', async () => {
    await kms.process.stop(10_000);
    for (const url of [node1.url, new URL(logUrl).origin]) {
      const health = await http<{ kmsStatus: string }>(`${url}/healthcheck`);
      expect(health.status, url).toBe(503);
      expect(health.body.kmsStatus, url).toMatch(/^kms: GET .*(ECONNREFUSED|ECONNRESET)/);
    }
  });
});
