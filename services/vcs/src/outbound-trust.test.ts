import { KeyPair } from '@anchor/common/crypto';
import { createHttpClient, type HttpClient } from '@anchor/common/http-client';
import { signDocument } from '@anchor/common/jsonld';
import { REFUSED_DID_WEBS, startDidWebSite, type DidWebSite } from '@anchor/testing/did-web-site';
import { makePrivateCa, type PrivateCa } from '@anchor/testing/private-ca';
import { makeTempDir, type TempDir } from '@anchor/testing/process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { credentialV1, startTestVcs, type TestVcs } from './vcs.test-helpers.js';

/**
 * The vcs's outbound calls on behalf of a verification (the did:web document of an issuer): they trust the
 * operator's CA only with `--tls-cacerts`, and never reach private, link-local or (for a vcs that is not itself
 * on loopback) loopback addresses outside dev mode.
 */
const issuerKey = KeyPair.generate('Ed25519');

const signedBy = (did: string) =>
  signDocument(credentialV1({ issuer: did }), { key: issuerKey, verificationMethod: `${did}#key-1` });

let dir: TempDir;
let pki: PrivateCa;
let issuerSite: DidWebSite;
let issuerDid: string;
const services: TestVcs[] = [];

async function start(options: Parameters<typeof startTestVcs>[0]): Promise<TestVcs> {
  const vcs = await startTestVcs({ mode: 'verifier', ...options });
  services.push(vcs);
  return vcs;
}

beforeAll(async () => {
  dir = await makeTempDir('vcs-outbound-');
  pki = makePrivateCa(dir.path);
  issuerSite = await startDidWebSite(pki, issuerKey, 'assertionMethod');
  issuerDid = issuerSite.did;
});

afterAll(async () => {
  for (const vcs of services) await vcs.stop();
  await issuerSite.close();
  await dir.remove();
});

describe('--tls-cacerts', () => {
  let client: HttpClient;
  beforeAll(() => {
    client = createHttpClient({ tls: { ca: [pki.ca] } });
  });
  afterAll(() => client.close());

  it("verifies a credential whose did:web issuer is served under the operator's CA only when the vcs is given that CA", async () => {
    // A vcs served over https on loopback fetches its loopback peers over https (as the node does).
    const tls = { certFile: pki.certFile, keyFile: pki.keyFile };
    const trusting = await start({ tls, tlsCaCertFiles: [pki.caFile] });
    const untrusting = await start({ tls });
    const verify = async (vcs: TestVcs) =>
      client.post<{ checks?: Array<{ error: string }>; message?: string }>(
        `${vcs.url}/verifier/credentials`,
        { verifiableCredential: await signedBy(issuerDid), options: { checks: ['proof'] } },
        { answerStatuses: [400, 502, 503] },
      );
    expect(trusting.url).toMatch(/^https:/);
    expect((await verify(trusting)).status).toBe(200);
    // Without the CA the issuer's site is unreachable, as any network failure (503: worth trying again).
    const refused = await verify(untrusting);
    expect(refused.status).toBe(503);
    expect(JSON.stringify(refused.data)).toMatch(/certificate/i);
  });
});

describe('did:web issuers at addresses the vcs must not reach', () => {
  it('refuses link-local, private and reserved hosts with a 400 naming the address, connecting nowhere', async () => {
    // A vcs on loopback (its own endpoint is loopback: loopback peers are allowed, nothing else non-public).
    const vcs = await start({});
    const before = issuerSite.hits;
    for (const [did, kind] of REFUSED_DID_WEBS) {
      const started = Date.now();
      const reply = await vcs.call('POST', '/verifier/credentials', {
        verifiableCredential: await signedBy(did),
        options: { checks: ['proof'] },
      });
      expect(reply.status, did).toBe(400);
      expect(JSON.stringify(reply.body), did).toContain(`${kind}: refused`);
      // A connection attempt to these addresses would hang until the fetch timeout, not answer at once.
      expect(Date.now() - started, did).toBeLessThan(1_000);
    }
    expect(issuerSite.hits).toBe(before);
  });

  it("fetches another issuer's status list through the same guard (400 naming the address, no connection)", async () => {
    const vcs = await start({});
    for (const [url, kind] of [
      ['https://169.254.169.254/latest/status/1', '169.254.169.254, a link-local address'],
      ['http://10.0.0.7:8080/status/1', '10.0.0.7, a private address'],
      ['ftp://192.168.1.1/status/1', 'ftp URLs are refused for status list credentials (https only)'],
      ['https://10.0.0.7/status/1', '10.0.0.7, a private address'],
    ] as const) {
      const started = Date.now();
      const credential = credentialV1({
        issuer: 'did:web:issuer.example.com',
        credentialStatus: {
          id: `${url}#5`,
          type: 'StatusList2021Entry',
          statusPurpose: 'revocation',
          statusListIndex: '5',
          statusListCredential: url,
        },
      });
      const reply = await vcs.call('POST', '/verifier/credentials', {
        verifiableCredential: credential,
        options: { checks: ['status'] },
      });
      expect(reply.status, url).toBe(400);
      expect(reply.body.checks[0].error, url).toContain(`status list ${url}: `);
      expect(reply.body.checks[0].error, url).toContain(kind);
      expect(Date.now() - started, url).toBeLessThan(1_000);
    }
  });

  it('refuses a loopback did:web when the vcs itself is not on loopback; dev mode lifts the limits', async () => {
    const publicVcs = await start({ externalUrl: 'https://vcs.example.com', tlsCaCertFiles: [pki.caFile] });
    const refused = await publicVcs.call('POST', '/verifier/credentials', {
      verifiableCredential: await signedBy(issuerDid),
      options: { checks: ['proof'] },
    });
    expect(refused.status).toBe(400);
    expect(JSON.stringify(refused.body)).toMatch(/127\.0\.0\.1, a loopback address: refused/);
    const devVcs = await start({ externalUrl: 'https://vcs.example.com', devMode: true });
    const dev = await devVcs.call('POST', '/verifier/credentials', {
      verifiableCredential: await signedBy('did:web:127.0.0.1%3A1'),
      options: { checks: ['proof'] },
    });
    expect(JSON.stringify(dev.body)).toMatch(/ECONNREFUSED/);
  });

  it('reaches peers on --allowed-peer-networks without dev mode, and nothing else non-public', async () => {
    // Loopback stands in for the federation's private network: this vcs is not on loopback, so only the listed
    // network lets it reach the issuer's site.
    const vcs = await start({
      externalUrl: 'https://vcs.example.com',
      tlsCaCertFiles: [pki.caFile],
      allowedPeerNetworks: ['127.0.0.0/8'],
    });
    const allowed = await vcs.call('POST', '/verifier/credentials', {
      verifiableCredential: await signedBy(issuerDid),
      options: { checks: ['proof'] },
    });
    expect(allowed.status, JSON.stringify(allowed.body)).toBe(200);
    for (const [did, kind] of [
      ['did:web:10.0.0.7', '10.0.0.7, a private address: refused'],
      ['did:web:169.254.169.254', '169.254.169.254, a link-local address: refused'],
    ] as const) {
      const reply = await vcs.call('POST', '/verifier/credentials', {
        verifiableCredential: await signedBy(did),
        options: { checks: ['proof'] },
      });
      expect(reply.status, did).toBe(400);
      expect(JSON.stringify(reply.body), did).toContain(kind);
    }
  });
});
