import { createCipheriv, createDecipheriv, createPrivateKey, createPublicKey, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { CompactEncrypt, compactDecrypt, importJWK, type JWK } from 'jose';
import { describe, expect, it } from 'vitest';
import { ecdhPrivateKey } from '../ecdh-keys.js';
import { KmsCryptoError } from '../errors.js';
import { generateKey, importPrivateKey, type KeyMaterial, type KmsKeyType } from '../index.js';
import { concatKdf } from './concat-kdf.js';
import { unwrap, wrapAnoncrypt, wrapAuthcrypt, type RecipientPublicKey, type RecipientWrappedKey } from './index.js';
import { aesKeyUnwrap, aesKeyWrap, xc20pKeyUnwrap, xc20pKeyWrap } from './key-wrap.js';
import { sharedSecret, wrapShapeOf, type WrapCurve } from './wrap-keys.js';

// Published vectors (vectors/README.md says where each comes from).
const vectors = JSON.parse(readFileSync(new URL('./vectors/jose-key-agreement.json', import.meta.url), 'utf8'));
const hex = (value: string): Buffer => Buffer.from(value, 'hex');
const b64u = (value: string): Buffer => Buffer.from(value, 'base64url');
const utf8 = (value: string): Buffer => Buffer.from(value, 'utf8');
const privateJwk = (jwk: JWK) => createPrivateKey({ key: jwk as never, format: 'jwk' });
const publicJwk = (jwk: JWK) => {
  const { d: _d, ...rest } = jwk;
  return createPublicKey({ key: rest as never, format: 'jwk' });
};

async function failure(run: () => unknown): Promise<KmsCryptoError> {
  let thrown: unknown;
  try {
    await run();
  } catch (error) {
    thrown = error;
  }
  expect(thrown).toBeInstanceOf(KmsCryptoError);
  return thrown as KmsCryptoError;
}

describe('key wrap building blocks against published vectors', () => {
  it.each(vectors.rfc3394.cases as Array<{ section: string; kek: string; key: string; wrapped: string }>)(
    'RFC 3394 §$section AES key wrap',
    ({ kek, key, wrapped }) => {
      expect(aesKeyWrap(hex(kek), hex(key)).toString('hex')).toBe(wrapped.toLowerCase());
      expect(aesKeyUnwrap(hex(kek), hex(wrapped)).toString('hex')).toBe(key.toLowerCase());
    },
  );

  it('RFC 7518 Appendix C: ECDH-ES key agreement and Concat KDF', () => {
    const v = vectors.rfc7518AppendixC;
    const z = sharedSecret(privateJwk(v.alice), publicJwk(v.bob), 'bob');
    expect(z.toString('hex')).toBe(v.z);
    expect(sharedSecret(privateJwk(v.bob), publicJwk(v.alice), 'alice').toString('hex')).toBe(v.z);
    expect(concatKdf(z, v.keyBits, v.algorithmId, utf8(v.apu), utf8(v.apv)).toString('base64url')).toBe(v.derivedKey);
  });

  it('ECDH-1PU draft Appendix A: Z = Ze || Zs, direct mode (no tag)', () => {
    const v = vectors.ecdh1puAppendixA;
    const ze = sharedSecret(privateJwk(v.aliceEphemeral), publicJwk(v.bob), 'bob');
    const zs = sharedSecret(privateJwk(v.aliceStatic), publicJwk(v.bob), 'bob');
    expect([ze.toString('hex'), zs.toString('hex')]).toEqual([v.ze, v.zs]);
    const key = concatKdf(Buffer.concat([ze, zs]), v.keyBits, v.algorithmId, utf8(v.apu), utf8(v.apv));
    expect(key.toString('hex')).toBe(v.derivedKey);
  });

  it.each(['Bob', 'Charlie'])('ECDH-1PU draft Appendix B (X25519, tag in the KDF, A128KW): %s', (name) => {
    const v = vectors.ecdh1puAppendixB;
    const recipient = v.recipients.find((entry: { name: string }) => entry.name === name);
    const ze = sharedSecret(privateJwk(v.aliceEphemeral), publicJwk(recipient.key), 'recipient');
    const zs = sharedSecret(privateJwk(v.aliceStatic), publicJwk(recipient.key), 'recipient');
    expect([ze.toString('hex'), zs.toString('hex')]).toEqual([recipient.ze, recipient.zs]);
    // The recipient computes the same Z from its own private key.
    expect(sharedSecret(privateJwk(recipient.key), publicJwk(v.aliceEphemeral), 'epk').toString('hex')).toBe(
      recipient.ze,
    );
    expect(sharedSecret(privateJwk(recipient.key), publicJwk(v.aliceStatic), 'sender').toString('hex')).toBe(
      recipient.zs,
    );
    const kek = concatKdf(Buffer.concat([ze, zs]), v.keyBits, v.algorithmId, utf8(v.apu), utf8(v.apv), b64u(v.tag));
    expect(kek.toString('hex')).toBe(recipient.kek);
    expect(aesKeyWrap(kek, hex(v.cek)).toString('base64url')).toBe(recipient.encryptedKey);
  });

  it('XC20P key wrap: nonce (24) || ciphertext || tag (16), and it opens only under its KEK', () => {
    const kek = randomBytes(32);
    const cek = randomBytes(32);
    const wrapped = xc20pKeyWrap(kek, cek);
    expect(wrapped).toHaveLength(24 + 32 + 16);
    expect(xc20pKeyUnwrap(kek, wrapped)).toEqual(cek);
    expect(() => xc20pKeyUnwrap(randomBytes(32), wrapped)).toThrow(KmsCryptoError);
  });
});

const CURVES: Array<[KmsKeyType, WrapCurve]> = [
  ['NISTP256ECDHKW', 'P-256'],
  ['NISTP384ECDHKW', 'P-384'],
  ['NISTP521ECDHKW', 'P-521'],
  ['X25519ECDHKW', 'X25519'],
];

function publicShape(m: KeyMaterial, kid?: string): RecipientPublicKey {
  const { curve, publicKey } = ecdhPrivateKey(m);
  return { ...(kid ? { kid } : {}), ...wrapShapeOf(publicKey, curve) };
}

describe.each(CURVES)('wrap and unwrap with %s keys', (type, curve) => {
  const recipient = generateKey(type);
  const sender = generateKey(type);
  const apu = utf8('sender');
  const apv = utf8('recipient');
  const cek = randomBytes(32);
  const keyWrap = curve === 'X25519' ? 'XC20PKW' : 'A256KW';

  it('anoncrypt (ECDH-ES): the recipient key unwraps the CEK; epk is a fresh key on its curve', () => {
    const wrapped = wrapAnoncrypt(cek, apu, apv, publicShape(recipient, 'bob-key'));
    expect(wrapped).toMatchObject({
      kid: 'bob-key',
      alg: `ECDH-ES+${keyWrap}`,
      apu,
      apv,
      epk: { curve, type: curve === 'X25519' ? 'OKP' : 'EC' },
    });
    expect(Buffer.from(unwrap(recipient, wrapped))).toEqual(cek);
    const again = wrapAnoncrypt(cek, apu, apv, publicShape(recipient));
    expect(Buffer.from(again.epk.x)).not.toEqual(Buffer.from(wrapped.epk.x));
    expect(again.kid).toBeUndefined();
  });

  it('authcrypt (ECDH-1PU) with and without a tag: the recipient needs the sender public key and the same tag', async () => {
    for (const tag of [undefined, randomBytes(16)]) {
      const wrapped = wrapAuthcrypt(sender, cek, apu, apv, publicShape(recipient), tag);
      expect(wrapped.alg).toBe(`ECDH-1PU+${keyWrap}`);
      expect(Buffer.from(unwrap(recipient, wrapped, publicShape(sender), tag))).toEqual(cek);
      expect((await failure(() => unwrap(recipient, wrapped, publicShape(generateKey(type)), tag))).code).toBe(
        'decrypt-failed',
      );
      expect((await failure(() => unwrap(recipient, wrapped, publicShape(sender), randomBytes(16)))).code).toBe(
        'decrypt-failed',
      );
      expect((await failure(() => unwrap(recipient, wrapped))).message).toBe(
        `senderPubKey is required to unwrap ECDH-1PU+${keyWrap}`,
      );
    }
    // No tag is the empty tag: its zero length enters the KDF either way (as later aries versions derive it).
    const untagged = wrapAuthcrypt(sender, cek, apu, apv, publicShape(recipient));
    expect(Buffer.from(unwrap(recipient, untagged, publicShape(sender), new Uint8Array()))).toEqual(cek);
  });

  it('a tampered wrapped key, apu or apv, or another recipient key, fails to decrypt', async () => {
    const wrapped = wrapAnoncrypt(cek, apu, apv, publicShape(recipient));
    const tampered = Buffer.from(wrapped.encryptedKey);
    tampered[tampered.length - 1]! ^= 1;
    for (const changed of [
      { ...wrapped, encryptedKey: tampered },
      { ...wrapped, apu: utf8('mallory') },
      { ...wrapped, apv: new Uint8Array() },
    ]) {
      expect((await failure(() => unwrap(recipient, changed))).code).toBe('decrypt-failed');
    }
    expect((await failure(() => unwrap(generateKey(type), wrapped))).code).toBe('decrypt-failed');
  });
});

describe('wrap: bad input', () => {
  const p256 = generateKey('NISTP256ECDHKW');
  const x25519 = generateKey('X25519ECDHKW');
  const cek = randomBytes(32);
  const empty = new Uint8Array();

  it('refuses a recipient key that is not a point of its curve, or of the wrong shape', async () => {
    const good = publicShape(p256);
    const offCurve = { ...good, y: Buffer.from(good.y).map((byte, i) => (i === 31 ? byte ^ 1 : byte)) };
    expect((await failure(() => wrapAnoncrypt(cek, empty, empty, offCurve))).message).toBe(
      'recPubKey is not a point on P-256',
    );
    expect((await failure(() => wrapAnoncrypt(cek, empty, empty, { ...good, curve: 'P-255' }))).code).toBe('bad-input');
    expect((await failure(() => wrapAnoncrypt(cek, empty, empty, { ...good, type: 'OKP' }))).message).toBe(
      'recPubKey.type must be EC for curve P-256',
    );
    expect((await failure(() => wrapAnoncrypt(cek, empty, empty, { ...good, x: new Uint8Array(33) }))).code).toBe(
      'bad-input',
    );
    const wrapped = wrapAnoncrypt(cek, empty, empty, good);
    expect((await failure(() => unwrap(p256, { ...wrapped, epk: { ...wrapped.epk, y: offCurve.y } }))).message).toBe(
      'wrappedKey.epk is not a point on P-256',
    );
    const okp = publicShape(x25519);
    const small = wrapAnoncrypt(cek, empty, empty, okp);
    expect(
      (await failure(() => unwrap(x25519, { ...small, epk: { ...small.epk, x: new Uint8Array(32) } }))).message,
    ).toContain('small order');
    expect((await failure(() => wrapAnoncrypt(cek, empty, empty, { ...okp, y: new Uint8Array(32) }))).message).toBe(
      'recPubKey.y must be empty for curve X25519',
    );
    expect(
      (await failure(() => wrapAnoncrypt(cek, empty, empty, { ...okp, x: new Uint8Array(32) }))).message,
    ).toContain('small order');
  });

  it("accepts aries' other curve spellings (Tink's, SEC 2's); the epk always says P-256 etc.", () => {
    for (const curve of ['NIST_P256', 'secp256r1']) {
      const wrapped = wrapAnoncrypt(cek, empty, empty, { ...publicShape(p256), curve });
      expect(wrapped.epk.curve).toBe('P-256');
      expect(Buffer.from(unwrap(p256, { ...wrapped, epk: { ...wrapped.epk, curve } }))).toEqual(cek);
    }
  });

  it('accepts coordinates without their leading zero bytes, as Go big.Int encodes them', () => {
    let key = generateKey('NISTP256ECDHKW');
    while (publicShape(key).x[0] !== 0) key = generateKey('NISTP256ECDHKW');
    const shape = publicShape(key);
    const wrapped = wrapAnoncrypt(cek, empty, empty, { ...shape, x: shape.x.subarray(1) });
    expect(Buffer.from(unwrap(key, wrapped))).toEqual(cek);
  });

  it('refuses a CEK AES key wrap cannot take, and a non-ECDH or mismatched key', async () => {
    expect((await failure(() => wrapAnoncrypt(randomBytes(12), empty, empty, publicShape(p256)))).message).toContain(
      'cek must be at least 16 bytes',
    );
    expect(
      (await failure(() => wrapAuthcrypt(generateKey('ED25519'), cek, empty, empty, publicShape(p256)))).code,
    ).toBe('wrong-key-kind');
    expect((await failure(() => wrapAuthcrypt(x25519, cek, empty, empty, publicShape(p256)))).message).toBe(
      "recPubKey.curve P-256 differs from the sender key's curve X25519",
    );
    const wrapped = wrapAnoncrypt(cek, empty, empty, publicShape(p256));
    expect((await failure(() => unwrap(generateKey('NISTP384ECDHKW'), wrapped))).message).toBe(
      "wrappedKey.epk.curve P-256 differs from the key's curve P-384",
    );
    expect((await failure(() => unwrap(generateKey('AES256GCM'), wrapped))).code).toBe('wrong-key-kind');
    expect((await failure(() => unwrap(p256, { ...wrapped, alg: 'ECDH-ES+A128KW' }))).code).toBe('unsupported');
    expect((await failure(() => unwrap(p256, { ...wrapped, encryptedKey: new Uint8Array(20) }))).code).toBe(
      'bad-input',
    );
    expect((await failure(() => unwrap(p256, { ...wrapped, apu: 'x' as unknown as Uint8Array }))).message).toBe(
      'wrappedKey.apu must be bytes',
    );
  });
});

describe('interoperability with the jose library (ECDH-ES+A256KW, JWE compact)', () => {
  const plaintext = utf8('the content the CEK encrypts');

  it.each([
    ['NISTP256ECDHKW', 'P-256'],
    ['NISTP384ECDHKW', 'P-384'],
    ['NISTP521ECDHKW', 'P-521'],
  ] as const)('%s: jose encrypts, the kms unwraps; the kms wraps, jose decrypts', async (type, curve) => {
    const recipient = importPrivateKey(type, ecdhPrivateKey(generateKey(type)).privateKey.export({ format: 'jwk' }));
    const recipientJwk = ecdhPrivateKey(recipient).privateKey.export({ format: 'jwk' }) as JWK;
    const { d: _d, ...recipientPublicJwk } = recipientJwk;

    const jwe = await new CompactEncrypt(plaintext)
      .setProtectedHeader({ alg: 'ECDH-ES+A256KW', enc: 'A256GCM' })
      .setKeyManagementParameters({ apu: utf8('Alice'), apv: utf8('Bob') })
      .encrypt(await importJWK(recipientPublicJwk, 'ECDH-ES+A256KW'));
    const [protectedB64, encryptedKey, iv, ciphertext, tag] = jwe.split('.') as [
      string,
      string,
      string,
      string,
      string,
    ];
    const header = JSON.parse(b64u(protectedB64).toString('utf8'));
    const wrapped: RecipientWrappedKey = {
      encryptedKey: b64u(encryptedKey),
      epk: { x: b64u(header.epk.x), y: b64u(header.epk.y), curve: header.epk.crv, type: header.epk.kty },
      alg: header.alg,
      apu: b64u(header.apu),
      apv: b64u(header.apv),
    };
    const cek = unwrap(recipient, wrapped);
    const decipher = createDecipheriv('aes-256-gcm', cek, b64u(iv));
    decipher.setAAD(Buffer.from(protectedB64, 'ascii'));
    decipher.setAuthTag(b64u(tag));
    expect(Buffer.concat([decipher.update(b64u(ciphertext)), decipher.final()])).toEqual(plaintext);

    const ourCek = randomBytes(32);
    const ours = wrapAnoncrypt(ourCek, utf8('Alice'), utf8('Bob'), publicShape(recipient));
    const b = (bytes: Uint8Array): string => Buffer.from(bytes).toString('base64url');
    const ourHeader = b(
      utf8(
        JSON.stringify({
          alg: ours.alg,
          enc: 'A256GCM',
          apu: b(ours.apu),
          apv: b(ours.apv),
          epk: { kty: 'EC', crv: curve, x: b(ours.epk.x), y: b(ours.epk.y) },
        }),
      ),
    );
    const ourIv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', ourCek, ourIv);
    cipher.setAAD(Buffer.from(ourHeader, 'ascii'));
    const ourCiphertext = Buffer.concat([cipher.update(plaintext), cipher.final()]);
    const compact = [ourHeader, b(ours.encryptedKey), b(ourIv), b(ourCiphertext), b(cipher.getAuthTag())].join('.');
    const opened = await compactDecrypt(compact, await importJWK(recipientJwk, 'ECDH-ES+A256KW'));
    expect(Buffer.from(opened.plaintext)).toEqual(plaintext);
  });
});
