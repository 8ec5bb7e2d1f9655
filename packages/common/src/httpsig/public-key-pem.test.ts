import { generateKeyPairSync, sign } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { KeyPair } from '../crypto/index.js';
import { algorithmAcceptable, ecdsaSignatureToP1363 } from './algorithms.js';
import { actorPublicKeyIds, parsePublicKeyDocument, serviceKeyId, servicePublicKeyDocument } from './key-document.js';
import { encodePublicKeyPem, parsePublicKeyPem, PublicKeyFormatError } from './public-key-pem.js';

const RFC8032_SEED = Buffer.from('9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60', 'hex');
/** The RFC 8032 test-vector public key, d75a9801..., as Orb's `pem.EncodeToMemory` writes it. */
const ORIGINAL_ED25519_PEM =
  '-----BEGIN Ed25519-----\n11qYAYKxCrfVS/7TyWQHOg7hcvPapiMlrwIaaPcHURo=\n-----END Ed25519-----\n';

describe("Orb's PEM form", () => {
  it('writes Ed25519 as a raw 32-byte key under an `Ed25519` block, exactly as Go pem.EncodeToMemory', () => {
    const key = KeyPair.fromSeed('Ed25519', RFC8032_SEED);
    expect(encodePublicKeyPem(key)).toBe(ORIGINAL_ED25519_PEM);
  });

  it('round-trips Ed25519: the parsed key verifies signatures of the key it was written from', () => {
    const key = KeyPair.fromSeed('Ed25519', RFC8032_SEED);
    const parsed = parsePublicKeyPem(ORIGINAL_ED25519_PEM);
    expect(parsed.type).toBe('Ed25519');
    expect(parsed.verify(Buffer.from('msg'), key.sign(Buffer.from('msg')))).toBe(true);
    expect(parsed.verify(Buffer.from('other'), key.sign(Buffer.from('msg')))).toBe(false);
    expect(encodePublicKeyPem(parsed.keyObject)).toBe(ORIGINAL_ED25519_PEM);
  });

  it('writes P-256 and P-384 as the uncompressed point under `P-256` / `P-384` blocks, 64-character lines', () => {
    for (const [type, pointLength] of [
      ['P-256', 65],
      ['P-384', 97],
    ] as const) {
      const key = KeyPair.generate(type);
      const pem = encodePublicKeyPem(key);
      const match = new RegExp(`^-----BEGIN ${type}-----\\n((?:.{64}\\n)*.{1,64})\\n-----END ${type}-----\\n$`).exec(
        pem,
      );
      expect(match).not.toBeNull();
      const point = Buffer.from((match?.[1] ?? '').replace(/\n/g, ''), 'base64');
      expect(point.length).toBe(pointLength);
      expect(point).toEqual(key.publicKeyBytes());
      const parsed = parsePublicKeyPem(pem);
      expect(parsed.type).toBe(type);
      expect(parsed.verify(Buffer.from('m'), key.sign(Buffer.from('m')))).toBe(true);
    }
  });

  it('also reads and writes standard SPKI, including flattened single-line PEM and CRLF', () => {
    const key = KeyPair.generate('Ed25519');
    const spki = encodePublicKeyPem(key, 'spki');
    expect(spki).toBe(key.publicKeyPem());
    for (const variant of [spki, spki.replace(/\n/g, ''), spki.replace(/\n/g, '\r\n')]) {
      expect(parsePublicKeyPem(variant).verify(Buffer.from('m'), key.sign(Buffer.from('m')))).toBe(true);
    }
    const p384 = KeyPair.generate('P-384');
    expect(parsePublicKeyPem(p384.publicKeyPem()).type).toBe('P-384');
    expect(parsePublicKeyPem(KeyPair.generate('secp256k1').publicKeyPem()).type).toBe('secp256k1');
  });

  it.each([
    ['no PEM at all', 'hello', 'no PEM block'],
    ['a short Ed25519 block', '-----BEGIN Ed25519-----\nAAAA\n-----END Ed25519-----', 'holds 32 bytes'],
    [
      'a compressed P-256 point',
      `-----BEGIN P-256-----\n${Buffer.alloc(33, 2).toString('base64')}\n-----END P-256-----`,
      'uncompressed point',
    ],
    [
      'a point off the curve',
      `-----BEGIN P-256-----\n${Buffer.concat([Buffer.from([4]), Buffer.alloc(64, 7)]).toString('base64')}\n-----END P-256-----`,
      'invalid public key',
    ],
    [
      'the P-521 block Orb cannot read either',
      '-----BEGIN P-521-----\nAAAA\n-----END P-521-----',
      'unsupported public key PEM block type "P-521"',
    ],
    [
      'an RSA key',
      generateKeyPairSync('rsa', { modulusLength: 1024 }).publicKey.export({ format: 'pem', type: 'spki' }).toString(),
      'unsupported public key type rsa',
    ],
    ['a non-base64 body', '-----BEGIN Ed25519-----\n@@@@\n-----END Ed25519-----', 'not base64'],
    ['garbage SPKI', '-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----', 'invalid SPKI'],
  ])('rejects %s', (_name, pem, reason) => {
    expect(() => parsePublicKeyPem(pem)).toThrow(PublicKeyFormatError);
    expect(() => parsePublicKeyPem(pem)).toThrow(reason);
  });
});

