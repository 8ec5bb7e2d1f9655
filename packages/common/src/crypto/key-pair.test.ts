import { createPrivateKey, generateKeyPairSync, sign as opensslSign } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { AppError } from '../errors/index.js';
import { base58Decode, multibaseEncode } from '../encoding/index.js';
import { KeyPair, type Jwk, type KeyType, jwsAlgorithmFor, keyTypeOfJwk } from './index.js';

const SIGNING_TYPES = ['Ed25519', 'P-256', 'P-384', 'secp256k1'] as const;
const ALL_TYPES: readonly KeyType[] = [...SIGNING_TYPES, 'X25519'];
const SIGNATURE_LENGTH = { Ed25519: 64, 'P-256': 64, 'P-384': 96, secp256k1: 64 } as const;

// RFC 8037 Appendix A.1 (private) / A.2 (public).
const RFC8037_JWK = {
  kty: 'OKP',
  crv: 'Ed25519',
  d: 'nWGxne_9WmC6hEr0kuwsxERJxWl7MmkZcDusAxyuf2A',
  x: '11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo',
};
// RFC 7515 Appendix A.3.
const RFC7515_P256 = {
  kty: 'EC',
  crv: 'P-256',
  x: 'f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU',
  y: 'x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0',
  d: 'jpsQnnGQmL-YBIffH1136cspYG6-0iY7X1fCE9-E9LI',
};

/** Asserts that `fn` throws an AppError bad_request whose message matches. */
function expectBadRequest(fn: () => unknown, message: RegExp | string): void {
  let thrown: unknown;
  try {
    fn();
  } catch (error) {
    thrown = error;
  }
  expect(thrown, 'expected a bad_request AppError').toBeInstanceOf(AppError);
  expect((thrown as AppError).code).toBe('bad_request');
  expect((thrown as AppError).message).toMatch(message);
}

function flipLastCharacter(text: string): string {
  const last = text.at(-1) === 'A' ? 'B' : 'A';
  return text.slice(0, -1) + last;
}

