import { createPrivateKey, createPublicKey, verify as nodeVerify, type KeyObject } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  KEY_TYPES,
  KmsCryptoError,
  SECRET_FORMAT_VERSION,
  exportPublicKey,
  generateKey,
  importPrivateKey,
  isKmsKeyType,
  keyKind,
  keyMaterial,
  rawSecret,
  sign,
  verify,
  type KeyMaterial,
  type KmsKeyType,
} from './index.js';
import { generateEcPrivateKey, okpPrivateKey } from './key-objects.js';
import { EC_CURVES } from './key-types.js';

const ASYMMETRIC_SIGNING: KmsKeyType[] = [
  'ED25519',
  'ECDSAP256DER',
  'ECDSAP384DER',
  'ECDSAP521DER',
  'ECDSAP256IEEEP1363',
  'ECDSAP384IEEEP1363',
  'ECDSAP521IEEEP1363',
  'ECDSASecp256k1DER',
  'ECDSASecp256k1IEEEP1363',
];
const ECDH: KmsKeyType[] = ['NISTP256ECDHKW', 'NISTP384ECDHKW', 'NISTP521ECDHKW', 'X25519ECDHKW'];
const SYMMETRIC: Array<[KmsKeyType, number]> = [
  ['AES128GCM', 16],
  ['AES256GCM', 32],
  ['AES256GCMNoPrefix', 32],
  ['ChaCha20Poly1305', 32],
  ['XChaCha20Poly1305', 32],
  ['HMACSHA256Tag256', 32],
];

/** Which node key a type's PKCS#8 holds: OpenSSL's curve name, or the OKP algorithm. */
const NODE_KEY: Record<string, { curve: string; size: number } | 'ed25519' | 'x25519'> = {
  ED25519: 'ed25519',
  X25519ECDHKW: 'x25519',
  ECDSAP256DER: { curve: 'P-256', size: 32 },
  ECDSAP256IEEEP1363: { curve: 'P-256', size: 32 },
  NISTP256ECDHKW: { curve: 'P-256', size: 32 },
  ECDSAP384DER: { curve: 'P-384', size: 48 },
  ECDSAP384IEEEP1363: { curve: 'P-384', size: 48 },
  NISTP384ECDHKW: { curve: 'P-384', size: 48 },
  ECDSAP521DER: { curve: 'P-521', size: 66 },
  ECDSAP521IEEEP1363: { curve: 'P-521', size: 66 },
  NISTP521ECDHKW: { curve: 'P-521', size: 66 },
  ECDSASecp256k1DER: { curve: 'secp256k1', size: 32 },
  ECDSASecp256k1IEEEP1363: { curve: 'secp256k1', size: 32 },
};

/** An independent private key of the type's curve, made by node:crypto. */
function nodePrivateKey(type: KmsKeyType): KeyObject {
  const spec = NODE_KEY[type]!;
  if (spec === 'ed25519') return okpPrivateKey('Ed25519', Buffer.alloc(32, 7));
  if (spec === 'x25519') return okpPrivateKey('X25519', Buffer.alloc(32, 9));
  return generateEcPrivateKey(EC_CURVES[spec.curve as keyof typeof EC_CURVES]);
}

function code(fn: () => unknown): string {
  try {
    fn();
  } catch (error) {
    if (error instanceof KmsCryptoError) return error.code;
    throw error;
  }
  throw new Error('expected a KmsCryptoError');
}

describe('key types', () => {
  it("are aries' spellings, RSA and AnonCreds left out", () => {
    expect(KEY_TYPES).toHaveLength(20);
    for (const type of KEY_TYPES) expect(isKmsKeyType(type)).toBe(true);
    for (const other of [
      'RSARS256',
      'RSAPS256',
      'CLCredDef',
      'ed25519',
      'AES192GCM',
      '',
      42,
      null,
      'toString',
      '__proto__',
    ]) {
      expect(isKmsKeyType(other)).toBe(false);
    }
  });

  it('each has the kind that decides its operations', () => {
    for (const type of ASYMMETRIC_SIGNING) expect(keyKind(type)).toBe('signing');
    for (const type of ECDH) expect(keyKind(type)).toBe('ecdh');
    for (const [type] of SYMMETRIC) expect(keyKind(type)).toBe(type === 'HMACSHA256Tag256' ? 'mac' : 'aead');
    expect(keyKind('BLS12381G2')).toBe('bbs');
  });
});