describe('ECDSA signature encodings', () => {
  it('converts DER to P1363 and leaves P1363 alone; the verifier accepts both', () => {
    const key = KeyPair.generate('P-256');
    const der = sign('sha256', Buffer.from('m'), { key: key.privateKey!, dsaEncoding: 'der' });
    const p1363 = ecdsaSignatureToP1363(der, 32);
    expect(p1363.length).toBe(64);
    expect(key.verify(Buffer.from('m'), p1363)).toBe(true);
    expect(ecdsaSignatureToP1363(p1363, 32)).toEqual(p1363);
    const parsed = parsePublicKeyPem(encodePublicKeyPem(key));
    expect(parsed.verify(Buffer.from('m'), der)).toBe(true);
    expect(parsed.verify(Buffer.from('m'), p1363)).toBe(true);
    expect(parsed.verify(Buffer.from('m'), Buffer.from('garbage'))).toBe(false);
    expect(() => ecdsaSignatureToP1363(Buffer.from('garbage'), 32)).toThrow(TypeError);
  });

  it('accepts the algorithm names a sender may write for a key, and no others', () => {
    expect(algorithmAcceptable('Sign', 'Ed25519')).toBe(true);
    expect(algorithmAcceptable('hs2019', 'P-256')).toBe(true);
    expect(algorithmAcceptable(undefined, 'P-256')).toBe(true);
    expect(algorithmAcceptable('ed25519', 'Ed25519')).toBe(true);
    expect(algorithmAcceptable('ecdsa-sha384', 'P-384')).toBe(true);
    expect(algorithmAcceptable('ed25519', 'P-256')).toBe(false);
    expect(algorithmAcceptable('rsa-sha256', 'Ed25519')).toBe(false);
  });
});

describe('public key documents', () => {
  it("builds the service key document at <service>/keys/main-key, PEM in Orb's form", () => {
    const key = KeyPair.fromSeed('Ed25519', RFC8032_SEED);
    expect(servicePublicKeyDocument({ serviceId: 'https://orb.example.com/services/orb', key })).toEqual({
      id: 'https://orb.example.com/services/orb/keys/main-key',
      owner: 'https://orb.example.com/services/orb',
      publicKeyPem: ORIGINAL_ED25519_PEM,
    });
    expect(servicePublicKeyDocument({ serviceId: 'https://a/services/node', key, pemForm: 'spki' }).publicKeyPem).toBe(
      key.publicKeyPem(),
    );
    expect(serviceKeyId('did:web:a.example:services:node')).toBe('did:web:a.example:services:node#main-key');
  });

  it('parses key documents strictly and reads keys embedded in actor documents', () => {
    const keyId = 'https://a/services/node/keys/main-key';
    const doc = { id: keyId, owner: 'https://a/services/node', publicKeyPem: ORIGINAL_ED25519_PEM };
    expect(parsePublicKeyDocument(doc, keyId)).toEqual(doc);
    expect(() => parsePublicKeyDocument({ ...doc, id: 'https://evil/keys/main-key' }, keyId)).toThrow(
      'does not match keyId',
    );
    expect(() => parsePublicKeyDocument({ ...doc, owner: 'mailto:x' }, keyId)).toThrow('no owner URL');
    expect(() => parsePublicKeyDocument({ id: keyId, owner: doc.owner }, keyId)).toThrow('no publicKeyPem');
    expect(() => parsePublicKeyDocument([doc], keyId)).toThrow('not a JSON object');
    const actor = {
      id: 'https://m/users/a',
      publicKey: { id: 'https://m/users/a#main-key', publicKeyPem: ORIGINAL_ED25519_PEM },
    };
    expect(parsePublicKeyDocument(actor, 'https://m/users/a#main-key').owner).toBe('https://m/users/a');
    expect(() => parsePublicKeyDocument(actor, 'https://m/users/a#other')).toThrow('embeds no key');
  });

  it('reads actor publicKey as an object, a bare id, or a list', () => {
    expect(actorPublicKeyIds({ publicKey: { id: 'k1' } })).toEqual(['k1']);
    expect(actorPublicKeyIds({ publicKey: 'did:web:a#k' })).toEqual(['did:web:a#k']);
    expect(actorPublicKeyIds({ publicKey: [{ id: 'k1' }, 'k2', 7] })).toEqual(['k1', 'k2']);
    expect(actorPublicKeyIds({})).toEqual([]);
  });
});