describe('KeyPair generation and encodings', () => {
  it.each(ALL_TYPES)('%s round-trips through JWK, PEM, raw bytes, multibase and base58', (type) => {
    const key = KeyPair.generate(type);
    expect(key.type).toBe(type);
    expect(key.isPrivate).toBe(true);

    const fromPrivateJwk = KeyPair.fromJwk(key.privateJwk());
    expect(fromPrivateJwk.isPrivate).toBe(true);
    expect(fromPrivateJwk.privateKey!.equals(key.privateKey!)).toBe(true);

    const publicOnly = KeyPair.fromJwk(key.publicJwk());
    expect(publicOnly.isPrivate).toBe(false);
    expect(publicOnly.publicKey.equals(key.publicKey)).toBe(true);

    expect(KeyPair.fromPem(key.privateKeyPem()).privateKey!.equals(key.privateKey!)).toBe(true);
    expect(KeyPair.fromPem(key.publicKeyPem()).publicKey.equals(key.publicKey)).toBe(true);
    expect(KeyPair.fromPem(key.publicKeyPem()).isPrivate).toBe(false);
    expect(KeyPair.fromPublicKeyBytes(type, key.publicKeyBytes()).publicKey.equals(key.publicKey)).toBe(true);
    expect(KeyPair.fromMultibase(key.publicKeyMultibase()).publicKey.equals(key.publicKey)).toBe(true);
    expect(base58Decode(key.publicKeyBase58()).equals(key.publicKeyBytes())).toBe(true);
    expect(KeyPair.fromKeyObject(key.privateKey!).publicKey.equals(key.publicKey)).toBe(true);
    expect(key.toPublic().isPrivate).toBe(false);
  });

  it('prints JWKs with the member order of the Sidetree vectors and no private members in the public form', () => {
    expect(Object.keys(KeyPair.generate('secp256k1').publicJwk())).toEqual(['kty', 'crv', 'x', 'y']);
    expect(Object.keys(KeyPair.generate('Ed25519').publicJwk())).toEqual(['kty', 'crv', 'x']);
    expect(Object.keys(KeyPair.generate('P-384').privateJwk())).toEqual(['kty', 'crv', 'x', 'y', 'd']);
  });

  it('hands out copies, so callers cannot corrupt the cached encodings', () => {
    const key = KeyPair.generate('P-256');
    const jwk = key.publicJwk();
    jwk.kid = 'mutated';
    key.publicKeyBytes().fill(0);
    expect(key.publicJwk().kid).toBeUndefined();
    expect(key.publicKeyBytes()[0]).toBe(0x04);
  });

  it('encodes coordinates at full width even when they have leading zero bytes', () => {
    // About 1 in 128 keys has a leading zero byte in x or y; 600 keys make missing it very unlikely.
    for (let i = 0; i < 600; i++) {
      const jwk = KeyPair.generate('secp256k1').privateJwk();
      expect([jwk.x!.length, jwk.y!.length, jwk.d!.length]).toEqual([43, 43, 43]);
    }
  });

  it('uses the multicodec prefixes of the multikey table', () => {
    const prefixes: Record<KeyType, string> = {
      Ed25519: 'z6Mk',
      X25519: 'z6LS',
      secp256k1: 'zQ3s',
      'P-256': 'zDna',
      'P-384': 'z82L',
    };
    for (const type of ALL_TYPES) expect(KeyPair.generate(type).publicKeyMultibase().slice(0, 4)).toBe(prefixes[type]);
  });

  it('accepts the bare 32-byte Ed25519 multibase form of early Ed25519VerificationKey2020', () => {
    const key = KeyPair.generate('Ed25519');
    expect(
      KeyPair.fromMultibase(multibaseEncode(key.publicKeyBytes(), 'base58btc')).publicKey.equals(key.publicKey),
    ).toBe(true);
  });

  it('accepts compressed EC points and gives back the uncompressed form', () => {
    const key = KeyPair.generate('P-384');
    const fromMultibase = KeyPair.fromMultibase(key.publicKeyMultibase());
    expect(fromMultibase.publicKeyBytes()).toHaveLength(97);
    expect(fromMultibase.publicKeyBytes().equals(key.publicKeyBytes())).toBe(true);
  });

  it('derives the RFC 8037 public key from its seed', () => {
    const key = KeyPair.fromSeed('Ed25519', Buffer.from(RFC8037_JWK.d, 'base64url'));
    expect(key.publicJwk()).toEqual({ kty: 'OKP', crv: 'Ed25519', x: RFC8037_JWK.x });
    expect(KeyPair.fromJwk(RFC8037_JWK).privateJwk()).toEqual({
      kty: 'OKP',
      crv: 'Ed25519',
      x: RFC8037_JWK.x,
      d: RFC8037_JWK.d,
    });
  });

  it('derives the RFC 7748 §6.1 X25519 public keys and shared secret', () => {
    const alice = KeyPair.fromSeed(
      'X25519',
      Buffer.from('77076d0a7318a57d3c16c17251b26645df4c2f87ebc0992ab177fba51db92c2a', 'hex'),
    );
    const bob = KeyPair.fromSeed(
      'X25519',
      Buffer.from('5dab087e624a8a4b79e17f8b83800ee66f3bb1292618b6fd1c2f8b27ff88e0eb', 'hex'),
    );
    expect(alice.publicKeyBytes().toString('hex')).toBe(
      '8520f0098930a754748b7ddcb43ef75a0dbf3a0d26381af4eba4a98eaa9b4e6a',
    );
    expect(bob.publicKeyBytes().toString('hex')).toBe(
      'de9edb7d7b7dc1b4d35b61c2ece435373f8343c85b78674dadfc7e146f882b4f',
    );
    const shared = '4a5d9d5ba4ce2de1728e3bf480350f25e07e21c947d19e3376f09b3c1e161742';
    expect(alice.ecdh(bob.toPublic()).toString('hex')).toBe(shared);
    expect(bob.ecdh(alice).toString('hex')).toBe(shared);
  });

  it('agrees EC keys of the same curve', () => {
    const a = KeyPair.generate('P-256');
    const b = KeyPair.generate('P-256');
    expect(a.ecdh(b.toPublic()).equals(b.ecdh(a.toPublic()))).toBe(true);
    expectBadRequest(() => a.ecdh(KeyPair.generate('secp256k1')), 'cannot agree a key between P-256 and secp256k1');
    expectBadRequest(() => KeyPair.generate('Ed25519').ecdh(KeyPair.generate('Ed25519')), 'use an X25519 key');
    expectBadRequest(() => a.toPublic().ecdh(b), 'has no private key');
  });

  it('maps key types to JWS algorithms and refuses one for X25519', () => {
    expect(SIGNING_TYPES.map((type) => KeyPair.generate(type).jwsAlgorithm)).toEqual([
      'EdDSA',
      'ES256',
      'ES384',
      'ES256K',
    ]);
    expect(jwsAlgorithmFor('P-384')).toBe('ES384');
    expectBadRequest(() => KeyPair.generate('X25519').jwsAlgorithm, 'X25519 keys cannot sign');
    expectBadRequest(() => jwsAlgorithmFor('RSA' as KeyType), "unsupported key type 'RSA'");
    expectBadRequest(() => KeyPair.generate('RSA' as KeyType), "unsupported key type 'RSA'");
    expectBadRequest(
      () => KeyPair.fromPublicKeyBytes('Ed448' as KeyType, Buffer.alloc(57)),
      "unsupported key type 'Ed448'",
    );
  });
});

