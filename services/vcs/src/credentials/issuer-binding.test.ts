import { KeyPair } from '@anchor/common/crypto';
import { didKeyFromKeyPair, resolveDidKey } from '@anchor/common/did';
import { createHttpClient, type HttpClient } from '@anchor/common/http-client';
import { signDocument } from '@anchor/common/jsonld';
import { startDidWebSite, type DidWebSite } from '@anchor/testing/did-web-site';
import { makePrivateCa } from '@anchor/testing/private-ca';
import { makeTempDir, type TempDir } from '@anchor/testing/process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { credentialV1, credentialV2, presentation, startTestVcs, type TestVcs } from '../vcs.test-helpers.js';

/**
 * The verifier binds the issuer to the signer: a proof verifies only when its key is listed under
 * assertionMethod in the issuer's own DID document (authentication in the holder's, for a presentation).
 * Each forgery here carries a signature that verifies with the key it names, made by someone else.
 * (did:node issuers, against a real node: test/integration/src/vcs-backends.test.ts.)
 */
class Attacker {
  readonly key = KeyPair.generate('Ed25519');
  readonly did = didKeyFromKeyPair(this.key);
  readonly method = resolveDidKey(this.did).verificationMethod?.[0]?.id as string;

  sign<T extends object>(document: T, proofPurpose: 'assertionMethod' | 'authentication' = 'assertionMethod') {
    return signDocument(document, { key: this.key, verificationMethod: this.method, proofPurpose });
  }
}

describe('issuer and holder binding', () => {
  let vcs: TestVcs;
  let dir: TempDir;
  let site: DidWebSite;
  const webKey = KeyPair.generate('Ed25519');
  const mallory = new Attacker();
  let alice: { did: string; creator: string };
  // The vcs is served over https under the private CA (so that it fetches its loopback did:web peer over https).
  let client: HttpClient;
  const call = async (method: 'GET' | 'POST', path: string, json?: unknown): Promise<{ status: number; body: any }> => {
    const url = `${vcs.url}${path}`;
    const reply = method === 'GET' ? await client.get(url) : await client.post(url, json, { answerStatuses: [400] });
    return { status: reply.status, body: reply.data };
  };
  const issue = async (profile: string, credential: Record<string, unknown>) =>
    (await call('POST', `/${profile}/credentials/issueCredential`, { credential })).body as Record<string, unknown>;

  beforeAll(async () => {
    dir = await makeTempDir('vcs-binding-');
    const pki = makePrivateCa(dir.path);
    site = await startDidWebSite(pki, webKey, 'assertionMethod');
    vcs = await startTestVcs({ tls: { certFile: pki.certFile, keyFile: pki.keyFile }, tlsCaCertFiles: [pki.caFile] });
    client = createHttpClient({ tls: { ca: [pki.ca] } });
    alice = (
      await call('POST', '/profile', {
        name: 'alice',
        uri: 'https://example.com/a',
        signatureType: 'Ed25519Signature2020',
      })
    ).body;
    await call('POST', '/holder/profile', { name: 'wallet', signatureType: 'Ed25519Signature2020' });
  });
  afterAll(async () => {
    client?.close();
    await vcs?.stop();
    await site?.close();
    await dir?.remove();
  });

  const verify = (verifiableCredential: unknown) =>
    call('POST', '/verifier/credentials', { verifiableCredential, options: { checks: ['proof'] } });
  const refusedAsNotTheIssuer = (
    reply: { status: number; body: { checks: Array<{ error: string }> } },
    issuer: string,
  ) => {
    expect(reply.status).toBe(400);
    expect(reply.body.checks[0]?.error).toBe(
      `proof 0 (issuer): ${mallory.method} is not a key of the issuer ${issuer}: its DID document does not list it under assertionMethod`,
    );
  };

  it("refuses a credential naming a did:key issuer, signed by another's key", async () => {
    // The signature verifies with mallory's key, which is all the verifier used to check.
    const forged = await mallory.sign(credentialV1({ issuer: alice.did }));
    refusedAsNotTheIssuer(await verify(forged), alice.did);
    const forgedObject = await mallory.sign(credentialV2({ issuer: { id: alice.did, name: 'Alice' } }));
    refusedAsNotTheIssuer(await verify(forgedObject), alice.did);
    // Mallory's own credential verifies: the key is the issuer's.
    expect((await verify(await mallory.sign(credentialV1({ issuer: mallory.did })))).status).toBe(200);
    // And alice's, issued by the vcs.
    expect((await verify(await issue('alice', credentialV1()))).status).toBe(200);
  });

  it("refuses a credential naming a did:web issuer, signed by another's key; verifies the issuer's own", async () => {
    refusedAsNotTheIssuer(await verify(await mallory.sign(credentialV1({ issuer: site.did }))), site.did);
    const genuine = await signDocument(credentialV1({ issuer: site.did }), {
      key: webKey,
      verificationMethod: `${site.did}#key-1`,
    });
    expect(await verify(genuine)).toMatchObject({ status: 200, body: { checks: ['proof'] } });
  });

  it('refuses an issuer that is not a DID, and checks every proof of a set', async () => {
    const notDid = await verify(await mallory.sign(credentialV1({ issuer: 'https://example.com/issuer' })));
    expect(notDid.body.checks[0].error).toBe(
      'proof 0 (issuer): the issuer https://example.com/issuer is not a DID, so no key can be bound to it',
    );
    // A genuine proof of alice's followed by mallory's over the same credential: the second is not alice's.
    const genuine = await issue('alice', credentialV1());
    const { proof: malloryProof } = await mallory.sign({ ...genuine, proof: undefined });
    const reply = await verify({ ...genuine, proof: [genuine.proof, malloryProof] });
    expect(reply.status).toBe(400);
    expect(reply.body.checks[0].error).toMatch(/^proof 1 \(issuer\): /);
  });

  it("refuses a presentation whose credential's issuer or whose holder is not the signer", async () => {
    const present = (verifiablePresentation: unknown) =>
      call('POST', '/verifier/presentations', { verifiablePresentation, options: { checks: ['proof'] } });
    const genuine = await issue('alice', credentialV1());
    const forged = await mallory.sign(credentialV1({ issuer: alice.did }));
    const withForged = await mallory.sign(presentation([genuine, forged], { holder: mallory.did }), 'authentication');
    const reply = await present(withForged);
    expect(reply.status).toBe(400);
    expect(reply.body.checks[0].error).toBe(
      `verifiableCredential[1]: proof 0 (issuer): ${mallory.method} is not a key of the issuer ${alice.did}: its DID document does not list it under assertionMethod`,
    );
    const wallet = (await call('GET', '/holder/profile/wallet')).body.did as string;
    const asWallet = await mallory.sign(presentation([genuine], { holder: wallet }), 'authentication');
    expect((await present(asWallet)).body.checks[0].error).toBe(
      `proof 0 (holder): ${mallory.method} is not a key of the holder ${wallet}: its DID document does not list it under authentication`,
    );
    expect(
      (await present(await mallory.sign(presentation([genuine], { holder: mallory.did }), 'authentication'))).status,
    ).toBe(200);
    // The prove route refuses a holder that is not the profile's DID.
    const proved = await call('POST', '/wallet/prove/presentations', {
      presentation: presentation([genuine], { holder: alice.did }),
    });
    expect(proved.status).toBe(400);
    expect(proved.body.message).toMatch(/^presentation\.holder ".+" is not the DID of profile wallet/);
  });
});
