import { KeyPair } from '@anchor/common/crypto';
import { createHttpClient, peerStatusOf, type HttpClient } from '@anchor/common/http-client';
import { createRequestSigner } from '@anchor/common/httpsig';
import { REFUSED_DID_WEBS, startDidWebSite, type DidWebSite } from '@anchor/testing/did-web-site';
import { makePrivateCa, type PrivateCa } from '@anchor/testing/private-ca';
import { makeTempDir, type TempDir } from '@anchor/testing/process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type KmsOptions, type KmsServer } from '../src/server.js';
import { call } from './kms.test-helpers.js';

/**
 * The kms's outbound calls on behalf of keystore requests (the did:web document of a controller): they trust
 * the operator's CA only with `--tls-cacerts`, and never reach private, link-local or (for a kms that is not
 * itself on loopback) loopback addresses outside dev mode.
 */
const controllerKey = KeyPair.generate('Ed25519');

let dir: TempDir;
let pki: PrivateCa;
let controllerSite: DidWebSite;
let controllerDid: string;
const servers: KmsServer[] = [];

async function startKms(options: KmsOptions): Promise<KmsServer> {
  const server = createServer({
    dataDir: `${dir.path}/kms-${servers.length}`,
    storage: { type: 'mem' },
    masterKey: { base64: Buffer.alloc(32, 7).toString('base64') },
    bbsWorkers: 0,
    signWorkers: 0,
    ...options,
  });
  servers.push(server);
  await server.start();
  return server;
}

/** Signed calls by a did:web controller's key, over https trusting the private CA. */
function signedClient(did: string): HttpClient {
  return createHttpClient({
    tls: { ca: [pki.ca] },
    signer: createRequestSigner({ keyId: `${did}#key-1`, key: controllerKey }),
  });
}

async function statusOf(run: () => Promise<{ status: number }>): Promise<{ status: number; message?: string }> {
  try {
    return { status: (await run()).status };
  } catch (error) {
    return { status: peerStatusOf(error) ?? 0, message: (error as Error).message };
  }
}

beforeAll(async () => {
  dir = await makeTempDir('kms-outbound-');
  pki = makePrivateCa(dir.path);
  controllerSite = await startDidWebSite(pki, controllerKey, 'authentication');
  controllerDid = controllerSite.did;
});

afterAll(async () => {
  await Promise.all(servers.map((server) => server.stop()));
  await controllerSite.close();
  await dir.remove();
});

describe('--tls-cacerts', () => {
  it("opens a keystore by the signature of a did:web controller served under the operator's CA only with that CA", async () => {
    // A kms served over https on loopback fetches its loopback peers over https (as the node does).
    const tls = { certFile: pki.certFile, keyFile: pki.keyFile };
    const trusting = await startKms({ tls, caCertificates: [pki.ca] });
    const untrusting = await startKms({ tls });
    const client = signedClient(controllerDid);
    try {
      for (const [kms, expected] of [
        [trusting, 200],
        // Without the CA the controller's site is unreachable, as any network failure (503: worth trying again).
        [untrusting, 503],
      ] as const) {
        const created = await client.post<{ location: string }>(
          `${kms.url}/v1/keystores`,
          { controller: controllerDid },
          { sign: false },
        );
        expect(created.status).toBe(201);
        const read = await statusOf(() => client.get(created.data.location));
        expect(read.status).toBe(expected);
        if (expected !== 200) expect(read.message).toMatch(/certificate/i);
      }
    } finally {
      client.close();
    }
  });
});

describe('did:web controllers at addresses the kms must not reach', () => {
  it('refuses to create a keystore for a link-local, private or reserved did:web with a 400, connecting nowhere', async () => {
    const kms = await startKms({});
    for (const [did, kind] of REFUSED_DID_WEBS) {
      const started = Date.now();
      const reply = await call<{ message: string }>(`${kms.url}/v1/keystores`, { json: { controller: did } });
      expect(reply.status, did).toBe(400);
      expect(reply.body.message, did).toBe(`controller: ${did}: ${kind.split(',')[0]} resolves to ${kind}: refused`);
      expect(Date.now() - started, did).toBeLessThan(1_000);
    }
    // A loopback controller is fine for a kms on loopback (a local federation).
    expect((await call(`${kms.url}/v1/keystores`, { json: { controller: controllerDid } })).status).toBe(201);
  });

  it('refuses a signature whose did:web keyId names such an address (401 naming it), connecting nowhere', async () => {
    const kms = await startKms({});
    const created = await call<{ location: string }>(`${kms.url}/v1/keystores`, {
      json: { controller: controllerDid },
    });
    const before = controllerSite.hits;
    for (const did of ['did:web:169.254.169.254', 'did:web:10.0.0.7%3A8443']) {
      const client = createHttpClient({ signer: createRequestSigner({ keyId: `${did}#key-1`, key: controllerKey }) });
      try {
        const started = Date.now();
        const read = await statusOf(() => client.get(created.body.location));
        expect(read.status, did).toBe(401);
        expect(read.message, did).toMatch(/address: refused/);
        expect(Date.now() - started, did).toBeLessThan(1_000);
      } finally {
        client.close();
      }
    }
    expect(controllerSite.hits).toBe(before);
  });

  it('refuses a loopback did:web controller when the kms itself is not on loopback; dev mode allows it', async () => {
    const publicKms = await startKms({ baseUrl: 'https://kms.example.com' });
    const refused = await call<{ message: string }>(`${publicKms.url}/v1/keystores`, {
      json: { controller: controllerDid },
    });
    expect(refused.status).toBe(400);
    expect(refused.body.message).toMatch(/127\.0\.0\.1, a loopback address: refused/);
    const devKms = await startKms({ devMode: true, baseUrl: 'https://kms.example.com' });
    expect((await call(`${devKms.url}/v1/keystores`, { json: { controller: 'did:web:10.0.0.7' } })).status).toBe(201);
  });
});