describe('KeyPair signatures', () => {
  const data = Buffer.from('the quick brown fox');

  it.each(SIGNING_TYPES)('%s signs raw r||s and rejects any tampering', (type) => {
    const key = KeyPair.generate(type);
    const signature = key.sign(data);
    expect(signature).toHaveLength(SIGNATURE_LENGTH[type]);
    expect(key.verify(data, signature)).toBe(true);
    expect(key.toPublic().verify(data, signature)).toBe(true);
    expect(KeyPair.generate(type).verify(data, signature)).toBe(false);
    expect(key.verify(Buffer.from('the quick brown fox!'), signature)).toBe(false);
    for (const index of [0, signature.length >> 1, signature.length - 1]) {
      const tampered = Buffer.from(signature);
      tampered[index]! ^= 0x01;
      expect(key.verify(data, tampered)).toBe(false);
    }
  });

  it.each(SIGNING_TYPES)('%s verify returns false, never throws, for malformed signatures', (type) => {
    const key = KeyPair.generate(type);
    const signature = key.sign(data);
    expect(key.verify(data, new Uint8Array(0))).toBe(false);
    expect(key.verify(data, signature.subarray(1))).toBe(false);
    expect(key.verify(data, Buffer.concat([signature, Buffer.from([0])]))).toBe(false);
    expect(key.verify(data, Buffer.alloc(signature.length, 0xff))).toBe(false);
    expect(key.verify(data, Buffer.alloc(signature.length))).toBe(false);
    expect(key.verify(data, undefined as unknown as Uint8Array)).toBe(false);
  });

  it('refuses DER-encoded ECDSA signatures (JWS carries raw r||s)', () => {
    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
    const der = opensslSign('sha256', data, privateKey);
    expect(KeyPair.fromKeyObject(publicKey).verify(data, der)).toBe(false);
  });

  it('signs secp256k1 low-S every time', async () => {
    const { isSecp256k1LowS } = await import('./index.js');
    const key = KeyPair.generate('secp256k1');
    for (let i = 0; i < 200; i++) expect(isSecp256k1LowS(key.sign(Buffer.from(`message ${i}`)))).toBe(true);
  });

  it('refuses to sign without a private key or with an X25519 key', () => {
    expectBadRequest(() => KeyPair.generate('Ed25519').toPublic().sign(data), 'has no private key');
    expectBadRequest(() => KeyPair.generate('X25519').sign(data), 'X25519 keys cannot sign');
    expectBadRequest(() => KeyPair.generate('X25519').verify(data, Buffer.alloc(64)), 'X25519 keys cannot verify');
    expectBadRequest(() => KeyPair.generate('P-256').toPublic().privateKeyPem(), 'has no private key');
  });
});

