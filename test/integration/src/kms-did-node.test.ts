import { createRequestSigner } from '@anchor/common/httpsig';
import { base64UrlPaddedDecode as unb64, base64UrlPaddedEncode as b64 } from '@anchor/common/encoding';
import { KeyPair } from '@anchor/common/crypto';
import { didKeyFromKeyPair, resolveDidKey } from '@anchor/common/did';
import { serviceBin } from '@anchor/dev-env';
import { freePort, makeTempDir, startProcess, stopAllProcesses, type TempDir } from '@anchor/testing/process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startNode, type RunningNode } from './federation.test-helpers.js';

async function call<T = Record<string, unknown>>(
  url: string,
  init: { json?: unknown; token?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<{ status: number; body: T }> {
  const headers: Record<string, string> = { ...init.headers };
  if (init.json !== undefined || init.body !== undefined) headers['content-type'] ??= 'application/json';
  if (init.token) headers.authorization = `Bearer ${init.token}`;
  const body = init.json !== undefined ? JSON.stringify(init.json) : init.body;
  const response = await fetch(url, { method: body === undefined ? 'GET' : 'POST', headers, body });
  const text = await response.text();
  return {
    status: response.status,
    body: (text && response.headers.get('content-type')?.includes('json') ? JSON.parse(text) : text) as T,
  };
}

/**
 * A kms with `--node-url` and a node, as processes: `POST /v1/keystores/did` creates a did:node on the node whose
 * signing key stays in the keystore, the node resolves it, and a keystore controlled by that did:node accepts
 * HTTP signatures made with it (through the kms), resolved on the node.
 */
describe('kms creating did:node DIDs on a node', () => {
  const dirs: TempDir[] = [];
  let node: RunningNode;
  let kmsUrl: string;

  beforeAll(async () => {
    dirs.push(await makeTempDir('kms-did-node-'), await makeTempDir('kms-did-node-kms-'));
    node = await startNode('node1', dirs[0] as TempDir, []);
    const port = await freePort();
    kmsUrl = `http://127.0.0.1:${port}`;
    await startProcess(serviceBin('@anchor/kms'), {
      name: 'kms',
      args: [
        '--host-url',
        `127.0.0.1:${port}`,
        '--data-dir',
        (dirs[1] as TempDir).path,
        '--dev-mode',
        '--node-url',
        node.url,
        '--log-level',
        'warning',
      ],
      readyUrl: `${kmsUrl}/healthcheck`,
      readyStatus: (status) => status === 200,
    });
  }, 120_000);

  afterAll(async () => {
    await stopAllProcesses();
    for (const dir of dirs) await dir.remove();
  });

  it('creates a did:node whose key-1 is a keystore key, and that DID controls another keystore by signature', async () => {
    const ownerKey = KeyPair.generate('Ed25519');
    const owner = didKeyFromKeyPair(ownerKey);
    const ks = (
      await call<{ id: string; location: string; capability: string }>(`${kmsUrl}/v1/keystores`, {
        json: { controller: owner },
      })
    ).body;
    const created = await call<{
      did: string;
      keyID: string;
      keyIDs: Record<string, string>;
      verificationMethod: string;
    }>(`${kmsUrl}/v1/keystores/did`, {
      json: { keystoreID: ks.id },
      token: ks.capability,
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const { did, keyID, keyIDs, verificationMethod } = created.body;
    expect(did).toMatch(/^did:node:/);
    expect(Object.keys(keyIDs).sort()).toEqual(['recovery', 'signing', 'update']);
    expect(verificationMethod).toBe(`${did}#key-1`);

    const resolved = await call<{
      didDocument: { verificationMethod: Array<{ id: string; publicKeyJwk?: { x: string } }> };
    }>(`${node.url}/sidetree/v1/identifiers/${did}`);
    expect(resolved.status, JSON.stringify(resolved.body)).toBe(200);
    const method = resolved.body.didDocument.verificationMethod.find((m) => m.id.endsWith('#key-1'));
    const exported = await call<{ publicKey: string }>(`${ks.location}/keys/${keyID}`, { token: ks.capability });
    expect(Buffer.from(method?.publicKeyJwk?.x ?? '', 'base64url')).toEqual(unb64(exported.body.publicKey));

    const theirs = (await call<{ location: string }>(`${kmsUrl}/v1/keystores`, { json: { controller: did } })).body;
    const kmsKey = {
      type: 'Ed25519',
      sign: async (data: Buffer) =>
        unb64(
          (
            await call<{ signature: string }>(`${ks.location}/keys/${keyID}/sign`, {
              json: { message: b64(data) },
              token: ks.capability,
            })
          ).body.signature,
        ),
    };
    const url = `${theirs.location}/keys`;
    const body = Buffer.from(JSON.stringify({ keyType: 'ED25519' }));
    const signedBy = async (
      keyId: string,
      key: { type: string; sign(data: Buffer): Uint8Array | Promise<Uint8Array> },
    ) => {
      const headers = { 'content-type': 'application/json' };
      const signature = await createRequestSigner({ keyId, key })({ method: 'POST', url, headers, body });
      return call(url, { body: body.toString(), headers: { ...headers, ...signature } });
    };
    const accepted = await signedBy(verificationMethod, kmsKey);
    expect(accepted.status, JSON.stringify(accepted.body)).toBe(201);
    const ownerKeyId = resolveDidKey(owner).verificationMethod?.[0]?.id as string;
    expect((await signedBy(ownerKeyId, ownerKey)).status).toBe(403);
  }, 60_000);
});
