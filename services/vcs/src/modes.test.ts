import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { credentialV1, issue, issuerProfile, presentation, startTestVcs, type TestVcs } from './vcs.test-helpers.js';

describe('modes, tokens and the W3C VC-API routes', () => {
  const started: TestVcs[] = [];
  const start = async (...args: Parameters<typeof startTestVcs>): Promise<TestVcs> => {
    const vcs = await startTestVcs(...args);
    started.push(vcs);
    return vcs;
  };
  let issuer: TestVcs;
  beforeAll(async () => {
    issuer = await start({ mode: 'issuer', vcApiProfile: 'api' });
    await issuerProfile(issuer, 'api');
  });
  afterAll(async () => {
    for (const vcs of started) await vcs.stop();
  });

  it('serves only the routes of its mode', async () => {
    const verifier = await start({ mode: 'verifier' });
    const holder = await start({ mode: 'holder' });
    const profile = { name: 'p', uri: 'https://x', signatureType: 'Ed25519Signature2020' };
    expect((await verifier.call('POST', '/profile', profile)).status).toBe(404);
    expect((await holder.call('POST', '/profile', profile)).status).toBe(404);
    expect((await issuer.call('POST', '/verifier/credentials', { verifiableCredential: credentialV1() })).status).toBe(
      404,
    );
    expect((await issuer.call('POST', '/holder/profile', profile)).status).toBe(404);
    expect((await verifier.call('POST', '/holder/profile', profile)).status).toBe(404);
    expect((await holder.call('POST', '/holder/profile', profile)).status).toBe(201);
    for (const vcs of [issuer, verifier, holder]) expect((await vcs.call('GET', '/healthcheck')).status).toBe(200);
  });

  it("lets a verifier-only service check an issuer's credential and status list over HTTP", async () => {
    const verifier = await start({ mode: 'verifier' });
    const signed = await issue(issuer, 'api', credentialV1());
    const check = () =>
      verifier.call('POST', '/verifier/credentials', {
        verifiableCredential: signed,
        options: { checks: ['proof', 'status'] },
      });
    expect((await check()).status).toBe(200);
    await issuer.call('POST', '/api/credentials/status', {
      credentialId: signed.id,
      credentialStatus: { type: 'StatusList2021Entry', status: 'true' },
    });
    expect((await check()).body.checks).toEqual([{ check: 'status', error: 'Revoked' }]);
    // A list of another issuer, read over HTTP: its proof verifies, but it is not the credential issuer's list.
    await issuerProfile(issuer, 'other-issuer');
    const other = await issue(issuer, 'other-issuer', credentialV1());
    const mixed = { ...(await issue(issuer, 'api', credentialV1())), credentialStatus: other.credentialStatus };
    const foreign = await verifier.call('POST', '/verifier/credentials', {
      verifiableCredential: mixed,
      options: { checks: ['status'] },
    });
    expect(foreign.status).toBe(400);
    expect(foreign.body.checks[0].error).toMatch(/issued by did:key:.*, not by the credential's issuer/);
  });

  it('issues, verifies and revokes through the VC-API routes on --vc-api-profile', async () => {
    const verifier = await start({ mode: 'verifier' });
    const issued = await issuer.call('POST', '/credentials/issue', { credential: credentialV1(), options: {} });
    expect(issued.status).toBe(201);
    const credential = issued.body.verifiableCredential;
    expect(credential.proof).toBeDefined();
    const ok = await verifier.call('POST', '/credentials/verify', {
      verifiableCredential: credential,
      options: { checks: ['proof', 'status'] },
    });
    expect(ok).toMatchObject({ status: 200, body: { checks: ['proof', 'status'], warnings: [], errors: [] } });
    const revoke = await issuer.call('POST', '/credentials/status', {
      credentialId: credential.id,
      credentialStatus: [{ type: 'StatusList2021Credential', status: 'revoked' }],
    });
    expect(revoke.status).toBe(200);
    const failed = await verifier.call('POST', '/credentials/verify', {
      verifiableCredential: credential,
      options: { checks: ['status'] },
    });
    expect(failed).toMatchObject({ status: 400, body: { errors: ['status: Revoked'] } });
    const presented = await verifier.call('POST', '/presentations/verify', {
      verifiablePresentation: presentation([credential]),
    });
    expect(presented.status).toBe(400);
    expect(presented.body.errors[0]).toMatch(/no proof/);
  });

  it('answers 404 on the VC-API issue route without --vc-api-profile', async () => {
    const combined = await start();
    const reply = await combined.call('POST', '/credentials/issue', { credential: credentialV1() });
    expect(reply).toMatchObject({ status: 404, body: { message: expect.stringMatching(/--vc-api-profile/) } });
  });

  it('requires --api-token on every route except health, the API description and status lists', async () => {
    const guarded = await start({ apiToken: 's3cret' });
    const auth = { authorization: 'Bearer s3cret' };
    const profile = { name: 'p', uri: 'https://x', signatureType: 'Ed25519Signature2020' };
    expect((await guarded.call('POST', '/profile', profile)).status).toBe(401);
    expect((await guarded.call('POST', '/profile', profile, { authorization: 'Bearer wrong' })).status).toBe(401);
    expect((await guarded.call('POST', '/profile', profile, auth)).status).toBe(201);
    expect((await guarded.call('GET', '/profile/p')).status).toBe(401);
    expect((await guarded.call('GET', '/healthcheck')).status).toBe(200);
    expect((await guarded.call('GET', '/openapi.json')).status).toBe(200);
    const signed = (await guarded.call('POST', '/p/credentials/issueCredential', { credential: credentialV1() }, auth))
      .body;
    const list = new URL(signed.credentialStatus.statusListCredential).pathname;
    expect((await guarded.call('GET', list)).status).toBe(200);
    expect((await guarded.call('POST', '/verifier/credentials', { verifiableCredential: signed })).status).toBe(401);
    expect((await guarded.call('POST', '/verifier/credentials', { verifiableCredential: signed }, auth)).status).toBe(
      200,
    );
  });

  it('refuses to start with a --tls-cacerts file it cannot read, naming it', async () => {
    await expect(startTestVcs({ tlsCaCertFiles: ['/nonexistent/ca.pem'] })).rejects.toThrow(
      /--tls-cacerts: cannot read \/nonexistent\/ca.pem/,
    );
  });

  it('keeps profiles, keys and lists across a restart on LMDB, and never reuses a status index (random order)', async () => {
    const first = await startTestVcs({ storage: { type: 'lmdb' }, keyStorage: { type: 'lmdb' } });
    const { dir } = first;
    await issuerProfile(first, 'durable');
    const before = await issue(first, 'durable', credentialV1());
    const indexes = async (vcs: TestVcs): Promise<string[]> => {
      const issued = [];
      for (let i = 0; i < 5; i++) issued.push((await issue(vcs, 'durable', credentialV1())).credentialStatus);
      return issued.map((entry) => `${entry.statusListCredential}#${entry.statusListIndex}`);
    };
    const firstIndexes = [
      `${before.credentialStatus.statusListCredential}#${before.credentialStatus.statusListIndex}`,
      ...(await indexes(first)),
    ];
    await first.call('POST', '/durable/credentials/status', {
      credentialId: before.id,
      credentialStatus: { type: 'StatusList2021Entry', status: 'true' },
    });
    await first.server.stop();
    const second = await start({
      dataDir: dir.path,
      storage: { type: 'lmdb' },
      keyStorage: { type: 'lmdb' },
      externalUrl: first.url,
    });
    const after = await issue(second, 'durable', credentialV1());
    const secondIndexes = [
      `${after.credentialStatus.statusListCredential}#${after.credentialStatus.statusListIndex}`,
      ...(await indexes(second)),
    ];
    expect(new Set([...firstIndexes, ...secondIndexes]).size).toBe(firstIndexes.length + secondIndexes.length);
    expect(
      (
        await second.call('POST', '/verifier/credentials', {
          verifiableCredential: after,
          options: { checks: ['proof', 'status'] },
        })
      ).status,
    ).toBe(200);
    const revoked = await second.call('POST', '/verifier/credentials', {
      verifiableCredential: before,
      options: { checks: ['proof', 'status'] },
    });
    expect(revoked.body.checks).toEqual([{ check: 'status', error: 'Revoked' }]);
    await dir.remove();
  });
});
