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

/** The expiration and validFrom checks through the routes: by default, on request, at a given time. */
describe('validity period checks', () => {
  let vcs: TestVcs;
  beforeAll(async () => {
    vcs = await startTestVcs({ vcApiProfile: 'issuer', verifyClockSkewMs: 60_000 });
    await issuerProfile(vcs, 'issuer');
    await vcs.call('POST', '/holder/profile', { name: 'wallet', signatureType: 'Ed25519Signature2020' });
  });
  afterAll(async () => vcs?.stop());

  const verify = (verifiableCredential: unknown, options?: Record<string, unknown>) =>
    vcs.call('POST', '/verifier/credentials', { verifiableCredential, ...(options ? { options } : {}) });
  const inMinutes = (minutes: number) => new Date(Date.now() + minutes * 60_000).toISOString();

  it('refuses an expired credential by default (1.1 expirationDate, 2.0 validUntil), as its own check', async () => {
    for (const expired of [
      await issue(vcs, 'issuer', credentialV1({ expirationDate: inMinutes(-10) })),
      await issue(vcs, 'issuer', credentialV2({ validUntil: inMinutes(-10) })),
    ]) {
      const reply = await verify(expired);
      expect(reply.status).toBe(400);
      expect(reply.body.checks).toEqual([
        { check: 'expiration', error: expect.stringMatching(/^the credential expired at /) },
      ]);
    }
    const fresh = await issue(vcs, 'issuer', credentialV2({ validUntil: inMinutes(10) }));
    expect(await verify(fresh)).toMatchObject({ status: 200, body: { checks: ['proof', 'expiration', 'validFrom'] } });
  });

  it('refuses a credential not yet valid by default (1.1 issuanceDate, 2.0 validFrom), within the clock skew allowance', async () => {
    for (const early of [
      await issue(vcs, 'issuer', credentialV1({ issuanceDate: inMinutes(10) })),
      await issue(vcs, 'issuer', credentialV2({ validFrom: inMinutes(10) })),
    ]) {
      const reply = await verify(early);
      expect(reply.status).toBe(400);
      expect(reply.body.checks).toEqual([
        { check: 'validFrom', error: expect.stringMatching(/^the credential is not valid before /) },
      ]);
    }
    // Half a minute ahead is within the minute this vcs allows.
    expect((await verify(await issue(vcs, 'issuer', credentialV2({ validFrom: inMinutes(0.5) })))).status).toBe(200);
  });

  it('checks at the time a verifier asks for, and only the checks it names', async () => {
    const bounded = await issue(
      vcs,
      'issuer',
      credentialV1({ issuanceDate: '2030-01-01T00:00:00Z', expirationDate: '2031-01-01T00:00:00Z' }),
    );
    expect(await verify(bounded, { validAt: '2030-06-01T00:00:00Z' })).toMatchObject({ status: 200 });
    expect((await verify(bounded, { validAt: '2032-01-01T00:00:00Z' })).body.checks).toEqual([
      {
        check: 'expiration',
        error: 'the credential expired at 2031-01-01T00:00:00Z (expirationDate; checked at 2032-01-01T00:00:00Z)',
      },
    ]);
    expect((await verify(bounded)).body.checks[0].check).toBe('validFrom');
    expect(await verify(bounded, { checks: ['proof'] })).toMatchObject({ status: 200, body: { checks: ['proof'] } });
    expect((await verify(bounded, { checks: ['expiration'] })).status).toBe(200);
    const badTime = await verify(bounded, { validAt: 'tomorrow' });
    expect(badTime).toMatchObject({
      status: 400,
      body: { message: expect.stringMatching(/options\.validAt must be an ISO 8601 date-time/) },
    });
  });

  it('checks every credential of a presentation, and the VC-API routes', async () => {
    const expired = await issue(vcs, 'issuer', credentialV1({ expirationDate: inMinutes(-10) }));
    const fine = await issue(vcs, 'issuer', credentialV1());
    const proved = await vcs.call('POST', '/wallet/prove/presentations', {
      presentation: presentation([fine, expired]),
    });
    expect(proved.status).toBe(201);
    const reply = await vcs.call('POST', '/verifier/presentations', { verifiablePresentation: proved.body });
    expect(reply.status).toBe(400);
    expect(reply.body.checks).toEqual([
      { check: 'expiration', error: expect.stringMatching(/^verifiableCredential\[1\]: the credential expired at /) },
    ]);
    const vcApi = await vcs.call('POST', '/credentials/verify', { verifiableCredential: expired });
    expect(vcApi.status).toBe(400);
    expect(vcApi.body.errors).toEqual([expect.stringMatching(/^expiration: the credential expired at /)]);
    const vp = await vcs.call('POST', '/presentations/verify', { verifiablePresentation: proved.body });
    expect(vp.body.errors).toEqual([expect.stringMatching(/^expiration: verifiableCredential\[1\]: /)]);
    const issuedVcApi = await vcs.call('POST', '/credentials/issue', {
      credential: credentialV2({ validUntil: inMinutes(-1 * 60) }),
    });
    expect(issuedVcApi.status).toBe(201);
    expect(
      (await vcs.call('POST', '/credentials/verify', { verifiableCredential: issuedVcApi.body.verifiableCredential }))
        .body.errors,
    ).toEqual([expect.stringMatching(/^expiration: /)]);
  });
});
