import { createRequestSigner } from '@anchor/common/httpsig';
import { resolveDid, startTestNode, type TestNode } from '@anchor/node/testing';
import { makeTempDir, type TempDir } from '@anchor/testing/process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type KmsServer } from '../src/server.js';
import { b64, call, Controller, unb64 } from './kms.test-helpers.js';

/** A kms with `--node-url`: did:node DIDs whose keys stay in a keystore, and did:node controllers of keystores. */
describe('kms with a did:node node', () => {
  let node: TestNode;
  let dir: TempDir;
  let kms: KmsServer;

  beforeAll(async () => {
    node = await startTestNode();
    dir = await makeTempDir('kms-node-');
    kms = createServer({ dataDir: dir.path, storage: { type: 'mem' }, devMode: true, bbsWorkers: 0, nodeUrl: node.url });
    await kms.start();
  }, 60_000);

  afterAll(async () => {
    await kms?.stop();
    await node?.stop();
    await dir?.remove();
    await node?.dir.remove();
  });

  it('creates a did:node on the node whose signing key is a keystore key, and that DID can control a keystore', async () => {
    const owner = new Controller();
    const ks = (await call<{ id: string; location: string; capability: string }>(`${kms.url}/v1/keystores`, { json: { controller: owner.did } })).body;
    const created = await call<{ did: string; keyID: string; keyIDs: Record<string, string>; verificationMethod: string; longFormDid: string }>(
      `${kms.url}/v1/keystores/did`,
      { json: { keystoreID: ks.id }, token: ks.capability },
    );
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const { did, keyID, keyIDs, verificationMethod } = created.body;
    expect(did).toMatch(/^did:node:/);
    expect(Object.keys(keyIDs).sort()).toEqual(['recovery', 'signing', 'update']);
    expect(verificationMethod).toBe(`${did}#key-1`);

    const resolved = await resolveDid(node.url, did);
    expect(resolved.status, JSON.stringify(resolved.body)).toBe(200);
    const document = (resolved.body as { didDocument: { verificationMethod: Array<{ id: string; publicKeyJwk?: { x: string } }> } }).didDocument;
    const method = document.verificationMethod.find((m) => m.id.endsWith('#key-1'));
    const exported = await call<{ publicKey: string }>(`${ks.location}/keys/${keyID}`, { token: ks.capability });
    expect(Buffer.from(method?.publicKeyJwk?.x ?? '', 'base64url')).toEqual(unb64(exported.body.publicKey));

    // A keystore controlled by the new did:node, used with HTTP signatures made by the kms key itself.
    const theirs = (await call<{ location: string }>(`${kms.url}/v1/keystores`, { json: { controller: did } })).body;
    const kmsKey = {
      type: 'Ed25519',
      sign: async (data: Buffer) =>
        unb64((await call<{ signature: string }>(`${ks.location}/keys/${keyID}/sign`, { json: { message: b64(data) }, token: ks.capability })).body.signature),
    };
    const signer = createRequestSigner({ keyId: verificationMethod, key: kmsKey });
    const url = `${theirs.location}/keys`;
    const body = Buffer.from(JSON.stringify({ keyType: 'ED25519' }));
    const headers = { 'content-type': 'application/json' };
    const signed = await signer({ method: 'POST', url, headers, body });
    const reply = await call(url, { body: body.toString(), headers: { ...headers, ...signed } });
    expect(reply.status, JSON.stringify(reply.body)).toBe(201);
    // The owner of the first keystore is not the controller of this one.
    expect((await owner.call(url, { keyType: 'ED25519' })).status).toBe(403);
  }, 60_000);
});