describe('generateKey', () => {
  it.each([...ASYMMETRIC_SIGNING, ...ECDH, ...SYMMETRIC.map(([type]) => type)])(
    '%s: a versioned secret of the right size, fresh each time',
    (type) => {
      const a = generateKey(type);
      const b = generateKey(type);
      expect(a.type).toBe(type);
      expect(a.secret[0]).toBe(SECRET_FORMAT_VERSION);
      const size =
        SYMMETRIC.find(([t]) => t === type)?.[1] ??
        (typeof NODE_KEY[type] === 'string' ? 32 : (NODE_KEY[type] as { size: number }).size);
      expect(rawSecret(a)).toHaveLength(size);
      expect(Buffer.from(a.secret).equals(Buffer.from(b.secret))).toBe(false);
    },
  );

  it('refuses an unknown type', () => {
    expect(code(() => generateKey('RSARS256' as KmsKeyType))).toBe('bad-input');
  });
});

describe('exportPublicKey', () => {
  it('ED25519: the raw 32-byte key', () => {
    const m = importPrivateKey(
      'ED25519',
      Buffer.from(okpPrivateKey('Ed25519', Buffer.alloc(32, 1)).export({ format: 'der', type: 'pkcs8' })),
    );
    const expected = createPublicKey(okpPrivateKey('Ed25519', Buffer.alloc(32, 1))).export({ format: 'jwk' })
      .x as string;
    expect(Buffer.from(exportPublicKey(m)).toString('base64url')).toBe(expected);
  });

  it.each(['ECDSAP256DER', 'ECDSAP384DER', 'ECDSAP521DER', 'ECDSASecp256k1DER'] as const)(
    '%s: SubjectPublicKeyInfo DER of its curve',
    (type) => {
      const m = generateKey(type);
      const key = createPublicKey({ key: Buffer.from(exportPublicKey(m)), format: 'der', type: 'spki' });
      const curve = EC_CURVES[(NODE_KEY[type] as { curve: keyof typeof EC_CURVES }).curve];
      expect(key.asymmetricKeyDetails?.namedCurve).toBe(curve.opensslName);
    },
  );

  it.each([
    ['ECDSAP256IEEEP1363', 65],
    ['ECDSAP384IEEEP1363', 97],
    ['ECDSAP521IEEEP1363', 133],
    ['ECDSASecp256k1IEEEP1363', 65],
  ] as const)('%s: the uncompressed point 04||X||Y (%i bytes)', (type, length) => {
    const bytes = exportPublicKey(generateKey(type));
    expect(bytes).toHaveLength(length);
    expect(bytes[0]).toBe(4);
  });

  it.each([
    ['NISTP256ECDHKW', 'P-256', 32],
    ['NISTP384ECDHKW', 'P-384', 48],
    ['NISTP521ECDHKW', 'P-521', 66],
  ] as const)(
    '%s: the aries JSON {kid,x,y,curve,type}, coordinates in standard base64 at full size',
    (type, curve, size) => {
      const m = generateKey(type);
      const json = JSON.parse(Buffer.from(exportPublicKey(m, 'key-1')).toString('utf8'));
      expect(Object.keys(json)).toEqual(['kid', 'x', 'y', 'curve', 'type']);
      expect(json).toMatchObject({ kid: 'key-1', curve, type: 'EC' });
      expect(Buffer.from(json.x, 'base64')).toHaveLength(size);
      const point = createPublicKey({
        key: {
          kty: 'EC',
          crv: curve,
          x: Buffer.from(json.x, 'base64').toString('base64url'),
          y: Buffer.from(json.y, 'base64').toString('base64url'),
        },
        format: 'jwk',
      });
      expect(point.asymmetricKeyType).toBe('ec');
      expect(Object.keys(JSON.parse(Buffer.from(exportPublicKey(m)).toString('utf8')))).toEqual([
        'x',
        'y',
        'curve',
        'type',
      ]);
    },
  );

  it('X25519ECDHKW: {kid,x,curve:"X25519",type:"OKP"}, no y', () => {
    const json = JSON.parse(Buffer.from(exportPublicKey(generateKey('X25519ECDHKW'), 'k')).toString('utf8'));
    expect(Object.keys(json)).toEqual(['kid', 'x', 'curve', 'type']);
    expect(json).toMatchObject({ curve: 'X25519', type: 'OKP' });
    expect(Buffer.from(json.x, 'base64')).toHaveLength(32);
  });

  it.each(SYMMETRIC.map(([type]) => type))('%s: symmetric keys have no public key (wrong-key-kind)', (type) => {
    expect(code(() => exportPublicKey(generateKey(type)))).toBe('wrong-key-kind');
  });
});

