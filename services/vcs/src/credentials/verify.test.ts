import { controllerDocumentResolver, verifyDocument, type ControllerDocument } from '@anchor/common/jsonld';
import { resolveDidKey } from '@anchor/common/did';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  credentialV1,
  credentialV2,
  issue,
  issuerProfile,
  presentation,
  startTestVcs,
  type TestVcs,
} from '../vcs.test-helpers.js';

describe('verification, status and presentations', () => {
  let vcs: TestVcs;
  let profile: { did: string; creator: string };
  beforeAll(async () => {
    vcs = await startTestVcs();
    profile = await issuerProfile(vcs, 'issuer', { credentialStatusPurposes: ['revocation', 'suspension'] });
    await issuerProfile(vcs, 'other');
    await vcs.call('POST', '/holder/profile', { name: 'wallet', signatureType: 'Ed25519Signature2020' });
  });
  afterAll(async () => vcs?.stop());

  const verify = (verifiableCredential: unknown, options?: Record<string, unknown>) =>
    vcs.call('POST', '/verifier/credentials', { verifiableCredential, ...(options ? { options } : {}) });

  it('checks proof by default and answers the checks run', async () => {
    const signed = await issue(vcs, 'issuer', credentialV1());
    expect(await verify(signed)).toMatchObject({ status: 200, body: { checks: ['proof', 'expiration', 'validFrom'] } });
  });

  it('fails a tampered credential with the reason', async () => {
    const signed = await issue(vcs, 'issuer', credentialV1());
    const reply = await verify({ ...signed, credentialSubject: { id: 'did:example:mallory' } });
    expect(reply.status).toBe(400);
    expect(reply.body.checks).toEqual([
      {
        check: 'proof',
        error: expect.stringMatching(/proof 0 \(signature\): the proofValue does not verify/),
        verificationMethod: profile.creator,
      },
    ]);
  });

  it('checks every proof, not only the first', async () => {
    const signed = await issue(vcs, 'issuer', credentialV1());
    const bad = { ...signed.proof, proofValue: `${signed.proof.proofValue.slice(0, -4)}abcd` };
    const reply = await verify({ ...signed, proof: [signed.proof, bad] });
    expect(reply.status).toBe(400);
    expect(reply.body.checks[0].error).toMatch(/^proof 1 /);
  });

  it('fails a proof whose purpose is not assertionMethod', async () => {
    const signed = await issue(vcs, 'issuer', credentialV1(), { proofPurpose: 'authentication' });
    const reply = await verify(signed);
    expect(reply.status).toBe(400);
    expect(reply.body.checks[0].error).toMatch(
      /\(purpose\): proofPurpose is "authentication", expected assertionMethod/,
    );
  });

  it('compares challenge and domain exactly, both ways', async () => {
    const signed = await issue(vcs, 'issuer', credentialV1(), { challenge: 'c-1', domain: 'example.org' });
    expect((await verify(signed, { challenge: 'c-1', domain: 'example.org' })).status).toBe(200);
    const wrongChallenge = await verify(signed, { challenge: 'c-2', domain: 'example.org' });
    expect(wrongChallenge.body.checks[0].error).toMatch(/challenge is "c-1", expected "c-2"/);
    const wrongDomain = await verify(signed, { challenge: 'c-1', domain: 'evil.org' });
    expect(wrongDomain.body.checks[0].error).toMatch(/domain is "example.org", expected "evil.org"/);
    const none = await verify(signed);
    expect(none.body.checks[0].error).toMatch(/invalid challenge in the proof/);
    const plain = await issue(vcs, 'issuer', credentialV1());
    expect((await verify(plain, { challenge: 'c-1' })).status).toBe(400);
  });

  it('fails revoked and suspended credentials, durably, and lifts a suspension', async () => {
    const signed = await issue(vcs, 'issuer', credentialV1());
    expect(Array.isArray(signed.credentialStatus)).toBe(true);
    expect((await verify(signed, { checks: ['proof', 'status'] })).status).toBe(200);
    const suspend = await vcs.call('POST', '/issuer/credentials/status', {
      credentialId: signed.id,
      credentialStatus: { type: 'StatusList2021Entry', status: 'true', statusPurpose: 'suspension' },
    });
    expect(suspend.status).toBe(200);
    const suspended = await verify(signed, { checks: ['proof', 'credentialStatus'] });
    expect(suspended).toMatchObject({
      status: 400,
      body: { checks: [{ check: 'credentialStatus', error: 'Suspended' }] },
    });
    await vcs.call('POST', '/issuer/credentials/status', {
      credentialId: signed.id,
      credentialStatus: { type: 'StatusList2021Entry', status: 'unsuspended' },
    });
    expect((await verify(signed, { checks: ['status'] })).status).toBe(200);
    await vcs.call('POST', '/issuer/credentials/status', {
      credentialId: signed.id,
      credentialStatus: { type: 'StatusList2021Entry', status: 'true' },
    });
    expect((await verify(signed, { checks: ['status'] })).body.checks).toEqual([{ check: 'status', error: 'Revoked' }]);
    const undo = await vcs.call('POST', '/issuer/credentials/status', {
      credentialId: signed.id,
      credentialStatus: { type: 'StatusList2021Entry', status: 'false' },
    });
    expect(undo.status).toBe(400);
    expect(undo.body.message).toMatch(/revocation cannot be undone/);
  });

  it('refuses status updates for unknown credentials, other profiles, missing purposes and bad bodies', async () => {
    const signed = await issue(vcs, 'other', credentialV1());
    const change = { type: 'StatusList2021Entry', status: 'true' };
    expect(
      (
        await vcs.call('POST', '/issuer/credentials/status', {
          credentialId: 'urn:uuid:none',
          credentialStatus: change,
        })
      ).status,
    ).toBe(404);
    expect(
      (await vcs.call('POST', '/issuer/credentials/status', { credentialId: signed.id, credentialStatus: change }))
        .status,
    ).toBe(404);
    expect(
      (await vcs.call('POST', '/nobody/credentials/status', { credentialId: signed.id, credentialStatus: change }))
        .status,
    ).toBe(404);
    const suspension = await vcs.call('POST', '/other/credentials/status', {
      credentialId: signed.id,
      credentialStatus: { ...change, statusPurpose: 'suspension' },
    });
    expect(suspension).toMatchObject({
      status: 400,
      body: { message: expect.stringMatching(/has no suspension status entry/) },
    });
    expect((await vcs.call('POST', '/other/credentials/status', { credentialId: signed.id })).status).toBe(400);
    expect(
      (
        await vcs.call('POST', '/other/credentials/status', {
          credentialId: signed.id,
          credentialStatus: { type: 'X', status: 'true' },
        })
      ).status,
    ).toBe(400);
  });

  it('fails the status check when the list credential is issued by someone else', async () => {
    const mine = await issue(vcs, 'issuer', credentialV1());
    const theirs = await issue(vcs, 'other', credentialV1());
    const mixed = { ...mine, credentialStatus: theirs.credentialStatus };
    const reply = await verify(mixed, { checks: ['status'] });
    expect(reply.status).toBe(400);
    expect(reply.body.checks[0].error).toMatch(/issued by did:key:.*, not by the credential's issuer/);
  });

  it('serves the signed list credential, which verifies, and 404 for unknown lists', async () => {
    const signed = await issue(vcs, 'issuer', credentialV2());
    const url = new URL(signed.credentialStatus[0].statusListCredential);
    const list = await vcs.call('GET', url.pathname);
    expect(list.status).toBe(200);
    expect(list.body).toMatchObject({
      type: ['VerifiableCredential', 'BitstringStatusListCredential'],
      issuer: profile.did,
    });
    expect(list.body.credentialSubject.encodedList).toMatch(/^u/);
    const resolver = controllerDocumentResolver([resolveDidKey(profile.did) as unknown as ControllerDocument]);
    expect((await verifyDocument(list.body, { resolver })).verified).toBe(true);
    expect((await vcs.call('GET', '/issuer/status/nope')).status).toBe(404);
    expect((await vcs.call('GET', `/nobody${url.pathname.slice('/issuer'.length)}`)).status).toBe(404);
  });

  it('reports checks it does not know, and logged without a log', async () => {
    const signed = await issue(vcs, 'issuer', credentialV1());
    const reply = await verify(signed, { checks: ['proof', 'magic', 'logged'] });
    expect(reply.status).toBe(400);
    expect(reply.body.checks).toEqual([
      { check: 'magic', error: 'check not supported' },
      { check: 'logged', error: expect.stringMatching(/no transparency log/) },
    ]);
  });

  it('refuses malformed verify requests with 400 and a message', async () => {
    expect((await vcs.call('POST', '/verifier/credentials', {})).status).toBe(400);
    const badCredential = await vcs.call('POST', '/verifier/credentials', {
      verifiableCredential: { type: 'VerifiableCredential' },
    });
    expect(badCredential).toMatchObject({
      status: 400,
      body: { message: 'verifiableCredential.@context is required' },
    });
    const noProof = await verify(credentialV1({ issuer: 'did:example:x' }));
    expect(noProof.body.checks[0].error).toMatch(/no proof/);
  });

  it('signs presentations for holders and verifies them with challenge, domain and the embedded credentials', async () => {
    const credential = await issue(vcs, 'issuer', credentialV1());
    const proved = await vcs.call('POST', '/wallet/prove/presentations', {
      presentation: presentation([credential]),
      options: { challenge: 'n-1', domain: 'verifier.example' },
    });
    expect(proved.status).toBe(201);
    const wallet = (await vcs.call('GET', '/holder/profile/wallet')).body;
    expect(proved.body).toMatchObject({
      holder: wallet.did,
      proof: { proofPurpose: 'authentication', challenge: 'n-1' },
    });
    const ok = await vcs.call('POST', '/verifier/presentations', {
      verifiablePresentation: proved.body,
      options: { challenge: 'n-1', domain: 'verifier.example', checks: ['proof', 'status'] },
    });
    expect(ok).toMatchObject({ status: 200, body: { checks: ['proof', 'status'] } });
    const wrong = await vcs.call('POST', '/verifier/presentations', {
      verifiablePresentation: proved.body,
      options: { challenge: 'n-2', domain: 'verifier.example' },
    });
    expect(wrong.status).toBe(400);
    expect(wrong.body.checks[0].error).toMatch(/challenge/);
    const tampered = {
      ...proved.body,
      verifiableCredential: [{ ...credential, credentialSubject: { id: 'did:example:x' } }],
    };
    expect(
      (
        await vcs.call('POST', '/verifier/presentations', {
          verifiablePresentation: tampered,
          options: { challenge: 'n-1', domain: 'verifier.example' },
        })
      ).status,
    ).toBe(400);
    expect((await vcs.call('POST', '/nobody/prove/presentations', { presentation: presentation([]) })).status).toBe(
      404,
    );
    expect(
      (await vcs.call('POST', '/wallet/prove/presentations', { presentation: { type: 'VerifiablePresentation' } }))
        .status,
    ).toBe(400);
    expect(
      (await vcs.call('POST', '/wallet/prove/presentations', { presentation: presentation([], { type: ['X'] }) })).body
        .message,
    ).toMatch(/must include VerifiablePresentation/);
  });
});
