import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  KEY_TYPES,
  KmsCryptoError,
  decrypt,
  easyOpen,
  encrypt,
  exportPublicKey,
  generateKey,
  importPrivateKey,
  keyKind,
  sealOpen,
  sign,
  verify,
  verifyMac,
  verifyWithPublicKey,
  type KmsKeyType,
} from './index.js';

/**
 * Property tests of everything a client's bytes reach, with a fixed seed (the same cases every run): the core
 * answers or throws a KmsCryptoError, never anything else (which the service would turn into a 500).
 */
const RUNS = { seed: 20261126, numRuns: 300 };
const NON_BBS = KEY_TYPES.filter((type) => type !== 'BLS12381G2');
const ALL_TYPES = [...KEY_TYPES];
const SIGNING = NON_BBS.filter((type) => keyKind(type) === 'signing');
const AEAD = NON_BBS.filter((type) => keyKind(type) === 'aead');

/** Runs `fn`; a KmsCryptoError is an answer, anything else thrown fails the property. */
function answers(fn: () => unknown): boolean {
  try {
    fn();
    return true;
  } catch (error) {
    if (error instanceof KmsCryptoError) return true;
    throw error;
  }
}

const bytes = (maxLength = 200) => fc.uint8Array({ maxLength });
/** A valid encoding with a few bytes flipped, truncated or extended: the inputs most likely to confuse a parser. */
function mutated(valid: Uint8Array) {
  return fc
    .tuple(
      fc.array(fc.tuple(fc.nat(), fc.integer({ min: 1, max: 255 })), { maxLength: 4 }),
      fc.integer({ min: -8, max: 8 }),
    )
    .map(([flips, resize]) => {
      const out = Buffer.from(valid);
      for (const [at, mask] of flips) out[at % out.length]! ^= mask;
      return resize < 0
        ? out.subarray(0, Math.max(0, out.length + resize))
        : Buffer.concat([out, Buffer.alloc(resize, 0x41)]);
    });
}

describe('hostile input', () => {
  it('importPrivateKey: random bytes, mutated PKCS#8 and random JSON only ever answer or throw KmsCryptoError', () => {
    // An Ed25519 PKCS#8 (the RFC 8032 TEST 1 seed), the base of the mutations.
    const validDer = Buffer.from(
      '302e020100300506032b657004220420' + '9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60',
      'hex',
    );
    fc.assert(
      fc.property(fc.constantFrom(...ALL_TYPES), bytes(), (type, input) =>
        answers(() => importPrivateKey(type, input)),
      ),
      RUNS,
    );
    fc.assert(
      fc.property(
        fc.constantFrom<KmsKeyType>('ED25519', 'X25519ECDHKW', 'ECDSAP256DER'),
        mutated(validDer),
        (type, input) => answers(() => importPrivateKey(type, input)),
      ),
      RUNS,
    );
    fc.assert(
      fc.property(fc.constantFrom(...NON_BBS), fc.object(), (type, input) =>
        answers(() => importPrivateKey(type, input)),
      ),
      RUNS,
    );
    fc.assert(
      fc.property(
        fc.constantFrom(...NON_BBS),
        fc.record(
          {
            kty: fc.constantFrom('EC', 'OKP', 'oct', 'RSA'),
            crv: fc.constantFrom('P-256', 'P-521', 'Ed25519', 'X25519', 'secp256k1'),
            d: fc.string(),
            x: fc.string(),
            y: fc.string(),
            k: fc.string(),
          },
          { requiredKeys: ['kty'] },
        ),
        (type, input) => answers(() => importPrivateKey(type, input)),
      ),
      RUNS,
    );
  });

  it('verify and verifyWithPublicKey: random and mutated signatures and keys give a boolean or a KmsCryptoError', () => {
    const keys = new Map(SIGNING.map((type) => [type, generateKey(type)]));
    const message = Buffer.from('message');
    fc.assert(
      fc.property(fc.constantFrom(...SIGNING), bytes(), (type, signature) => {
        expect(verify(keys.get(type)!, signature, message)).toBe(false);
        return true;
      }),
      RUNS,
    );
    for (const type of SIGNING) {
      const m = keys.get(type)!;
      const signature = sign(m, message);
      const publicKey = exportPublicKey(m);
      fc.assert(
        fc.property(mutated(signature), (altered) => typeof verify(m, altered, message) === 'boolean'),
        { ...RUNS, numRuns: 40 },
      );
      fc.assert(
        fc.property(mutated(publicKey), (altered) =>
          answers(() => verifyWithPublicKey(type, altered, signature, message)),
        ),
        { ...RUNS, numRuns: 40 },
      );
    }
  });

  it('decrypt, verifyMac, easyOpen and sealOpen: random input is refused with a KmsCryptoError', () => {
    const aead = new Map(AEAD.map((type) => [type, generateKey(type)]));
    fc.assert(
      fc.property(fc.constantFrom(...AEAD), bytes(), bytes(32), bytes(32), (type, ciphertext, aad, nonce) => {
        expect(() => decrypt(aead.get(type)!, ciphertext, aad, nonce)).toThrow(KmsCryptoError);
        return true;
      }),
      RUNS,
    );
    const m = aead.get('AES256GCM')!;
    const sealed = encrypt(m, Buffer.from('plaintext'), Buffer.alloc(0));
    fc.assert(
      fc.property(mutated(sealed.ciphertext), (altered) =>
        answers(() => decrypt(m, altered, Buffer.alloc(0), sealed.nonce)),
      ),
      RUNS,
    );
    const mac = generateKey('HMACSHA256Tag256');
    fc.assert(
      fc.property(bytes(64), (tag) => {
        expect(verifyMac(mac, tag, Buffer.from('data'))).toBe(false);
        return true;
      }),
      RUNS,
    );
    const ed = generateKey('ED25519');
    fc.assert(
      fc.property(bytes(), bytes(30), bytes(40), (ciphertext, nonce, theirPub) => {
        expect(() => easyOpen(ed, ciphertext, nonce, theirPub)).toThrow(KmsCryptoError);
        expect(() => sealOpen(ed, ciphertext)).toThrow(KmsCryptoError);
        return true;
      }),
      RUNS,
    );
  });
});
