import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { encryptWithNonce } from './aead.js';
import {
  KmsCryptoError,
  computeMac,
  decrypt,
  exportPublicKey,
  importPrivateKey,
  sign,
  verify,
  verifyMac,
  verifyWithPublicKey,
  type KmsKeyType,
} from './index.js';

/**
 * Known-answer vectors (vectors/README.md: sources, versions, licences): RFC 8032 and RFC 6979 parsed from the
 * RFC texts, RFC 4231, and Wycheproof for ECDSA, Ed25519, AES-GCM, ChaCha20-Poly1305, XChaCha20-Poly1305 and
 * HMAC-SHA256. Wycheproof's "acceptable" cases may go either way; each file's counts are printed.
 */
const hex = (text: string): Buffer => Buffer.from(text, 'hex');
const vectorFile = (name: string): Buffer => readFileSync(new URL(`./vectors/${name}`, import.meta.url));
const json = <T>(name: string): T =>
  JSON.parse((name.endsWith('.gz') ? gunzipSync(vectorFile(name)) : vectorFile(name)).toString('utf8')) as T;

interface WycheproofFile<G> {
  algorithm: string;
  numberOfTests: number;
  testGroups: G[];
}
type Result = 'valid' | 'invalid' | 'acceptable';
interface WycheproofTest {
  tcId: number;
  comment: string;
  result: Result;
  flags: string[];
}

const counts = new Map<string, { ran: number; notApplicable: number }>();
function count(file: string, ran: number, notApplicable = 0): void {
  const entry = counts.get(file) ?? { ran: 0, notApplicable: 0 };
  counts.set(file, { ran: entry.ran + ran, notApplicable: entry.notApplicable + notApplicable });
}

afterAll(() => {
  for (const [file, { ran, notApplicable }] of counts)
    console.log(`${file}: ${ran} vectors ran, ${notApplicable} not applicable`);
});

/** An EC private key as a JWK, the way a client would import one. */
function ecJwk(curve: string, d: Buffer, size: number): object {
  const fixed = Buffer.concat([Buffer.alloc(size - d.length), d]);
  return { kty: 'EC', crv: curve, d: fixed.toString('base64url') };
}

describe('RFC 8032 §7.1 Ed25519', () => {
  const vectors =
    json<Array<{ name: string; secretKey: string; publicKey: string; message: string; signature: string }>>(
      'rfc8032-ed25519.json.gz',
    );

  it.each(vectors.map((v) => [v.name, v] as const))('TEST %s: public key, signature and verification', (_name, v) => {
    const m = importPrivateKey('ED25519', { kty: 'OKP', crv: 'Ed25519', d: hex(v.secretKey).toString('base64url') });
    expect(Buffer.from(exportPublicKey(m)).toString('hex')).toBe(v.publicKey);
    expect(Buffer.from(sign(m, hex(v.message))).toString('hex')).toBe(v.signature);
    expect(verify(m, hex(v.signature), hex(v.message))).toBe(true);
    expect(verifyWithPublicKey('ED25519', hex(v.publicKey), hex(v.signature), hex(v.message))).toBe(true);
    count('rfc8032-ed25519', 1);
  });
});