describe('importPrivateKey', () => {
  it.each([...ASYMMETRIC_SIGNING, ...ECDH])(
    '%s: PKCS#8 DER from another implementation keeps its public key',
    (type) => {
      const privateKey = nodePrivateKey(type);
      const m = importPrivateKey(type, privateKey.export({ format: 'der', type: 'pkcs8' }));
      const publicJwk = createPublicKey(privateKey).export({ format: 'jwk' });
      const exported = Buffer.from(exportPublicKey(m));
      if (keyKind(type) === 'ecdh') {
        const json = JSON.parse(exported.toString('utf8'));
        expect(Buffer.from(json.x, 'base64').toString('base64url')).toBe(publicJwk.x);
      } else if (type === 'ED25519') {
        expect(exported.toString('base64url')).toBe(publicJwk.x);
      } else if (type.endsWith('DER')) {
        expect(exported.equals(createPublicKey(privateKey).export({ format: 'der', type: 'spki' }))).toBe(true);
      } else {
        expect(exported.subarray(1, 1 + (exported.length - 1) / 2).toString('base64url')).toBe(publicJwk.x);
      }
    },
  );

  it.each(ASYMMETRIC_SIGNING)('%s: an imported key signs what the other implementation verifies', (type) => {
    const privateKey = nodePrivateKey(type);
    const m = importPrivateKey(type, privateKey.export({ format: 'jwk' }));
    const message = Buffer.from('imported');
    const signature = sign(m, message);
    const publicKey = createPublicKey(privateKey);
    if (type === 'ED25519') expect(nodeVerify(null, message, publicKey, signature)).toBe(true);
    else {
      const hash = type.includes('384') ? 'sha384' : type.includes('521') ? 'sha512' : 'sha256';
      const dsaEncoding = type.endsWith('DER') ? 'der' : 'ieee-p1363';
      expect(nodeVerify(hash, message, { key: publicKey, dsaEncoding }, signature)).toBe(true);
    }
  });

  it('refuses PKCS#8 of another curve or algorithm, and bytes that are no PKCS#8', () => {
    const p256 = nodePrivateKey('ECDSAP256DER').export({ format: 'der', type: 'pkcs8' });
    const ed25519 = nodePrivateKey('ED25519').export({ format: 'der', type: 'pkcs8' });
    expect(code(() => importPrivateKey('ECDSAP384DER', p256))).toBe('bad-input');
    expect(code(() => importPrivateKey('ECDSASecp256k1DER', p256))).toBe('bad-input');
    expect(code(() => importPrivateKey('ED25519', p256))).toBe('bad-input');
    expect(code(() => importPrivateKey('X25519ECDHKW', ed25519))).toBe('bad-input');
    expect(code(() => importPrivateKey('ECDSAP256DER', ed25519))).toBe('bad-input');
    expect(code(() => importPrivateKey('ED25519', Buffer.from('not a key')))).toBe('bad-input');
    expect(code(() => importPrivateKey('ED25519', new Uint8Array()))).toBe('bad-input');
    expect(code(() => importPrivateKey('ED25519', ed25519.subarray(0, ed25519.length - 1)))).toBe('bad-input');
    // SPKI is a public key: no private key to import.
    expect(
      code(() =>
        importPrivateKey(
          'ECDSAP256DER',
          createPublicKey(createPrivateKey({ key: p256, format: 'der', type: 'pkcs8' })).export({
            format: 'der',
            type: 'spki',
          }),
        ),
      ),
    ).toBe('bad-input');
  });

  it('takes a JWK only with d, of the right kty and crv, whose x/y are those of d', () => {
    const jwk = nodePrivateKey('ECDSAP256IEEEP1363').export({ format: 'jwk' });
    const other = nodePrivateKey('ECDSAP256IEEEP1363').export({ format: 'jwk' });
    expect(importPrivateKey('ECDSAP256IEEEP1363', jwk).type).toBe('ECDSAP256IEEEP1363');
    expect(importPrivateKey('ECDSAP256IEEEP1363', { kty: 'EC', crv: 'P-256', d: jwk.d }).type).toBe(
      'ECDSAP256IEEEP1363',
    );
    expect(code(() => importPrivateKey('ECDSAP256IEEEP1363', { ...jwk, d: undefined }))).toBe('bad-input');
    expect(code(() => importPrivateKey('ECDSAP256IEEEP1363', { ...jwk, x: other.x }))).toBe('bad-input');
    expect(code(() => importPrivateKey('ECDSAP256IEEEP1363', { ...jwk, y: other.y }))).toBe('bad-input');
    expect(code(() => importPrivateKey('ECDSAP384IEEEP1363', jwk))).toBe('bad-input');
    expect(code(() => importPrivateKey('ECDSAP256IEEEP1363', { ...jwk, kty: 'OKP' }))).toBe('bad-input');
    expect(code(() => importPrivateKey('ECDSAP256IEEEP1363', { ...jwk, d: 'not base64url!' }))).toBe('bad-input');
    expect(
      code(() => importPrivateKey('ECDSAP256IEEEP1363', { ...jwk, d: Buffer.alloc(31, 1).toString('base64url') })),
    ).toBe('bad-input');
    expect(
      code(() =>
        importPrivateKey('ECDSAP256IEEEP1363', { kty: 'EC', crv: 'P-256', d: Buffer.alloc(32).toString('base64url') }),
      ),
    ).toBe('bad-input');
    expect(code(() => importPrivateKey('ECDSAP256IEEEP1363', [] as unknown as object))).toBe('bad-input');
    const ed = nodePrivateKey('ED25519').export({ format: 'jwk' });
    expect(importPrivateKey('ED25519', ed).type).toBe('ED25519');
    expect(code(() => importPrivateKey('ED25519', { ...ed, x: other.x }))).toBe('bad-input');
    expect(code(() => importPrivateKey('ED25519', { ...ed, d: Buffer.alloc(31).toString('base64url') }))).toBe(
      'bad-input',
    );
    expect(code(() => importPrivateKey('X25519ECDHKW', ed))).toBe('bad-input');
  });

  it.each(SYMMETRIC)('%s: the raw key (%i bytes) or an oct JWK; other lengths are refused', (type, length) => {
    const raw = Buffer.alloc(length, 5);
    expect(rawSecret(importPrivateKey(type, raw)).equals(raw)).toBe(true);
    expect(rawSecret(importPrivateKey(type, { kty: 'oct', k: raw.toString('base64url') })).equals(raw)).toBe(true);
    expect(code(() => importPrivateKey(type, Buffer.alloc(type === 'HMACSHA256Tag256' ? 15 : length - 1)))).toBe(
      'bad-input',
    );
    expect(code(() => importPrivateKey(type, { kty: 'EC', k: raw.toString('base64url') }))).toBe('bad-input');
  });

  it('refuses an unknown key type', () => {
    expect(code(() => importPrivateKey('RSAPS256' as KmsKeyType, Buffer.alloc(32)))).toBe('bad-input');
  });

  it('BLS12381G2 goes through the bbs module: the raw 32-byte scalar in, the 96-byte G2 point out', () => {
    const generated = generateKey('BLS12381G2');
    expect(generated.type).toBe('BLS12381G2');
    expect(exportPublicKey(generated)).toHaveLength(96);
    const scalar = Buffer.alloc(32);
    scalar[31] = 7;
    const imported = importPrivateKey('BLS12381G2', scalar);
    expect(
      Buffer.from(exportPublicKey(imported)).equals(
        Buffer.from(exportPublicKey(importPrivateKey('BLS12381G2', scalar))),
      ),
    ).toBe(true);
    expect(code(() => importPrivateKey('BLS12381G2', Buffer.alloc(32)))).toBe('bad-input');
    expect(code(() => importPrivateKey('BLS12381G2', Buffer.alloc(31, 1)))).toBe('bad-input');
    expect(code(() => importPrivateKey('BLS12381G2', { kty: 'oct', k: scalar.toString('base64url') }))).toBe(
      'bad-input',
    );
    expect(code(() => sign(generated, Buffer.from('x')))).toBe('wrong-key-kind');
  });
});

