import { createCipheriv, createHmac, generateKeyPairSync, randomBytes } from 'node:crypto';
import { makeTempDir, type TempDir } from '@anchor/testing/process';
import nacl from 'tweetnacl';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type KmsServer } from '../src/server.js';
import { MAX_SIGN_BATCH } from '../src/api/schemas.js';
import { b64, call, Controller, unb64, type Reply } from './kms.test-helpers.js';

interface Keystore {
  id: string;
  capability: string;
  location: string;
}
interface CreatedKey {
  keyID: string;
  location: string;
  keyVersion: number;
  publicKey?: string;
}

describe('kms API', () => {
  let dir: TempDir;
  let server: KmsServer;
  let base: string;
  const alice = new Controller();
  const mallory = new Controller();
  let ks: Keystore;
  let other: Keystore;

  const newKeystore = async (controller: string): Promise<Keystore> => {
    const created = await call<Keystore>(`${base}/v1/keystores`, { json: { controller } });
    expect(created.status).toBe(201);
    expect(created.headers.get('location')).toBe(created.body.location);
    return created.body;
  };
  const post = <T = Record<string, unknown>>(url: string, json: unknown, token = ks.capability): Promise<Reply<T>> =>
    call<T>(url, { json, token });
  const newKey = async (keyType: string, keystore = ks): Promise<CreatedKey> => {
    const created = await post<CreatedKey>(`${keystore.location}/keys`, { keyType, export: true }, keystore.capability);
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    return created.body;
  };
  const expect400 = (reply: Reply, message: RegExp): void => {
    expect(reply.status, JSON.stringify(reply.body)).toBe(400);
    expect(String(reply.body.message)).toMatch(message);
  };

  beforeAll(async () => {
    dir = await makeTempDir('kms-api-');
    server = createServer({
      dataDir: dir.path,
      storage: { type: 'mem' },
      devMode: true,
      bbsWorkers: 0,
      signWorkers: 0,
    });
    await server.start();
    base = server.url;
    ks = await newKeystore(alice.did);
    other = await newKeystore(mallory.did);
  });

  afterAll(async () => {
    await server?.stop();
    await dir?.remove();
  });

  describe('keystores', () => {
    it('are created for a controller DID, with Location and a capability shown once', async () => {
      expect(ks.location).toBe(`${base}/v1/keystores/${ks.id}`);
      expect(ks.capability).toMatch(/^[A-Za-z0-9_-]{43}$/);
      const got = await call(ks.location, { token: ks.capability });
      expect(got.status).toBe(200);
      expect(got.body).toEqual({ id: ks.id, controller: alice.did, createdAt: expect.any(String) });
      expect(JSON.stringify(got.body)).not.toContain(ks.capability);
    });

    it('refuse a body without a DID controller', async () => {
      expect400(await call(`${base}/v1/keystores`, { json: {} }), /\/controller is required/);
      expect400(await call(`${base}/v1/keystores`, { json: { controller: 'alice' } }), /controller: a DID expected/);
      expect400(await call(`${base}/v1/keystores`, { json: { controller: 7 } }), /\/controller must be a string/);
      expect400(
        await call(`${base}/v1/keystores`, { json: { controller: 'did:key:z6Mkxyz' } }),
        /controller: not a usable did:key/,
      );
      expect400(await call(`${base}/v1/keystores`, { body: '{"controller":' }), /JSON/);
    });

    it('answer 404 for an unknown keystore, with or without credentials', async () => {
      const missing = `${base}/v1/keystores/AAAAAAAAAAAAAAAAAAAA`;
      expect((await call(missing, { token: ks.capability })).status).toBe(404);
      expect((await post(`${missing}/keys`, { keyType: 'ED25519' })).status).toBe(404);
      expect((await post(`${missing}/keys/x/sign`, { message: b64('m') })).status).toBe(404);
    });
  });

  describe('authorisation', () => {
    let key: CreatedKey;
    beforeAll(async () => {
      key = await newKey('ED25519');
    });
    const sign = (headers: Record<string, string> = {}) =>
      call(`${key.location}/sign`, { json: { message: b64('m') }, headers });

    it('refuses a request without credentials (401)', async () => {
      const reply = await sign();
      expect(reply.status).toBe(401);
      expect(reply.headers.get('www-authenticate')).toBe('Bearer');
      expect((await call(ks.location)).status).toBe(401);
    });

    it("refuses another keystore's capability (401)", async () => {
      const reply = await sign({ authorization: `Bearer ${other.capability}` });
      expect(reply.status).toBe(401);
      expect(reply.body.message).toMatch(/not the capability of keystore/);
    });

    it('refuses a valid signature by a DID that is not the controller (403)', async () => {
      const reply = await mallory.call(`${key.location}/sign`, { message: b64('m') });
      expect(reply.status).toBe(403);
      expect(reply.body.message).toBe(`${mallory.did} does not control keystore ${ks.id}`);
    });

    it("accepts the controller's signature and the capability", async () => {
      expect((await alice.call(`${key.location}/sign`, { message: b64('m') })).status).toBe(200);
      expect((await alice.call(`${key.location}`)).status).toBe(200);
      const { privateKey } = generateKeyPairSync('ed25519');
      const importedBySignature = await alice.call(
        `${ks.location}/keys`,
        { keyType: 'ED25519', keyBytes: b64(privateKey.export({ format: 'der', type: 'pkcs8' })) },
        'PUT',
      );
      expect(importedBySignature.status, JSON.stringify(importedBySignature.body)).toBe(201);
      expect(
        (
          await mallory.call(
            `${ks.location}/keys`,
            { keyType: 'ED25519', keyBytes: b64(privateKey.export({ format: 'der', type: 'pkcs8' })) },
            'PUT',
          )
        ).status,
      ).toBe(403);
      expect((await sign({ authorization: `Bearer ${ks.capability}` })).status).toBe(200);
    });

    it("answers 404 for a key id of another keystore, even to that keystore's owner", async () => {
      const theirs = await newKey('ED25519', other);
      const crossed = `${ks.location}/keys/${theirs.keyID}`;
      expect((await post(`${crossed}/sign`, { message: b64('m') })).status).toBe(404);
      expect((await post(`${crossed}/sign`, { message: b64('m') }, other.capability)).status).toBe(401);
      expect((await call(crossed, { token: ks.capability })).status).toBe(404);
    });

    it('refuses a signature that does not verify (401)', async () => {
      const headers = {
        'content-type': 'application/json',
        date: new Date().toUTCString(),
        signature: `keyId="${alice.keyId}",algorithm="Sign",headers="(request-target) date",signature="${Buffer.alloc(64).toString('base64')}"`,
      };
      const reply = await call(`${key.location}/sign`, { body: JSON.stringify({ message: b64('m') }), headers });
      expect(reply.status).toBe(401);
    });
  });

  describe('keys', () => {
    it('are created for every key type of aries that is sound', async () => {
      const types = [
        'ED25519',
        'ECDSAP256DER',
        'ECDSAP384DER',
        'ECDSAP521DER',
        'ECDSAP256IEEEP1363',
        'ECDSAP384IEEEP1363',
        'ECDSAP521IEEEP1363',
        'ECDSASecp256k1DER',
        'ECDSASecp256k1IEEEP1363',
        'AES128GCM',
        'AES256GCM',
        'AES256GCMNoPrefix',
        'ChaCha20Poly1305',
        'XChaCha20Poly1305',
        'HMACSHA256Tag256',
        'NISTP256ECDHKW',
        'NISTP384ECDHKW',
        'NISTP521ECDHKW',
        'X25519ECDHKW',
        'BLS12381G2',
      ];
      const created = await Promise.all(types.map((keyType) => post<CreatedKey>(`${ks.location}/keys`, { keyType })));
      for (const [i, reply] of created.entries()) {
        expect(reply.status, types[i]).toBe(201);
        expect(reply.headers.get('location')).toBe(reply.body.location);
        expect(reply.body.location).toBe(`${ks.location}/keys/${reply.body.keyID}`);
        expect(reply.body.keyVersion).toBe(1);
        expect(reply.body.publicKey).toBeUndefined();
      }
    });

    it('refuse an unknown key type, a missing one and a non-boolean export', async () => {
      expect400(await post(`${ks.location}/keys`, { keyType: 'RSARS256' }), /\/keyType must be one of ED25519, /);
      expect400(await post(`${ks.location}/keys`, {}), /\/keyType is required/);
      expect400(await post(`${ks.location}/keys`, { keyType: 'ED25519', export: 'yes' }), /\/export must be a boolean/);
      expect400(await call(`${ks.location}/keys`, { token: ks.capability, body: '' }), /body/);
    });

    it("export the public key in aries' encoding, at both paths", async () => {
      const ed = await newKey('ED25519');
      const p256 = await newKey('ECDSAP256IEEEP1363');
      const der = await newKey('ECDSAP256DER');
      for (const [key, length] of [
        [ed, 32],
        [p256, 65],
      ] as const) {
        const exported = await call<{ publicKey: string; keyVersion: number }>(key.location, { token: ks.capability });
        expect(exported.status).toBe(200);
        expect(unb64(exported.body.publicKey)).toHaveLength(length);
        expect(exported.body.publicKey).toBe(key.publicKey);
        expect((await call(`${key.location}/export`, { token: ks.capability })).body).toEqual(exported.body);
      }
      expect(unb64(der.publicKey as string)[0]).toBe(0x30);
      const aes = await newKey('AES256GCM');
      expect(aes.publicKey).toBeUndefined();
      expect400(await call(aes.location, { token: ks.capability }), /symmetric and has no public key/);
      expect((await call(`${ks.location}/keys/nope`, { token: ks.capability })).status).toBe(404);
      expect((await call(`${ed.location}?keyVersion=2`, { token: ks.capability })).status).toBe(404);
      expect400(await call(`${ed.location}?keyVersion=0`, { token: ks.capability }), /keyVersion/);
      // One query rule for every service: a repeated parameter is refused, never read as its first value.
      expect400(
        await call(`${ed.location}?keyVersion=1&keyVersion=2`, { token: ks.capability }),
        /^query parameter 'keyVersion' is given more than once$/,
      );
      expect400(
        await call(`${ed.location}/export?keyVersion=1&keyVersion=1`, { token: ks.capability }),
        /'keyVersion' is given more than once/,
      );
    });

    it('import a PKCS#8 private key under a chosen key id (PUT), refusing a taken id and bad bytes', async () => {
      const { privateKey, publicKey } = generateKeyPairSync('ed25519');
      const pkcs8 = privateKey.export({ format: 'der', type: 'pkcs8' });
      const imported = await call<CreatedKey>(`${ks.location}/keys`, {
        method: 'PUT',
        json: { keyType: 'ED25519', keyBytes: b64(pkcs8), keyID: 'imported-1' },
        token: ks.capability,
      });
      expect(imported.status, JSON.stringify(imported.body)).toBe(201);
      expect(imported.body.location).toBe(`${ks.location}/keys/imported-1`);
      expect(imported.headers.get('location')).toBe(imported.body.location);
      const exported = await call<{ publicKey: string }>(imported.body.location, { token: ks.capability });
      expect(unb64(exported.body.publicKey)).toEqual(publicKey.export({ format: 'der', type: 'spki' }).subarray(-32));
      const again = await call(`${ks.location}/keys`, {
        method: 'PUT',
        json: { keyType: 'ED25519', keyBytes: b64(pkcs8), keyID: 'imported-1' },
        token: ks.capability,
      });
      expect(again.status).toBe(409);
      const put = (json: unknown) => call(`${ks.location}/keys`, { method: 'PUT', json, token: ks.capability });
      expect400(
        await put({ keyType: 'ED25519', keyBytes: b64(pkcs8.subarray(1)).replace(/=+$/, '') }),
        /keyBytes: not base64url with padding/,
      );
      expect400(await put({ keyType: 'ED25519', keyBytes: b64('not a key') }), /not a PKCS#8/);
      expect400(await put({ keyType: 'ED25519', keyBytes: b64(pkcs8), keyID: 'a/b' }), /\/keyID must match/);
      expect400(await put({ keyBytes: b64(pkcs8) }), /\/keyType is required/);
      expect400(await put({ keyType: 'ED25519' }), /keyBytes .* or jwk/);
      expect400(await put({ keyType: 'ED25519', keyBytes: b64(pkcs8), jwk: {} }), /keyBytes .* or jwk/);
      const ecKey = generateKeyPairSync('ec', { namedCurve: 'P-256' });
      const jwk = ecKey.privateKey.export({ format: 'jwk' });
      const fromJwk = await put({ keyType: 'ECDSAP256IEEEP1363', jwk });
      expect(fromJwk.status, JSON.stringify(fromJwk.body)).toBe(201);
      const point = await call<{ publicKey: string }>(String(fromJwk.body.location), { token: ks.capability });
      expect(unb64(point.body.publicKey).subarray(1, 33)).toEqual(Buffer.from(jwk.x as string, 'base64url'));
      expect400(await put({ keyType: 'ECDSAP256IEEEP1363', jwk: { ...jwk, crv: 'P-384' } }), /crv/);
      expect(
        (await call(`${ks.location}/keys`, { method: 'PUT', json: { keyType: 'ED25519', keyBytes: b64(pkcs8) } }))
          .status,
      ).toBe(401);
    });
  });

  describe('sign and verify', () => {
    it('answer verified false for a wrong signature and 400 for a malformed body', async () => {
      for (const keyType of ['ED25519', 'ECDSAP256DER', 'ECDSAP384IEEEP1363', 'ECDSASecp256k1IEEEP1363']) {
        const key = await newKey(keyType);
        const signed = await post<{ signature: string; keyVersion: number }>(`${key.location}/sign`, {
          message: b64('hello'),
        });
        expect(signed.status, keyType).toBe(200);
        const check = (message: string, signature: string) =>
          post(`${key.location}/verify`, { message: b64(message), signature });
        expect((await check('hello', signed.body.signature)).body).toEqual({ verified: true });
        expect((await check('hellO', signed.body.signature)).body).toEqual({ verified: false });
        expect((await check('hello', b64(Buffer.alloc(3)))).body).toEqual({ verified: false });
      }
      const key = await newKey('ED25519');
      expect400(await post(`${key.location}/sign`, {}), /\/message is required/);
      expect400(await post(`${key.location}/sign`, { message: 'aGk' }), /message: not base64url with padding/);
      expect400(await post(`${key.location}/sign`, { message: 'a+8=' }), /message: not base64url with padding/);
      expect400(await post(`${key.location}/verify`, { message: b64('m') }), /\/signature is required/);
      expect400(
        await post(`${key.location}/verify`, { message: b64('m'), signature: 5 }),
        /\/signature must be a string/,
      );
      const aes = await newKey('AES256GCM');
      expect400(await post(`${aes.location}/sign`, { message: b64('m') }), /./);
    });

    it('signbatch signs each message on its own, in order, as /sign does', async () => {
      for (const keyType of ['ED25519', 'ECDSAP256DER']) {
        const key = await newKey(keyType);
        const messages = ['one', 'two', '', 'four'].map((m) => b64(m));
        const batch = await post<{ signatures: string[]; keyVersion: number }>(`${key.location}/signbatch`, {
          messages,
        });
        expect(batch.status, keyType).toBe(200);
        expect(batch.body.keyVersion).toBe(1);
        expect(batch.body.signatures).toHaveLength(4);
        for (const [i, message] of messages.entries()) {
          const check = await post(`${key.location}/verify`, { message, signature: batch.body.signatures[i] });
          expect(check.body, `${keyType} message ${i}`).toEqual({ verified: true });
        }
        // Each signature is over its own message: the second does not verify the first.
        const crossed = await post(`${key.location}/verify`, {
          message: messages[0],
          signature: batch.body.signatures[1],
        });
        expect(crossed.body).toEqual({ verified: false });
      }
      const key = await newKey('ED25519');
      // Ed25519 is deterministic: a batch's signature is the single route's, byte for byte.
      const single = await post<{ signature: string }>(`${key.location}/sign`, { message: b64('same') });
      const batch = await post<{ signatures: string[] }>(`${key.location}/signbatch`, { messages: [b64('same')] });
      expect(batch.body.signatures).toEqual([single.body.signature]);
      const rotated = await post<{ keyVersion: number }>(`${key.location}/rotate`, {});
      const afterRotation = await post<{ keyVersion: number }>(`${key.location}/signbatch`, { messages: [b64('m')] });
      expect(afterRotation.body.keyVersion).toBe(rotated.body.keyVersion);
    });

    it('signbatch refuses an empty batch, too many messages and a bad item with 400, signing nothing', async () => {
      const key = await newKey('ED25519');
      const url = `${key.location}/signbatch`;
      expect400(await post(url, {}), /\/messages is required/);
      expect400(await post(url, { messages: [] }), /\/messages must NOT have fewer than 1 items/);
      expect400(
        await post(url, { messages: Array.from({ length: MAX_SIGN_BATCH + 1 }, () => b64('m')) }),
        new RegExp(`/messages must NOT have more than ${MAX_SIGN_BATCH} items`),
      );
      const full = await post<{ signatures: string[] }>(url, {
        messages: Array.from({ length: MAX_SIGN_BATCH }, (_, i) => b64(`m${i}`)),
      });
      expect(full.status).toBe(200);
      expect(full.body.signatures).toHaveLength(MAX_SIGN_BATCH);
      expect400(
        await post(url, { messages: [b64('a'), 'aGk', b64('c')] }),
        /messages\[1\]: not base64url with padding/,
      );
      expect400(await post(url, { messages: [b64('a'), 7] }), /\/messages\/1 must be a string/);
      expect400(await post(url, { messages: b64('a') }), /\/messages must be an array/);
      const aes = await newKey('AES256GCM');
      expect400(await post(`${aes.location}/signbatch`, { messages: [b64('m')] }), /./);
      const missing = `${key.location}x/signbatch`;
      expect((await post(missing, { messages: [b64('m')] })).status).toBe(404);
      expect((await call(url, { json: { messages: [b64('m')] } })).status).toBe(401);
    });
  });

  describe('encrypt and decrypt', () => {
    it('round-trip with associated data for every AEAD type, and refuse tampering with 400', async () => {
      for (const keyType of ['AES128GCM', 'AES256GCM', 'AES256GCMNoPrefix', 'ChaCha20Poly1305', 'XChaCha20Poly1305']) {
        const key = await newKey(keyType);
        const sealed = await post<{ cipherText: string; nonce: string; keyVersion: number }>(
          `${key.location}/encrypt`,
          { message: b64('secret'), aad: b64('aad') },
        );
        expect(sealed.status, keyType).toBe(200);
        expect(unb64(sealed.body.nonce)).toHaveLength(keyType === 'XChaCha20Poly1305' ? 24 : 12);
        const opened = await post<{ plainText: string }>(`${key.location}/decrypt`, {
          ...sealed.body,
          aad: b64('aad'),
        });
        expect(opened.status, keyType).toBe(200);
        expect(unb64(opened.body.plainText).toString()).toBe('secret');
        expect400(await post(`${key.location}/decrypt`, { ...sealed.body, aad: b64('other') }), /./);
        const flipped = unb64(sealed.body.cipherText);
        flipped[0] = (flipped[0] as number) ^ 1;
        expect400(
          await post(`${key.location}/decrypt`, { ...sealed.body, cipherText: b64(flipped), aad: b64('aad') }),
          /./,
        );
        expect400(
          await post(`${key.location}/decrypt`, { ...sealed.body, nonce: b64(Buffer.alloc(5)), aad: b64('aad') }),
          /nonce/,
        );
      }
    });

    it('decrypt what AES-256-GCM made elsewhere with an imported raw key', async () => {
      const raw = randomBytes(32);
      const imported = await call<CreatedKey>(`${ks.location}/keys`, {
        method: 'PUT',
        json: { keyType: 'AES256GCMNoPrefix', keyBytes: b64(raw) },
        token: ks.capability,
      });
      expect(imported.status, JSON.stringify(imported.body)).toBe(201);
      const nonce = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', raw, nonce).setAAD(Buffer.from('a'));
      const cipherText = Buffer.concat([cipher.update('outside'), cipher.final(), cipher.getAuthTag()]);
      const opened = await post<{ plainText: string }>(`${imported.body.location}/decrypt`, {
        cipherText: b64(cipherText),
        nonce: b64(nonce),
        aad: b64('a'),
      });
      expect(unb64(opened.body.plainText).toString()).toBe('outside');
    });

    it('refuse missing fields and operations the key type does not allow', async () => {
      const key = await newKey('AES256GCM');
      expect400(await post(`${key.location}/encrypt`, {}), /\/message is required/);
      expect400(await post(`${key.location}/decrypt`, { cipherText: b64('x') }), /\/nonce is required/);
      const ed = await newKey('ED25519');
      expect400(await post(`${ed.location}/encrypt`, { message: b64('m') }), /./);
    });
  });

  describe('MACs', () => {
    it('compute and verify HMAC-SHA256, false for a wrong MAC', async () => {
      const raw = randomBytes(32);
      const key = await call<CreatedKey>(`${ks.location}/keys`, {
        method: 'PUT',
        json: { keyType: 'HMACSHA256Tag256', keyBytes: b64(raw) },
        token: ks.capability,
      });
      expect(key.status, JSON.stringify(key.body)).toBe(201);
      const computed = await post<{ mac: string }>(`${key.body.location}/computemac`, { data: b64('data') });
      expect(computed.status).toBe(200);
      expect(unb64(computed.body.mac).subarray(-32)).toEqual(createHmac('sha256', raw).update('data').digest());
      expect(
        (await post(`${key.body.location}/verifymac`, { mac: computed.body.mac, data: b64('data') })).body,
      ).toEqual({ verified: true });
      expect(
        (await post(`${key.body.location}/verifymac`, { mac: computed.body.mac, data: b64('dat4') })).body,
      ).toEqual({ verified: false });
      expect400(await post(`${key.body.location}/computemac`, {}), /\/data is required/);
      expect400(await post(`${key.body.location}/verifymac`, { data: b64('d') }), /\/mac is required/);
    });
  });

  describe('NaCl box', () => {
    it('easy to an X25519 key opens with tweetnacl; easyopen and sealopen find the key by its ED25519 public key', async () => {
      const me = await newKey('ED25519');
      const them = nacl.box.keyPair();
      const nonce = randomBytes(24);
      const boxed = await post<{ cipherText: string }>(`${me.location}/easy`, {
        payload: b64('to them'),
        nonce: b64(nonce),
        theirPub: b64(them.publicKey),
      });
      expect(boxed.status, JSON.stringify(boxed.body)).toBe(200);
      const myX25519 = ed25519PublicToX25519(unb64(me.publicKey as string));
      const opened = nacl.box.open(unb64(boxed.body.cipherText), nonce, myX25519, them.secretKey);
      expect(Buffer.from(opened as Uint8Array).toString()).toBe('to them');

      const reply = nacl.box(Buffer.from('to me'), nonce, myX25519, them.secretKey);
      const easyOpened = await post<{ plainText: string }>(`${ks.location}/easyopen`, {
        cipherText: b64(reply),
        nonce: b64(nonce),
        theirPub: b64(them.publicKey),
        myPub: me.publicKey,
      });
      expect(easyOpened.status, JSON.stringify(easyOpened.body)).toBe(200);
      expect(unb64(easyOpened.body.plainText).toString()).toBe('to me');

      const sealed = sealTo(myX25519, Buffer.from('sealed'));
      const sealOpened = await post<{ plainText: string }>(`${ks.location}/sealopen`, {
        cipherText: b64(sealed),
        myPub: me.publicKey,
      });
      expect(sealOpened.status, JSON.stringify(sealOpened.body)).toBe(200);
      expect(unb64(sealOpened.body.plainText).toString()).toBe('sealed');

      const stranger = b64(nacl.sign.keyPair().publicKey);
      expect((await post(`${ks.location}/sealopen`, { cipherText: b64(sealed), myPub: stranger })).status).toBe(404);
      expect(
        (await post(`${other.location}/sealopen`, { cipherText: b64(sealed), myPub: me.publicKey }, other.capability))
          .status,
      ).toBe(404);
      expect400(await post(`${ks.location}/sealopen`, { cipherText: b64(Buffer.alloc(10)), myPub: me.publicKey }), /./);
      expect400(
        await post(`${me.location}/easy`, {
          payload: b64('x'),
          nonce: b64(Buffer.alloc(5)),
          theirPub: b64(them.publicKey),
        }),
        /nonce/,
      );
      expect400(
        await post(`${ks.location}/easyopen`, { cipherText: b64(reply), nonce: b64(nonce), myPub: me.publicKey }),
        /\/theirPub is required/,
      );
    });
  });

  describe('key wrap', () => {
    /** aries' wire form of an exported ECDH key (`{"kid","x","y","curve","type"}`, coordinates in std base64). */
    const recipientOf = (key: CreatedKey) => {
      const exported = JSON.parse(unb64(key.publicKey as string).toString()) as {
        kid?: string;
        x: string;
        y?: string;
        curve: string;
        type: string;
      };
      return {
        kid: b64(exported.kid ?? key.keyID),
        x: b64(Buffer.from(exported.x, 'base64')),
        y: b64(Buffer.from(exported.y ?? '', 'base64')),
        curve: b64(exported.curve),
        type: b64(exported.type),
      };
    };

    it('anoncrypt-wraps a CEK for NIST and X25519 keys that unwrap to it (A256KW, XC20PKW)', async () => {
      for (const [keyType, alg] of [
        ['NISTP256ECDHKW', 'ECDH-ES+A256KW'],
        ['NISTP384ECDHKW', 'ECDH-ES+A256KW'],
        ['NISTP521ECDHKW', 'ECDH-ES+A256KW'],
        ['X25519ECDHKW', 'ECDH-ES+XC20PKW'],
      ]) {
        const bob = await newKey(keyType as string, other);
        const cek = randomBytes(32);
        const wrapped = await post<{ wrappedKey: Record<string, unknown> & { alg: string } }>(`${ks.location}/wrap`, {
          cek: b64(cek),
          apu: b64('sender'),
          apv: b64('recipient'),
          recPubKey: recipientOf(bob),
          senderKID: 'ignored',
        });
        expect(wrapped.status, JSON.stringify(wrapped.body)).toBe(200);
        expect(unb64(wrapped.body.wrappedKey.alg).toString()).toBe(alg);
        const unwrapped = await post<{ key: string }>(
          `${bob.location}/unwrap`,
          { wrappedKey: wrapped.body.wrappedKey },
          other.capability,
        );
        expect(unwrapped.status, JSON.stringify(unwrapped.body)).toBe(200);
        expect(unb64(unwrapped.body.key)).toEqual(cek);
        const tampered = { ...wrapped.body.wrappedKey, apu: b64('someone else') };
        expect400(await post(`${bob.location}/unwrap`, { wrappedKey: tampered }, other.capability), /./);
      }
    });

    it('authcrypt-wraps from a keystore key (ECDH-1PU) that the recipient unwraps with the sender key', async () => {
      const alice1 = await newKey('NISTP256ECDHKW');
      const bob = await newKey('NISTP256ECDHKW', other);
      const cek = randomBytes(32);
      const wrapped = await post<{ wrappedKey: { alg: string } }>(`${alice1.location}/wrap`, {
        cek: b64(cek),
        apu: b64('a'),
        apv: b64('b'),
        recPubKey: recipientOf(bob),
        tag: b64('tag'),
      });
      expect(wrapped.status, JSON.stringify(wrapped.body)).toBe(200);
      expect(unb64(wrapped.body.wrappedKey.alg).toString()).toBe('ECDH-1PU+A256KW');
      const unwrapped = await post<{ key: string }>(
        `${bob.location}/unwrap`,
        { wrappedKey: wrapped.body.wrappedKey, senderPubKey: recipientOf(alice1), tag: b64('tag') },
        other.capability,
      );
      expect(unb64(unwrapped.body.key)).toEqual(cek);
      expect400(
        await post(
          `${bob.location}/unwrap`,
          { wrappedKey: wrapped.body.wrappedKey, tag: b64('tag') },
          other.capability,
        ),
        /senderPubKey/,
      );
      expect400(
        await post(
          `${bob.location}/unwrap`,
          { wrappedKey: wrapped.body.wrappedKey, senderPubKey: recipientOf(bob), tag: b64('tag') },
          other.capability,
        ),
        /./,
      );
    });

    it('refuses bad bodies: missing members, bad base64, a curve it does not know, a non-ECDH key', async () => {
      const bob = await newKey('NISTP256ECDHKW');
      const recipient = recipientOf(bob);
      expect400(await post(`${ks.location}/wrap`, { recPubKey: recipient }), /\/cek is required/);
      expect400(
        await post(`${ks.location}/wrap`, { cek: b64(randomBytes(32)), recPubKey: { ...recipient, x: 'AA' } }),
        /recPubKey.x: not base64url with padding/,
      );
      expect400(
        await post(`${ks.location}/wrap`, {
          cek: b64(randomBytes(32)),
          recPubKey: { ...recipient, curve: b64('P-999') },
        }),
        /recPubKey.curve/,
      );
      expect400(
        await post(`${ks.location}/wrap`, { cek: b64(randomBytes(32)), recPubKey: { x: recipient.x } }),
        /\/recPubKey\/curve is required/,
      );
      const ed = await newKey('ED25519');
      expect400(await post(`${ed.location}/wrap`, { cek: b64(randomBytes(32)), recPubKey: recipient }), /./);
      expect400(await post(`${bob.location}/unwrap`, {}), /\/wrappedKey is required/);
    });
  });

  describe('BBS', () => {
    it('signs 10 messages, verifies, derives a proof of some and verifies it; false for wrong ones', async () => {
      const key = await newKey('BLS12381G2');
      expect(unb64(key.publicKey as string)).toHaveLength(96);
      const messages = Array.from({ length: 10 }, (_, i) => b64(`message ${i}`));
      const signed = await post<{ signature: string; keyVersion: number }>(`${key.location}/signmulti`, { messages });
      expect(signed.status, JSON.stringify(signed.body)).toBe(200);
      expect(signed.body.keyVersion).toBe(1);
      const verify = (body: unknown) => post(`${key.location}/verifymulti`, body);
      expect((await verify({ signature: signed.body.signature, messages })).body).toEqual({ verified: true });
      expect(
        (await verify({ signature: signed.body.signature, messages: [...messages.slice(1), messages[0]] })).body,
      ).toEqual({ verified: false });
      const derived = await post<{ proof: string }>(`${key.location}/deriveproof`, {
        messages,
        signature: signed.body.signature,
        nonce: b64('nonce'),
        revealedIndexes: [0, 3],
      });
      expect(derived.status, JSON.stringify(derived.body)).toBe(200);
      const revealed = [messages[0], messages[3]];
      const check = (body: Record<string, unknown>) =>
        post(`${key.location}/verifyproof`, {
          proof: derived.body.proof,
          messages: revealed,
          revealedIndexes: [0, 3],
          nonce: b64('nonce'),
          ...body,
        });
      expect((await check({})).body).toEqual({ verified: true });
      expect((await check({ nonce: b64('other') })).body).toEqual({ verified: false });
      expect((await check({ revealedIndexes: [0, 4] })).body).toEqual({ verified: false });
      expect400(await check({ revealedIndexes: [0] }), /same length/);
      expect400(
        await post(`${key.location}/signmulti`, { messages: ['AA'] }),
        /messages\[0\]: not base64url with padding/,
      );
      expect400(await post(`${key.location}/signmulti`, {}), /\/messages is required/);
      expect400(await verify({ signature: b64(Buffer.alloc(10)), messages }), /signature/);
      expect400(
        await post(`${key.location}/deriveproof`, {
          messages,
          signature: signed.body.signature,
          nonce: b64('n'),
          revealedIndexes: [10],
        }),
        /revealedIndexes/,
      );
      const ed = await newKey('ED25519');
      expect400(await post(`${ed.location}/signmulti`, { messages }), /./);
      expect400(await post(`${ed.location}/verifymulti`, { signature: signed.body.signature, messages }), /BBS/);
    });
  });

  describe('rotation', () => {
    it('adds a version: new signatures name it, old ones still verify, old ciphertexts still decrypt', async () => {
      const key = await newKey('ED25519');
      const old = await post<{ signature: string; keyVersion: number }>(`${key.location}/sign`, { message: b64('m') });
      expect(old.body.keyVersion).toBe(1);
      const rotated = await call<CreatedKey>(`${key.location}/rotate`, { method: 'POST', token: ks.capability });
      expect(rotated.status).toBe(200);
      expect(rotated.body).toMatchObject({ keyID: key.keyID, keyVersion: 2, location: key.location });
      const fresh = await post<{ signature: string; keyVersion: number }>(`${key.location}/sign`, {
        message: b64('m'),
      });
      expect(fresh.body.keyVersion).toBe(2);
      const current = await call<{ publicKey: string; keyVersion: number }>(key.location, { token: ks.capability });
      expect(current.body.keyVersion).toBe(2);
      expect(current.body.publicKey).not.toBe(key.publicKey);
      const first = await call<{ publicKey: string }>(`${key.location}?keyVersion=1`, { token: ks.capability });
      expect(first.body.publicKey).toBe(key.publicKey);
      for (const signature of [old.body.signature, fresh.body.signature])
        expect((await post(`${key.location}/verify`, { message: b64('m'), signature })).body).toEqual({
          verified: true,
        });
      expect(
        (await post(`${key.location}/verify`, { message: b64('m'), signature: old.body.signature, keyVersion: 2 }))
          .body,
      ).toEqual({ verified: false });
      expect(
        (await post(`${key.location}/verify`, { message: b64('m'), signature: old.body.signature, keyVersion: 1 }))
          .body,
      ).toEqual({ verified: true });

      const aes = await newKey('AES256GCM');
      const sealed = await post<{ cipherText: string; nonce: string }>(`${aes.location}/encrypt`, {
        message: b64('kept'),
      });
      const rotatedAes = await post<CreatedKey>(`${aes.location}/rotate`, { export: true });
      expect(rotatedAes.body.keyVersion).toBe(2);
      const opened = await post<{ plainText: string }>(`${aes.location}/decrypt`, sealed.body);
      expect(unb64(opened.body.plainText).toString()).toBe('kept');
      expect((await post(`${ks.location}/keys/nope/rotate`, {})).status).toBe(404);
      expect400(await post(`${aes.location}/rotate`, { export: 1 }), /\/export must be a boolean/);
    });
  });

  describe('DIDs', () => {
    it('creates a did:key whose key signs in the keystore', async () => {
      const created = await post<{ did: string; keyID: string; verificationMethod: string }>(
        `${base}/v1/keystores/did`,
        { keystoreID: ks.id },
      );
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      expect(created.body.did).toMatch(/^did:key:z6Mk/);
      expect(created.body.verificationMethod.startsWith(`${created.body.did}#`)).toBe(true);
      const exported = await call<{ publicKey: string }>(`${ks.location}/keys/${created.body.keyID}`, {
        token: ks.capability,
      });
      expect(exported.status).toBe(200);
      expect400(await post(`${base}/v1/keystores/did`, { keystoreID: ks.id, method: 'node' }), /no --node-url/);
      expect400(await post(`${base}/v1/keystores/did`, {}), /\/keystoreID is required/);
      expect((await post(`${base}/v1/keystores/did`, { keystoreID: ks.id }, other.capability)).status).toBe(401);
      expect((await post(`${base}/v1/keystores/did`, { keystoreID: 'nope' })).status).toBe(404);
    });
  });

  describe('metrics', () => {
    it('count operations by type and outcome, without key material or ids', async () => {
      const metrics = await call(`${base}/metrics`);
      const text = String(metrics.body);
      expect(text).toMatch(/kms_operations_total\{operation="sign",outcome="success"\} \d+/);
      expect(text).toMatch(/kms_operations_total\{operation="sign",outcome="rejected"\} \d+/);
      expect(text).toMatch(/kms_operation_duration_seconds_bucket\{le="0.001",operation="sign"\}/);
      expect(text).not.toContain(ks.id);
      expect(text).not.toContain(ks.capability);
    });
  });
});

describe('kms API with the operator tokens set', () => {
  let dir: TempDir;
  let server: KmsServer;

  beforeAll(async () => {
    dir = await makeTempDir('kms-tokens-');
    server = createServer({
      dataDir: dir.path,
      storage: { type: 'mem' },
      devMode: true,
      bbsWorkers: 0,
      signWorkers: 0,
      writeTokens: ['operator-write'],
      readTokens: ['operator-read'],
    });
    await server.start();
  });

  afterAll(async () => {
    await server?.stop();
    await dir?.remove();
  });

  it('needs a write token to create a keystore, while keystore routes take only the capability', async () => {
    const body = { controller: new Controller().did };
    expect((await call(`${server.url}/v1/keystores`, { json: body })).status).toBe(401);
    expect((await call(`${server.url}/v1/keystores`, { json: body, token: 'wrong' })).status).toBe(401);
    const ks = await call<Keystore>(`${server.url}/v1/keystores`, { json: body, token: 'operator-write' });
    expect(ks.status).toBe(201);
    const created = await call(`${ks.body.location}/keys`, { json: { keyType: 'ED25519' }, token: ks.body.capability });
    expect(created.status).toBe(201);
    // The operator's tokens do not open a keystore.
    expect(
      (await call(`${ks.body.location}/keys`, { json: { keyType: 'ED25519' }, token: 'operator-write' })).status,
    ).toBe(401);
    expect((await call(ks.body.location, { token: 'operator-read' })).status).toBe(401);
    expect((await call(`${server.url}/metrics`)).status).toBe(401);
    expect((await call(`${server.url}/metrics`, { token: 'operator-read' })).status).toBe(200);
    expect((await call(`${server.url}/healthcheck`)).status).toBe(200);
  });
});

/** The X25519 key of an Ed25519 public key (birational map, as libsodium's crypto_sign_ed25519_pk_to_curve25519). */
function ed25519PublicToX25519(publicKey: Uint8Array): Uint8Array {
  const p = 2n ** 255n - 19n;
  const bytes = Buffer.from(publicKey);
  bytes[31] = (bytes[31] as number) & 0x7f;
  const y = BigInt(`0x${Buffer.from(bytes).reverse().toString('hex')}`);
  const modPow = (b: bigint, e: bigint): bigint => {
    let r = 1n;
    b %= p;
    while (e > 0n) {
      if (e & 1n) r = (r * b) % p;
      b = (b * b) % p;
      e >>= 1n;
    }
    return r;
  };
  const u = ((1n + y) * modPow((1n - y + p) % p, p - 2n)) % p;
  return Buffer.from(u.toString(16).padStart(64, '0'), 'hex').reverse();
}

/** libsodium's crypto_box_seal: an ephemeral key, nonce = BLAKE2b-192(epk || pk), output epk || box. */
function sealTo(recipient: Uint8Array, message: Uint8Array): Uint8Array {
  const ephemeral = nacl.box.keyPair();
  const nonce = blake2b24(Buffer.concat([ephemeral.publicKey, recipient]));
  const box = nacl.box(message, nonce, recipient, ephemeral.secretKey);
  return Buffer.concat([ephemeral.publicKey, box]);
}

import { blake2b } from '@noble/hashes/blake2.js';
function blake2b24(data: Uint8Array): Uint8Array {
  return blake2b(data, { dkLen: 24 });
}