describe('RFC 6979 A.2.5-A.2.7 ECDSA', () => {
  interface Rfc6979Curve {
    curve: string;
    private: string;
    Ux: string;
    Uy: string;
    cases: Array<{ hash: string; message: string; r: string; s: string }>;
  }
  const curves: Array<{ section: string; name: string; size: number; hash: string; types: [KmsKeyType, KmsKeyType] }> =
    [
      { section: 'A.2.5', name: 'P-256', size: 32, hash: 'SHA-256', types: ['ECDSAP256IEEEP1363', 'ECDSAP256DER'] },
      { section: 'A.2.6', name: 'P-384', size: 48, hash: 'SHA-384', types: ['ECDSAP384IEEEP1363', 'ECDSAP384DER'] },
      { section: 'A.2.7', name: 'P-521', size: 66, hash: 'SHA-512', types: ['ECDSAP521IEEEP1363', 'ECDSAP521DER'] },
    ];
  const all = json<Rfc6979Curve[]>('rfc6979-ecdsa.json.gz');

  it.each(curves.map((c) => [c.section, c] as const))(
    '%s: the key derives its public point; the fixed signatures verify, altered ones do not',
    (_section, c) => {
      const vector = all.find((v) => v.curve === `NIST ${c.name}`);
      if (!vector) throw new Error(`no RFC 6979 vector for ${c.name}`);
      const [p1363, der] = c.types;
      const pad = (text: string) =>
        Buffer.concat([Buffer.alloc(c.size), hex(text.length % 2 ? `0${text}` : text)]).subarray(-c.size);
      const m = importPrivateKey(p1363, ecJwk(c.name, pad(vector.private), c.size));
      expect(Buffer.from(exportPublicKey(m))).toEqual(
        Buffer.concat([Buffer.from([4]), pad(vector.Ux), pad(vector.Uy)]),
      );
      const cases = vector.cases.filter((k) => k.hash === c.hash);
      expect(cases.map((k) => k.message)).toEqual(['sample', 'test']);
      const derKey = importPrivateKey(der, ecJwk(c.name, pad(vector.private), c.size));
      for (const k of cases) {
        const message = Buffer.from(k.message);
        const signature = Buffer.concat([pad(k.r), pad(k.s)]);
        expect(verify(m, signature, message)).toBe(true);
        expect(verify(m, signature, Buffer.from(`${k.message}!`))).toBe(false);
        const altered = Buffer.from(signature);
        altered[altered.length - 1]! ^= 1;
        expect(verify(m, altered, message)).toBe(false);
        expect(verify(derKey, derEncode(signature), message)).toBe(true);
        count('rfc6979-ecdsa', 1);
      }
      // Signing is randomised in node:crypto (RFC 6979 is not used), so a signature of ours is only checked to verify.
      expect(verify(derKey, sign(derKey, Buffer.from('sample')), Buffer.from('sample'))).toBe(true);
    },
  );
});

/** DER `SEQUENCE { INTEGER r, INTEGER s }` of a P1363 `r || s`, minimal integers. */
function derEncode(p1363: Buffer): Buffer {
  const integer = (value: Buffer) => {
    let start = 0;
    while (start < value.length - 1 && value[start] === 0) start++;
    const body =
      value[start]! & 0x80 ? Buffer.concat([Buffer.from([0]), value.subarray(start)]) : value.subarray(start);
    return Buffer.concat([Buffer.from([0x02, body.length]), body]);
  };
  const half = p1363.length / 2;
  const content = Buffer.concat([integer(p1363.subarray(0, half)), integer(p1363.subarray(half))]);
  const length = content.length < 0x80 ? Buffer.from([content.length]) : Buffer.from([0x81, content.length]);
  return Buffer.concat([Buffer.from([0x30]), length, content]);
}

describe('Wycheproof ECDSA', () => {
  interface EcdsaGroup {
    publicKey: { uncompressed: string };
    publicKeyDer: string;
    tests: Array<WycheproofTest & { msg: string; sig: string }>;
  }
  const files: Array<[string, KmsKeyType, 'der' | 'p1363']> = [
    ['ecdsa_secp256r1_sha256_test', 'ECDSAP256DER', 'der'],
    ['ecdsa_secp256r1_sha256_p1363_test', 'ECDSAP256IEEEP1363', 'p1363'],
    ['ecdsa_secp384r1_sha384_test', 'ECDSAP384DER', 'der'],
    ['ecdsa_secp384r1_sha384_p1363_test', 'ECDSAP384IEEEP1363', 'p1363'],
    ['ecdsa_secp521r1_sha512_test', 'ECDSAP521DER', 'der'],
    ['ecdsa_secp521r1_sha512_p1363_test', 'ECDSAP521IEEEP1363', 'p1363'],
    ['ecdsa_secp256k1_sha256_test', 'ECDSASecp256k1DER', 'der'],
    ['ecdsa_secp256k1_sha256_p1363_test', 'ECDSASecp256k1IEEEP1363', 'p1363'],
  ];

  it.each(files)('%s as %s: valid verify, invalid do not, nothing throws', (file, type, encoding) => {
    const data = json<WycheproofFile<EcdsaGroup>>(`wycheproof-${file}.json.gz`);
    let ran = 0;
    let acceptable = 0;
    for (const group of data.testGroups) {
      const publicKey = hex(encoding === 'der' ? group.publicKeyDer : group.publicKey.uncompressed);
      for (const test of group.tests) {
        const verified = verifyWithPublicKey(type, publicKey, hex(test.sig), hex(test.msg));
        if (test.result === 'acceptable') acceptable++;
        else expect(verified, `tcId ${test.tcId} (${test.comment})`).toBe(test.result === 'valid');
        ran++;
      }
    }
    expect(ran).toBe(data.numberOfTests);
    count(`wycheproof ${file}`, ran - acceptable, acceptable);
  });
});