describe('KeyPair.fromJwk validation', () => {
  const ec = KeyPair.generate('secp256k1').privateJwk();
  const okp = KeyPair.generate('Ed25519').privateJwk();

  it('identifies the supported kty/crv pairs and rejects the rest', () => {
    expect(keyTypeOfJwk({ kty: 'OKP', crv: 'X25519' })).toBe('X25519');
    expect(keyTypeOfJwk({ kty: 'EC', crv: 'P-384' })).toBe('P-384');
    expectBadRequest(() => keyTypeOfJwk({ kty: 'RSA', n: 'x', e: 'AQAB' }), "unsupported JWK kty 'RSA'");
    expectBadRequest(() => keyTypeOfJwk({ kty: 'EC', crv: 'P-521' }), "unsupported EC JWK crv 'P-521'");
    expectBadRequest(() => keyTypeOfJwk({ kty: 'EC', crv: 'Ed25519' }), "unsupported EC JWK crv 'Ed25519'");
    expectBadRequest(() => keyTypeOfJwk({ kty: 'OKP', crv: 'Ed448' }), "unsupported OKP JWK crv 'Ed448'");
    expectBadRequest(() => keyTypeOfJwk({ kty: 'OKP' }), "unsupported OKP JWK crv 'undefined'");
    expectBadRequest(() => keyTypeOfJwk({ kty: 7 } as unknown as Jwk), 'kty must be a string');
    expectBadRequest(() => keyTypeOfJwk(null as unknown as Jwk), 'JWK must be a JSON object');
    expectBadRequest(() => keyTypeOfJwk([] as unknown as Jwk), 'JWK must be a JSON object');
  });

  it('rejects coordinates of the wrong length or encoding', () => {
    const { d: _d, ...pub } = ec;
    expectBadRequest(
      () => KeyPair.fromJwk({ ...pub, x: pub.x!.slice(1) }),
      'JWK x must be 43 base64url characters (32 bytes)',
    );
    expectBadRequest(() => KeyPair.fromJwk({ ...pub, y: `${pub.y!}A` }), 'JWK y must be 43 base64url characters');
    expectBadRequest(() => KeyPair.fromJwk({ ...pub, x: `${pub.x!}=` }), 'JWK x must be 43');
    expectBadRequest(() => KeyPair.fromJwk({ ...pub, x: `${pub.x!.slice(0, -1)}+` }), 'JWK x must be 43');
    expectBadRequest(() => KeyPair.fromJwk({ ...pub, y: undefined }), 'JWK y must be a string');
    expectBadRequest(() => KeyPair.fromJwk({ ...pub, x: 12 as unknown as string }), 'JWK x must be a string');
    expectBadRequest(
      () => KeyPair.fromJwk({ kty: 'EC', crv: 'P-384', x: pub.x, y: pub.y }),
      'JWK x must be 64 base64url characters (48 bytes)',
    );
    expectBadRequest(() => KeyPair.fromJwk({ ...ec, d: ec.d!.slice(2) }), 'JWK d must be 43');
    expectBadRequest(() => KeyPair.fromJwk({ kty: 'OKP', crv: 'Ed25519', x: okp.x!.slice(0, 42) }), 'JWK x must be 43');
    expectBadRequest(
      () => KeyPair.fromJwk({ kty: 'OKP', crv: 'Ed25519', x: okp.x, y: okp.x }),
      'must not carry a y coordinate',
    );
  });

  it('rejects non-canonical base64url (spare bits set in the last character)', () => {
    // 32 bytes leave 2 spare bits in the 43rd character; a set spare bit names the same bytes twice.
    const { d: _d, ...pub } = ec;
    const last = pub.x!.at(-1)!;
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    const twin = alphabet[alphabet.indexOf(last) ^ 0x01]!;
    expectBadRequest(() => KeyPair.fromJwk({ ...pub, x: pub.x!.slice(0, -1) + twin }), 'JWK x must be 43');
  });

  it('accepts the Go-style empty y of an Ed25519 JWK', () => {
    expect(KeyPair.fromJwk({ kty: 'OKP', crv: 'Ed25519', x: okp.x, y: '' }).publicJwk()).toEqual({
      kty: 'OKP',
      crv: 'Ed25519',
      x: okp.x,
    });
  });

  it('rejects EC points that are not on the curve', () => {
    const { d: _d, ...pub } = RFC7515_P256;
    expect(KeyPair.fromJwk(pub).isPrivate).toBe(false);
    expectBadRequest(
      () => KeyPair.fromJwk({ ...pub, y: flipLastCharacter(pub.y) }),
      'P-256 JWK x/y is not a point on the curve',
    );
    expectBadRequest(() => KeyPair.fromJwk({ ...pub, x: pub.y, y: pub.x }), 'not a point on the curve');
    const zero = Buffer.alloc(32).toString('base64url');
    expectBadRequest(
      () => KeyPair.fromJwk({ kty: 'EC', crv: 'secp256k1', x: zero, y: zero }),
      'secp256k1 JWK x/y is not a point on the curve',
    );
  });

  it('rejects a private key that does not match its public members', () => {
    const other = KeyPair.generate('secp256k1').privateJwk();
    expectBadRequest(() => KeyPair.fromJwk({ ...ec, d: other.d }), 'JWK d does not match its public key x/y');
    const otherOkp = KeyPair.generate('Ed25519').privateJwk();
    expectBadRequest(() => KeyPair.fromJwk({ ...okp, d: otherOkp.d }), 'JWK d does not match its public key x');
    const order = Buffer.from('fffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141', 'hex').toString(
      'base64url',
    );
    expectBadRequest(() => KeyPair.fromJwk({ ...ec, d: order }), 'secp256k1 JWK d is not a valid private scalar');
    expectBadRequest(
      () => KeyPair.fromJwk({ ...ec, d: Buffer.alloc(32).toString('base64url') }),
      'not a valid private scalar',
    );
  });

  it('imports the RFC 7515 A.3 P-256 private key', () => {
    expect(KeyPair.fromJwk(RFC7515_P256).privateJwk()).toEqual(RFC7515_P256);
  });
});

