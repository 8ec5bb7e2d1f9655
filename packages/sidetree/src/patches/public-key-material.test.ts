import { KeyPair } from '@anchor/common/crypto';
import { base58Encode, base64UrlEncode } from '@anchor/common/encoding';
import { describe, expect, it } from 'vitest';
import { DID_NODE_PROTOCOL } from '../protocol.js';
import { expectBadRequest } from '../testing/assertions.test-helpers.js';
import { validatePatch } from './validate-patch.js';

const addKey = (publicKey: Record<string, unknown>) => ({
  action: 'add-public-keys',
  publicKeys: [{ id: 'k1', type: 'JsonWebKey2020', purposes: ['authentication'], ...publicKey }],
});
const ingest = (patch: unknown, protocol = DID_NODE_PROTOCOL) => validatePatch(patch, 0, protocol, 'ingest');
const anchored = (patch: unknown) => validatePatch(patch, 0, DID_NODE_PROTOCOL, 'anchored');
const ed = KeyPair.generate('Ed25519').publicJwk() as { kty: string; crv: string; x: string };
const p256 = KeyPair.generate('P-256').publicJwk() as { kty: string; crv: string; x: string; y: string };

describe('public keys are usable keys at ingest', () => {
  it('accepts real keys of every supported curve', () => {
    for (const type of ['Ed25519', 'P-256', 'P-384', 'secp256k1'] as const)
      expect(ingest(addKey({ publicKeyJwk: KeyPair.generate(type).publicJwk() }))).toBeTruthy();
    const x25519 = KeyPair.generate('X25519').publicJwk();
    expect(
      ingest(addKey({ type: 'X25519KeyAgreementKey2019', purposes: ['keyAgreement'], publicKeyJwk: x25519 })),
    ).toBeTruthy();
  });

  it('refuses the garbage Orb published: NUL, URLs, 33 bytes, spaces, non-ASCII, unknown curves', () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ ...ed, x: '\u0000' }, 'publicKeyJwk.x is not canonical base64url'],
      [{ ...ed, x: 'https://evil.example/key' }, 'publicKeyJwk.x is not canonical base64url'],
      [{ ...ed, x: base64UrlEncode(Buffer.alloc(33, 1)) }, 'publicKeyJwk.x must be 32 bytes for Ed25519, not 33'],
      [{ ...ed, x: ` ${ed.x} ` }, 'publicKeyJwk.x is not canonical base64url'],
      [{ ...ed, x: `${ed.x.slice(0, -1)}é` }, 'publicKeyJwk.x is not canonical base64url'],
      [{ ...ed, crv: 'Ed25519A' }, 'publicKeyJwk OKP curve "Ed25519A" is not supported'],
      [{ ...ed, crv: 'https://evil.example/curve' }, 'is not supported'],
      [{ ...ed, kty: 'oct' }, 'publicKeyJwk kty "oct" is not supported'],
      [{ ...p256, y: p256.x }, 'publicKeyJwk is not a valid P-256 point'],
      [{ ...p256, y: undefined }, 'publicKeyJwk.y is missing'],
      [{ kty: 'RSA', n: base64UrlEncode(Buffer.alloc(64, 7)), e: 'AQAB' }, 'RSA modulus must be 2048 to 8192 bits'],
    ];
    for (const [publicKeyJwk, message] of cases) {
      expectBadRequest(() => ingest(addKey({ publicKeyJwk })), `public key 'k1' `);
      expectBadRequest(() => ingest(addKey({ publicKeyJwk })), message);
    }
  });

  it('refuses an Ed25519 x that does not decompress to a curve point', () => {
    // y = 2 is not the y-coordinate of any Ed25519 point (x^2 = (y^2-1)/(d y^2+1) has no root).
    const notOnCurve = Buffer.alloc(32);
    notOnCurve[0] = 2;
    expectBadRequest(
      () => ingest(addKey({ publicKeyJwk: { ...ed, x: base64UrlEncode(notOnCurve) } })),
      'publicKeyJwk is not a valid Ed25519 point',
    );
  });

  it('checks publicKeyBase58 lengths and points for the types that carry one', () => {
    const raw = Buffer.from(ed.x, 'base64url');
    const base58 = (bytes: Uint8Array) => ({
      id: 'b',
      type: 'Ed25519VerificationKey2018',
      publicKeyBase58: base58Encode(bytes),
    });
    expect(ingest({ action: 'add-public-keys', publicKeys: [base58(raw)] })).toBeTruthy();
    expectBadRequest(
      () => ingest({ action: 'add-public-keys', publicKeys: [base58(Buffer.alloc(33, 1))] }),
      'must decode to 32 bytes for Ed25519VerificationKey2018, not 33',
    );
    const bad = Buffer.alloc(32);
    bad[0] = 2;
    expectBadRequest(
      () => ingest({ action: 'add-public-keys', publicKeys: [base58(bad)] }),
      'publicKeyBase58 is not a valid Ed25519 point',
    );
  });

  it('lets unknown key types through only where the protocol allows them, and anchored data always', () => {
    const odd = addKey({ publicKeyJwk: { kty: 'EC', crv: 'brainpoolP256r1', x: 'AA', y: 'AA' } });
    expectBadRequest(() => ingest(odd), 'publicKeyJwk EC curve "brainpoolP256r1" is not supported');
    expect(ingest(odd, { ...DID_NODE_PROTOCOL, allowUnknownKeyTypes: true })).toBeTruthy();
    expect(anchored(addKey({ publicKeyJwk: { ...ed, x: '\u0000' } }))).toBeTruthy();
  });
});