describe('Wycheproof Ed25519', () => {
  interface EddsaGroup {
    publicKey: { pk: string };
    tests: Array<WycheproofTest & { msg: string; sig: string }>;
  }

  it('ed25519_test: valid verify, invalid do not, nothing throws', () => {
    const data = json<WycheproofFile<EddsaGroup>>('wycheproof-ed25519_test.json.gz');
    let ran = 0;
    for (const group of data.testGroups) {
      for (const test of group.tests) {
        const verified = verifyWithPublicKey('ED25519', hex(group.publicKey.pk), hex(test.sig), hex(test.msg));
        expect(verified, `tcId ${test.tcId} (${test.comment})`).toBe(test.result === 'valid');
        ran++;
      }
    }
    expect(ran).toBe(data.numberOfTests);
    count('wycheproof ed25519_test', ran);
  });
});

describe('Wycheproof AEAD', () => {
  interface AeadGroup {
    ivSize: number;
    keySize: number;
    tagSize: number;
    tests: Array<WycheproofTest & { key: string; iv: string; aad: string; msg: string; ct: string; tag: string }>;
  }
  const files: Array<[string, (keyBits: number) => KmsKeyType | undefined, number]> = [
    ['aes_gcm_test', (bits) => (bits === 128 ? 'AES128GCM' : bits === 256 ? 'AES256GCM' : undefined), 96],
    ['chacha20_poly1305_test', () => 'ChaCha20Poly1305', 96],
    ['xchacha20_poly1305_test', () => 'XChaCha20Poly1305', 192],
  ];

  it.each(files)('%s: valid encrypt to ct||tag and decrypt; invalid fail to decrypt', (file, typeOf, ivBits) => {
    const data = json<WycheproofFile<AeadGroup>>(`wycheproof-${file}.json.gz`);
    let ran = 0;
    let notApplicable = 0;
    for (const group of data.testGroups) {
      const type = typeOf(group.keySize);
      // AES-192 is no key type of aries; nonces other than the type's size and truncated tags are
      // refused as input (checked below) rather than computed.
      if (!type || group.tagSize !== 128) {
        notApplicable += group.tests.length;
        continue;
      }
      for (const test of group.tests) {
        const m = importPrivateKey(type, hex(test.key));
        const sealed = Buffer.concat([hex(test.ct), hex(test.tag)]);
        const label = `tcId ${test.tcId} (${test.comment})`;
        if (group.ivSize !== ivBits) {
          expect(() => decrypt(m, sealed, hex(test.aad), hex(test.iv)), label).toThrow(
            expect.objectContaining({ code: 'bad-input' }),
          );
          notApplicable++;
          continue;
        }
        if (test.result === 'valid') {
          expect(
            Buffer.from(encryptWithNonce(m, hex(test.msg), hex(test.aad), hex(test.iv))).toString('hex'),
            label,
          ).toBe(test.ct + test.tag);
          expect(Buffer.from(decrypt(m, sealed, hex(test.aad), hex(test.iv))).toString('hex'), label).toBe(test.msg);
        } else {
          expect(() => decrypt(m, sealed, hex(test.aad), hex(test.iv)), label).toThrow(
            expect.objectContaining({ code: 'decrypt-failed' }),
          );
        }
        ran++;
      }
    }
    expect(ran + notApplicable).toBe(data.numberOfTests);
    count(`wycheproof ${file}`, ran, notApplicable);
  });

  it('RFC 8439 §2.8.2 is Wycheproof ChaCha20-Poly1305 tcId 1 (RFC 7539, the same text)', () => {
    const data = json<WycheproofFile<AeadGroup>>('wycheproof-chacha20_poly1305_test.json.gz');
    const test = data.testGroups.flatMap((g) => g.tests).find((t) => t.tcId === 1)!;
    expect(test.comment).toBe('RFC 7539');
    expect(Buffer.from(hex(test.msg)).toString('utf8')).toMatch(/^Ladies and Gentlemen of the class of '99/);
    const m = importPrivateKey('ChaCha20Poly1305', hex(test.key));
    expect(Buffer.from(encryptWithNonce(m, hex(test.msg), hex(test.aad), hex(test.iv))).toString('hex')).toBe(
      test.ct + test.tag,
    );
    expect(test.tag).toBe('1ae10b594f09e26a7e902ecbd0600691');
  });

  it('draft-irtf-cfrg-xchacha A.3.1 is Wycheproof XChaCha20-Poly1305 tcId 1 (draft-arciszewski-xchacha-02, its earlier name)', () => {
    const data = json<WycheproofFile<AeadGroup>>('wycheproof-xchacha20_poly1305_test.json.gz');
    const test = data.testGroups.flatMap((g) => g.tests).find((t) => t.tcId === 1)!;
    expect(test.comment).toBe('draft-arciszewski-xchacha-02');
    expect(test.iv).toBe('404142434445464748494a4b4c4d4e4f5051525354555657');
    const m = importPrivateKey('XChaCha20Poly1305', hex(test.key));
    expect(Buffer.from(encryptWithNonce(m, hex(test.msg), hex(test.aad), hex(test.iv))).toString('hex')).toBe(
      test.ct + test.tag,
    );
    expect(test.tag).toBe('c0875924c1c7987947deafd8780acf49');
  });
});

describe('HMAC-SHA256', () => {
  interface MacGroup {
    keySize: number;
    tagSize: number;
    tests: Array<WycheproofTest & { key: string; msg: string; tag: string }>;
  }

  it('Wycheproof hmac_sha256_test: full tags compute and verify; truncated tags never verify', () => {
    const data = json<WycheproofFile<MacGroup>>('wycheproof-hmac_sha256_test.json.gz');
    let ran = 0;
    let notApplicable = 0;
    for (const group of data.testGroups) {
      for (const test of group.tests) {
        const label = `tcId ${test.tcId} (${test.comment})`;
        const key = hex(test.key);
        if (key.length < 16 || key.length > 256) {
          expect(() => importPrivateKey('HMACSHA256Tag256', key), label).toThrow(
            expect.objectContaining({ code: 'bad-input' }),
          );
          notApplicable++;
          continue;
        }
        const m = importPrivateKey('HMACSHA256Tag256', key);
        const tag = hex(test.tag);
        const computed = Buffer.from(computeMac(m, hex(test.msg)));
        if (test.result === 'valid') expect(computed.subarray(0, tag.length).equals(tag), label).toBe(true);
        expect(verifyMac(m, tag, hex(test.msg)), label).toBe(test.result === 'valid' && group.tagSize === 256);
        ran++;
      }
    }
    expect(ran + notApplicable).toBe(data.numberOfTests);
    count('wycheproof hmac_sha256_test', ran, notApplicable);
  });

  it('RFC 4231 §4.2-4.8; test case 2 (a 4-byte key) is refused as too short', () => {
    const data = json<{
      cases: Array<{
        testCase: number;
        key: string;
        data: string;
        hmacSha256?: string;
        hmacSha256Truncated128?: string;
      }>;
    }>('rfc4231-hmac-sha256.json');
    for (const c of data.cases) {
      if (c.testCase === 2) {
        expect(() => importPrivateKey('HMACSHA256Tag256', hex(c.key))).toThrow(KmsCryptoError);
        count('rfc4231-hmac-sha256', 0, 1);
        continue;
      }
      const m = importPrivateKey('HMACSHA256Tag256', hex(c.key));
      const mac = Buffer.from(computeMac(m, hex(c.data))).toString('hex');
      if (c.hmacSha256) {
        expect(mac, `test case ${c.testCase}`).toBe(c.hmacSha256);
        expect(verifyMac(m, hex(c.hmacSha256), hex(c.data))).toBe(true);
      } else {
        expect(mac.slice(0, 32), `test case ${c.testCase}`).toBe(c.hmacSha256Truncated128);
      }
      count('rfc4231-hmac-sha256', 1);
    }
  });
});
