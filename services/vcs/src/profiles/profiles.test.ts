import { KeyPair } from '@anchor/common/crypto';
import { didKeyFromKeyPair } from '@anchor/common/did';
import { base58Encode } from '@anchor/common/encoding';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestVcs, type TestVcs } from '../vcs.test-helpers.js';

describe('profiles', () => {
  let vcs: TestVcs;
  beforeAll(async () => {
    vcs = await startTestVcs();
  });
  afterAll(async () => vcs?.stop());

  it('creates an issuer profile with a did:key, reads it, refuses the name twice (409) and deletes it', async () => {
    const created = await vcs.call('POST', '/profile', {
      name: 'uni',
      uri: 'https://example.edu',
      signatureType: 'Ed25519Signature2020',
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      name: 'uni',
      uri: 'https://example.edu',
      signatureType: 'Ed25519Signature2020',
      signatureRepresentation: 0,
      didKeyType: 'Ed25519',
      disableVCStatus: false,
      overwriteIssuer: false,
    });
    expect(created.body.did).toMatch(/^did:key:z6Mk/);
    expect(created.body.creator).toBe(`${created.body.did}#${created.body.did.slice('did:key:'.length)}`);
    expect(created.body).not.toHaveProperty('keyRef');
    expect((await vcs.call('GET', '/profile/uni')).body).toEqual(created.body);
    const again = await vcs.call('POST', '/profile', {
      name: 'uni',
      uri: 'https://example.edu',
      signatureType: 'Ed25519Signature2020',
    });
    expect(again.status).toBe(409);
    expect(again.body.message).toBe('profile uni already exists');
    expect((await vcs.call('DELETE', '/profile/uni')).status).toBe(200);
    expect((await vcs.call('GET', '/profile/uni')).status).toBe(404);
    expect((await vcs.call('DELETE', '/profile/uni')).status).toBe(404);
  });

  it('answers 404 for a missing profile, issuer or holder', async () => {
    expect(await vcs.call('GET', '/profile/nobody')).toMatchObject({
      status: 404,
      body: { message: 'issuer profile nobody not found' },
    });
    expect(await vcs.call('GET', '/holder/profile/nobody')).toMatchObject({
      status: 404,
      body: { message: 'holder profile nobody not found' },
    });
  });

  it.each([
    [{ uri: 'https://x', signatureType: 'Ed25519Signature2020' }, /name/],
    [{ name: 'a', signatureType: 'Ed25519Signature2020' }, /uri/],
    [{ name: 'a', uri: 'https://x' }, /signatureType/],
    [{ name: 'a', uri: 'not a uri', signatureType: 'Ed25519Signature2020' }, /uri/],
    [{ name: 'a', uri: 'https://x', signatureType: 'RsaSignature2018' }, /signatureType/],
    [{ name: 'a/b', uri: 'https://x', signatureType: 'Ed25519Signature2020' }, /name/],
    [
      { name: 'a', uri: 'https://x', signatureType: 'Ed25519Signature2020', didKeyType: 'P256' },
      /didKeyType P256 cannot sign Ed25519Signature2020/,
    ],
    [
      { name: 'a', uri: 'https://x', signatureType: 'ecdsa-rdfc-2019', didKeyType: 'Ed25519' },
      /cannot sign ecdsa-rdfc-2019/,
    ],
    [
      { name: 'a', uri: 'https://x', signatureType: 'Ed25519Signature2020', signatureRepresentation: 1 },
      /signatureRepresentation 1 \(jws\) is not available/,
    ],
    [
      { name: 'a', uri: 'https://x', signatureType: 'Ed25519Signature2020', signatureRepresentation: 7 },
      /signatureRepresentation/,
    ],
    [
      {
        name: 'a',
        uri: 'https://x',
        signatureType: 'Ed25519Signature2020',
        did: 'did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK',
      },
      /didKeyID is required/,
    ],
  ])('refuses a bad issuer profile %j with 400', async (body, message) => {
    const reply = await vcs.call('POST', '/profile', body);
    expect(reply.status).toBe(400);
    expect(reply.body.message).toMatch(message);
  });

  it('adopts an existing DID whose key it is given, and refuses a key that is not the DID key', async () => {
    const key = KeyPair.generate('Ed25519');
    const did = didKeyFromKeyPair(key);
    const keyId = `${did}#${did.slice('did:key:'.length)}`;
    const seed = Buffer.from(key.privateJwk().d as string, 'base64url');
    const adopted = await vcs.call('POST', '/profile', {
      name: 'adopted',
      uri: 'https://x',
      signatureType: 'Ed25519Signature2018',
      did,
      didKeyID: keyId,
      didPrivateKey: base58Encode(seed),
    });
    expect(adopted.status).toBe(201);
    expect(adopted.body).toMatchObject({ did, creator: keyId, signatureRepresentation: 1 });

    const other = Buffer.from(KeyPair.generate('Ed25519').privateJwk().d as string, 'base64url');
    const wrong = await vcs.call('POST', '/profile', {
      name: 'wrong',
      uri: 'https://x',
      signatureType: 'Ed25519Signature2018',
      did,
      didKeyID: keyId,
      didPrivateKey: base58Encode(other),
    });
    expect(wrong.status).toBe(400);
    expect(wrong.body.message).toMatch(/didPrivateKey is not the private key of/);
    const missing = await vcs.call('POST', '/profile', {
      name: 'missing',
      uri: 'https://x',
      signatureType: 'Ed25519Signature2018',
      did,
      didKeyID: `${did}#nope`,
      didPrivateKey: base58Encode(seed),
    });
    expect(missing.status).toBe(400);
    expect(missing.body.message).toMatch(/has no verification method/);
    const unresolvable = await vcs.call('POST', '/profile', {
      name: 'unres',
      uri: 'https://x',
      signatureType: 'Ed25519Signature2018',
      did: 'did:key:zBad',
      didKeyID: 'did:key:zBad#zBad',
      didPrivateKey: base58Encode(seed),
    });
    expect(unresolvable.status).toBe(400);
    expect(unresolvable.body.message).toMatch(/does not resolve/);
  });

  it('creates P-256 keys for JsonWebSignature2020 and ecdsa-rdfc-2019', async () => {
    const jws = await vcs.call('POST', '/profile', {
      name: 'jws-p256',
      uri: 'https://x',
      signatureType: 'JsonWebSignature2020',
      didKeyType: 'P256',
    });
    expect(jws.status).toBe(201);
    expect(jws.body).toMatchObject({ didKeyType: 'P-256', signatureRepresentation: 1 });
    expect(jws.body.did).toMatch(/^did:key:zDn/);
    const ecdsa = await vcs.call('POST', '/profile', {
      name: 'ecdsa',
      uri: 'https://x',
      signatureType: 'ecdsa-rdfc-2019',
    });
    expect(ecdsa.body).toMatchObject({ didKeyType: 'P-256', signatureRepresentation: 0 });
  });

  it('keeps holder profiles apart from issuer profiles', async () => {
    const created = await vcs.call('POST', '/holder/profile', {
      name: 'wallet',
      signatureType: 'Ed25519Signature2020',
      overwriteHolder: true,
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ name: 'wallet', overwriteHolder: true });
    expect(created.body).not.toHaveProperty('disableVCStatus');
    expect((await vcs.call('GET', '/profile/wallet')).status).toBe(404);
    expect(
      (await vcs.call('POST', '/holder/profile', { name: 'wallet', signatureType: 'Ed25519Signature2020' })).status,
    ).toBe(409);
    expect((await vcs.call('POST', '/holder/profile', { signatureType: 'Ed25519Signature2020' })).status).toBe(400);
    expect((await vcs.call('DELETE', '/holder/profile/wallet')).status).toBe(200);
    expect((await vcs.call('GET', '/holder/profile/wallet')).status).toBe(404);
  });
});