describe('key material', () => {
  it('is refused with another format version, another length or an unknown type', () => {
    const m = generateKey('ED25519');
    const otherVersion = { type: m.type, secret: Uint8Array.from(m.secret, (byte, i) => (i === 0 ? 2 : byte)) };
    expect(code(() => sign(otherVersion, Buffer.from('x')))).toBe('bad-input');
    expect(code(() => sign({ type: 'ED25519', secret: m.secret.subarray(0, 20) }, Buffer.from('x')))).toBe('bad-input');
    expect(code(() => sign({ type: 'ECDSAP256DER', secret: m.secret.subarray(0, 1) }, Buffer.from('x')))).toBe(
      'bad-input',
    );
    expect(code(() => sign({ type: 'NOPE' as KmsKeyType, secret: m.secret }, Buffer.from('x')))).toBe('bad-input');
    expect(code(() => sign({ type: 'ED25519', secret: 'not bytes' as unknown as Uint8Array }, Buffer.from('x')))).toBe(
      'bad-input',
    );
    expect(code(() => sign({ type: 'ED25519' } as KeyMaterial, Buffer.from('x')))).toBe('bad-input');
    expect(code(() => sign(null as unknown as KeyMaterial, Buffer.from('x')))).toBe('bad-input');
    expect(
      code(() => rawSecret({ type: 'AES256GCM', secret: keyMaterial('AES256GCM', Buffer.alloc(16)).secret })),
    ).toBe('bad-input');
  });

  it('the same secret under another type, or a fresh object of the same material, is parsed as what it is', () => {
    const raw = Buffer.alloc(32, 0x11);
    const ed = keyMaterial('ED25519', raw);
    const x = keyMaterial('X25519ECDHKW', raw);
    const p256 = keyMaterial('ECDSAP256IEEEP1363', raw);
    const edKey = Buffer.from(exportPublicKey(ed));
    expect(Buffer.from(exportPublicKey({ type: 'ED25519', secret: Uint8Array.from(ed.secret) })).equals(edKey)).toBe(
      true,
    );
    const xKey = Buffer.from(JSON.parse(Buffer.from(exportPublicKey(x)).toString('utf8')).x, 'base64');
    expect(xKey.equals(edKey)).toBe(false);
    expect(exportPublicKey(p256)).toHaveLength(65);
    expect(verify({ ...ed }, sign(ed, Buffer.from('m')), Buffer.from('m'))).toBe(true);
    expect(verify(keyMaterial('ED25519', Buffer.alloc(32, 0x12)), sign(ed, Buffer.from('m')), Buffer.from('m'))).toBe(
      false,
    );
  });

  it('a scalar outside [1, n-1] is refused, not used', () => {
    const zero = keyMaterial('ECDSAP256DER', Buffer.alloc(32));
    const order = keyMaterial(
      'ECDSAP256DER',
      Buffer.from('ffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551', 'hex'),
    );
    expect(code(() => sign(zero, Buffer.from('x')))).toBe('bad-input');
    expect(code(() => verify(order, Buffer.alloc(64), Buffer.from('x')))).toBe('bad-input');
  });

  it('the error messages carry no key bytes', () => {
    const jwk = nodePrivateKey('ECDSAP256DER').export({ format: 'jwk' });
    const other = nodePrivateKey('ECDSAP256DER').export({ format: 'jwk' });
    try {
      importPrivateKey('ECDSAP256DER', { ...jwk, x: other.x });
      throw new Error('expected a refusal');
    } catch (error) {
      const message = (error as Error).message;
      for (const member of [jwk.d, jwk.x, other.x] as string[]) expect(message).not.toContain(member);
      expect(message).not.toMatch(/[0-9a-f]{16}/i);
    }
  });
});