describe('raw, PEM and multibase validation', () => {
  it('rejects raw keys of the wrong length or shape', () => {
    expectBadRequest(
      () => KeyPair.fromPublicKeyBytes('Ed25519', Buffer.alloc(31)),
      'Ed25519 public key must be 32 bytes, got 31',
    );
    expectBadRequest(
      () => KeyPair.fromPublicKeyBytes('X25519', Buffer.alloc(33)),
      'X25519 public key must be 32 bytes, got 33',
    );
    expectBadRequest(
      () => KeyPair.fromSeed('Ed25519', Buffer.alloc(64)),
      'Ed25519 private key seed must be 32 bytes, got 64',
    );
    expectBadRequest(
      () => KeyPair.fromSeed('P-256' as 'Ed25519', Buffer.alloc(32)),
      'fromSeed supports Ed25519 and X25519',
    );
    const point = KeyPair.generate('P-256').publicKeyBytes();
    expectBadRequest(
      () => KeyPair.fromPublicKeyBytes('P-256', point.subarray(1)),
      '33-byte compressed or 65-byte uncompressed',
    );
    expectBadRequest(() => KeyPair.fromPublicKeyBytes('P-384', point), '49-byte compressed or 97-byte uncompressed');
    const wrongPrefix = Buffer.from(point);
    wrongPrefix[0] = 0x05;
    expectBadRequest(() => KeyPair.fromPublicKeyBytes('P-256', wrongPrefix), 'compressed or');
    const offCurve = Buffer.from(point);
    offCurve[64]! ^= 0x01;
    expectBadRequest(
      () => KeyPair.fromPublicKeyBytes('P-256', offCurve),
      'P-256 public key is not a point on the curve',
    );
    // x = 5 has no square root on secp256k1 (y^2 = 132 is a non-residue), so no compressed point exists.
    const noRoot = Buffer.concat([Buffer.from([0x02]), Buffer.alloc(31), Buffer.from([0x05])]);
    expectBadRequest(() => KeyPair.fromPublicKeyBytes('secp256k1', noRoot), 'not a point on the curve');
  });

  it('rejects bad PEM and unsupported key algorithms', () => {
    expectBadRequest(
      () => KeyPair.fromPem('-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----'),
      'invalid PEM key',
    );
    expectBadRequest(() => KeyPair.fromPem('not a pem'), 'invalid PEM key');
    const rsa = generateKeyPairSync('rsa', { modulusLength: 1024 }).publicKey.export({
      format: 'pem',
      type: 'spki',
    }) as string;
    expectBadRequest(() => KeyPair.fromPem(rsa), "unsupported key algorithm 'rsa'");
    const p521 = generateKeyPairSync('ec', { namedCurve: 'secp521r1' }).publicKey.export({
      format: 'pem',
      type: 'spki',
    }) as string;
    expectBadRequest(() => KeyPair.fromPem(p521), "unsupported EC curve 'secp521r1'");
  });

  it('rejects an EC private key PEM whose embedded public point belongs to another key', () => {
    const a = KeyPair.generate('P-256').privateJwk();
    const b = KeyPair.generate('P-256').publicJwk();
    // node keeps the given public point beside d, so this exports a PKCS#8 with a mismatched public key.
    const forged = createPrivateKey({ key: { ...a, x: b.x, y: b.y }, format: 'jwk' }).export({
      format: 'pem',
      type: 'pkcs8',
    }) as string;
    expectBadRequest(() => KeyPair.fromPem(forged), 'JWK d does not match its public key x/y');
  });

  it('rejects multibase keys with unknown codecs, bad lengths or bad encodings', () => {
    const ed = KeyPair.generate('Ed25519').publicKeyBytes();
    const p256Key = Buffer.from([0x80, 0x24, ...ed]);
    expectBadRequest(
      () => KeyPair.fromMultibase(multibaseEncode(p256Key, 'base58btc')),
      'P-256 multikey must carry 33 or 65 key bytes, got 32',
    );
    expectBadRequest(
      () => KeyPair.fromMultibase(multibaseEncode(Buffer.from([0x85, 0x24, ...ed]), 'base58btc')),
      'unsupported multikey codec 0x1205',
    );
    expectBadRequest(
      () => KeyPair.fromMultibase(multibaseEncode(Buffer.from([0xed, 0x01, 1, 2]), 'base58btc')),
      'Ed25519 multikey must carry 32',
    );
    expectBadRequest(() => KeyPair.fromMultibase('z0OIl'), 'invalid publicKeyMultibase');
    expectBadRequest(() => KeyPair.fromMultibase('x123'), "unsupported multibase prefix 'x'");
    expectBadRequest(() => KeyPair.fromMultibase(''), 'non-empty multibase');
  });
});
