/**
 * The common KmsClient and kmsSigner against the real kms process: every operation family with its wire
 * form (padded base64url, trustbloc/kms's wrap key objects), both ways into a keystore (capability token,
 * HTTP signature by the controller), the error mapping, and a signer that refuses a rotated key.
 */
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { AppError } from '@anchor/common/errors';
import { KmsClient, kmsSigner, type KmsKeystore } from '@anchor/common/clients';
import { KeyPair } from '@anchor/common/crypto';
import { didKeyFromKeyPair } from '@anchor/common/did';
import { peerStatusOf } from '@anchor/common/http-client';
import { createRequestSigner } from '@anchor/common/httpsig';
import { makeTempDir, stopAllProcesses, type TempDir } from '@anchor/testing/process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKeystore, startKms, type RunningKms } from './kms.test-helpers.js';

async function failureOf(promise: Promise<unknown>): Promise<AppError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(AppError);
    return error as AppError;
  }
  throw new Error('expected a failure');
}

describe('KmsClient against the kms service', () => {
  let dir: TempDir;
  let kms: RunningKms;
  let keystore: KmsKeystore;

  beforeAll(async () => {
    dir = await makeTempDir('kms-client-');
    kms = await startKms(dir);
    const created = await createKeystore(kms);
    keystore = kms.client.keystore(created.id, { capability: created.capability });
  });

  afterAll(async () => {
    kms?.client.close();
    await stopAllProcesses();
    await dir?.remove();
  });

  it('creates Ed25519 and P-256 keys whose signers sign as local keys of those types would verify', async () => {
    for (const [kmsType, type] of [
      ['ED25519', 'Ed25519'],
      ['ECDSAP256IEEEP1363', 'P-256'],
      ['ECDSAP256DER', 'P-256'],
    ] as const) {
      const key = await keystore.createKey(kmsType, { export: true });
      const signer = await kmsSigner(keystore, key.keyId);
      expect(signer.type).toBe(type);
      expect(signer.keyRef).toBe(`${keystore.url}/keys/${encodeURIComponent(key.keyId)}#v1`);
      const data = randomBytes(100);
      const signature = Buffer.from(await signer.sign(data));
      expect(signer.publicKey.verify(data, signature), kmsType).toBe(true);
      expect(await signer.health()).toBe('success');
      expect(await keystore.verify(key.keyId, (await keystore.sign(key.keyId, data)).value, data)).toBe(true);
      expect(await keystore.verify(key.keyId, (await keystore.sign(key.keyId, data)).value, randomBytes(100))).toBe(
        false,
      );
      // A batch is signed on the kms's worker threads: each signature verifies for its own message only (in the
      // kms's own form, as /sign answers: DER for ECDSAP256DER, so the kms checks them).
      const batch = Array.from({ length: 40 }, () => randomBytes(50));
      const { value: signatures, keyVersion } = await keystore.signBatch(key.keyId, batch);
      expect(keyVersion).toBe(1);
      const checked = await Promise.all(signatures.map((s, i) => keystore.verify(key.keyId, s, batch[i] as Buffer)));
      expect(checked, kmsType).toEqual(batch.map(() => true));
      expect(await keystore.verify(key.keyId, signatures[0] as Buffer, batch[1] as Buffer)).toBe(false);
    }
  });

  it('encrypts and decrypts with associated data, and computes and verifies MACs', async () => {
    const aes = await keystore.createKey('AES256GCM');
    const aad = Buffer.from('record-1');
    const sealed = await keystore.encrypt(aes.keyId, Buffer.from('secret'), aad);
    expect((await keystore.decrypt(aes.keyId, sealed.cipherText, sealed.nonce, aad)).toString()).toBe('secret');
    const refused = await failureOf(keystore.decrypt(aes.keyId, sealed.cipherText, sealed.nonce, Buffer.from('x')));
    expect(refused.status).toBe(400);

    const hmac = await keystore.createKey('HMACSHA256Tag256');
    const { value: mac } = await keystore.computeMac(hmac.keyId, Buffer.from('data'));
    expect(await keystore.verifyMac(hmac.keyId, mac, Buffer.from('data'))).toBe(true);
    expect(await keystore.verifyMac(hmac.keyId, mac, Buffer.from('other'))).toBe(false);
  });

  it('wraps a content key for a NIST P-256 and an X25519 recipient in the keystore, which unwraps it', async () => {
    for (const keyType of ['NISTP256ECDHKW', 'X25519ECDHKW'] as const) {
      const recipient = await keystore.createKey(keyType);
      const exported = await keystore.exportPublicKey(recipient.keyId);
      // trustbloc/kms exports ECDH-KW keys as JSON {kid, x, y, curve, type} with base64 coordinates.
      const jwk = JSON.parse(exported.publicKey.toString('utf8')) as {
        kid?: string;
        x: string;
        y?: string;
        curve: string;
        type: string;
      };
      const cek = randomBytes(32);
      const wrapped = await keystore.wrap({
        cek,
        apu: Buffer.from('sender'),
        apv: Buffer.from('recipient'),
        recipient: {
          ...(jwk.kid !== undefined ? { kid: jwk.kid } : {}),
          x: Buffer.from(jwk.x, 'base64'),
          ...(jwk.y ? { y: Buffer.from(jwk.y, 'base64') } : {}),
          curve: jwk.curve,
          type: jwk.type,
        },
      });
      expect(wrapped.epk.curve).toBe(jwk.curve);
      expect(await keystore.unwrap(recipient.keyId, wrapped), keyType).toEqual(cek);
    }
  });

  it('maps refusals to the common errors: unknown key 404, another keystore 404, wrong capability 401', async () => {
    const key = await keystore.createKey('ED25519');
    expect(peerStatusOf(await failureOf(keystore.exportPublicKey('no-such-key')))).toBe(404);
    const other = await createKeystore(kms);
    const otherKeystore = kms.client.keystore(other.id, { capability: other.capability });
    const crossed = await failureOf(otherKeystore.sign(key.keyId, Buffer.from('x')));
    expect([crossed.code, crossed.retryable]).toEqual(['not_found', false]);
    expect(crossed.message).toMatch(/^kms: POST /);
    const wrongToken = kms.client.keystore(keystore.id, { capability: other.capability });
    expect((await failureOf(wrongToken.sign(key.keyId, Buffer.from('x')))).code).toBe('unauthorized');
  });

  it("opens a keystore with HTTP signatures by its controller's key instead of the capability", async () => {
    const controllerKey = KeyPair.generate('Ed25519');
    const controller = didKeyFromKeyPair(controllerKey);
    const created = await kms.client.createKeystore({ controller });
    const fragment = controller.slice('did:key:'.length);
    const signing = new KmsClient({
      url: kms.url,
      requestSigner: createRequestSigner({ keyId: `${controller}#${fragment}`, key: controllerKey }),
    });
    try {
      const signed = signing.keystore(created.id);
      const key = await signed.createKey('ED25519');
      const signer = await kmsSigner(signed, key.keyId);
      const data = Buffer.from('signed request');
      expect(signer.publicKey.verify(data, Buffer.from(await signer.sign(data)))).toBe(true);
      // Another controller's signature does not open it.
      const stranger = KeyPair.generate('Ed25519');
      const strangerDid = didKeyFromKeyPair(stranger);
      const refused = new KmsClient({
        url: kms.url,
        requestSigner: createRequestSigner({
          keyId: `${strangerDid}#${strangerDid.slice('did:key:'.length)}`,
          key: stranger,
        }),
      });
      try {
        expect(peerStatusOf(await failureOf(refused.keystore(created.id).info()))).toBe(403);
      } finally {
        refused.close();
      }
    } finally {
      signing.close();
    }
  });

  it('imports a PKCS#8 key, and a signer refuses to sign once its key was rotated', async () => {
    const { privateKey } = generateKeyPairSync('ed25519');
    const imported = await keystore.importKey(
      'ED25519',
      privateKey.export({ format: 'der', type: 'pkcs8' }),
      'imported-key',
    );
    expect(imported.keyId).toBe('imported-key');
    const signer = await kmsSigner(keystore, imported.keyId);
    const local = KeyPair.fromKeyObject(privateKey);
    expect(signer.publicKey.publicKeyBytes()).toEqual(local.publicKeyBytes());

    const rotated = await keystore.rotateKey(imported.keyId);
    expect(rotated.keyVersion).toBe(2);
    const refused = await failureOf(signer.sign(Buffer.from('after rotation')));
    expect(refused.code).toBe('conflict');
    expect(await signer.health()).toMatch(/was rotated \(version 2\)/);
    const fresh = await kmsSigner(keystore, imported.keyId);
    expect(fresh.keyVersion).toBe(2);
    const data = Buffer.from('new version');
    expect(fresh.publicKey.verify(data, Buffer.from(await fresh.sign(data)))).toBe(true);
  });
});
