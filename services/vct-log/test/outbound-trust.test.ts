import { KeyPair } from '@anchor/common/crypto';
import { createHttpClient, peerStatusOf, type HttpClient } from '@anchor/common/http-client';
import { signDocument } from '@anchor/common/jsonld';
import { REFUSED_DID_WEBS, startDidWebSite, type DidWebSite } from '@anchor/testing/did-web-site';
import { makePrivateCa, type PrivateCa } from '@anchor/testing/private-ca';
import { makeTempDir, type TempDir } from '@anchor/testing/process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type VctLogOptions, type VctLogServer } from '../src/server.js';
import { anchorCredential, call } from '../src/testing/index.js';

/**
 * The log's outbound calls on behalf of add-vc (the did:web document of a proof's issuer): they trust the
 * operator's CA only with `--tls-cacerts`, and never reach private, link-local or (for a log that is not
 * itself on loopback) loopback addresses outside dev mode.
 */
const key = KeyPair.generate('Ed25519');
const TERMS = ['href', 'rel', 'AnchorLink'];

const signedBy = (did: string, n: string) =>
  signDocument(anchorCredential(n, did), { key, verificationMethod: `${did}#key-1`, allowUndefinedTerms: TERMS });

let dir: TempDir;
let pki: PrivateCa;
let issuerSite: DidWebSite;
let issuerDid: string;
const logs: VctLogServer[] = [];

async function startLog(options: VctLogOptions): Promise<VctLogServer> {
  const server = createServer({
    dataDir: `${dir.path}/log-${logs.length}`,
    storage: { type: 'mem' },
    canonicalizeWorkers: 0,
    integrationIntervalMs: 60_000,
    ...options,
  });
  logs.push(server);
  await server.start();
  return server;
}

beforeAll(async () => {
  dir = await makeTempDir('vct-outbound-');
  pki = makePrivateCa(dir.path);
  issuerSite = await startDidWebSite(pki, key, 'assertionMethod');
  issuerDid = issuerSite.did;
});

afterAll(async () => {
  await Promise.all(logs.map((log) => log.stop()));
  await issuerSite.close();
  await dir.remove();
});

describe('--tls-cacerts', () => {
  let client: HttpClient;
  beforeAll(() => {
    client = createHttpClient({ tls: { ca: [pki.ca] } });
  });
  afterAll(() => client.close());

  const addVc = async (log: VctLogServer, credential: object): Promise<{ status: number; message?: string }> => {
    try {
      return { status: (await client.post(`${log.url}/main/v1/add-vc`, credential)).status };
    } catch (error) {
      return { status: peerStatusOf(error) ?? 0, message: (error as Error).message };
    }
  };

  it("verifies a proof whose did:web is served under the operator's CA only when the log is given that CA", async () => {
    // A log served over https on loopback fetches its loopback peers over https (as the node does).
    const tls = { certFile: pki.certFile, keyFile: pki.keyFile };
    const trusting = await startLog({ tls, caCertificates: [pki.ca] });
    const untrusting = await startLog({ tls });
    expect(trusting.url).toMatch(/^https:/);

    expect(await addVc(trusting, await signedBy(issuerDid, 'trusted'))).toEqual({ status: 200 });
    // Without the CA the issuer's site is unreachable, as any network failure (503: worth trying again).
    const refused = await addVc(untrusting, await signedBy(issuerDid, 'untrusted'));
    expect(refused.status).toBe(503);
    expect(refused.message).toMatch(/certificate/i);
  });
});

describe('did:web issuers at addresses the log must not reach', () => {
  it('refuses link-local, private and reserved hosts with a 400 naming the address, connecting nowhere', async () => {
    // A log on loopback (its own endpoint is loopback: loopback peers are allowed, nothing else non-public).
    const log = await startLog({});
    const before = issuerSite.hits;
    for (const [did, kind] of REFUSED_DID_WEBS) {
      const started = Date.now();
      const reply = await call<{ message: string }>(`${log.url}/main/v1/add-vc`, { json: await signedBy(did, did) });
      expect(reply.status, did).toBe(400);
      expect(reply.body.message, did).toContain(`${kind}: refused`);
      // A connection attempt to these addresses would hang until the fetch timeout, not answer at once.
      expect(Date.now() - started, did).toBeLessThan(1_000);
    }
    expect(issuerSite.hits).toBe(before);
  });

  it('refuses a loopback did:web when the log itself is not on loopback, and allows it in dev mode', async () => {
    const publicLog = await startLog({ baseUrl: 'https://log.example.com', caCertificates: [pki.ca] });
    const reply = await call<{ message: string }>(`${publicLog.url}/main/v1/add-vc`, {
      json: await signedBy(issuerDid, 'public-log'),
    });
    expect(reply.status).toBe(400);
    expect(reply.body.message).toMatch(/a loopback address: refused/);

    // Dev mode lifts the address limits (compose networks are private and plain http).
    const devLog = await startLog({ baseUrl: 'https://log.example.com', devMode: true });
    const dev = await call<{ message: string }>(`${devLog.url}/main/v1/add-vc`, {
      json: await signedBy('did:web:127.0.0.1%3A1', 'dev'),
    });
    expect(dev.status).toBe(503);
    expect(dev.body.message).toMatch(/ECONNREFUSED/);
  });
});
