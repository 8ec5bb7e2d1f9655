/**
 * The key types the kms accepts, spelled as aries spells them (`kms.KeyType`), and what each one
 * is: which operations it allows and the parameters of its algorithm. RSA and the AnonCreds types of later
 * aries versions are left out (README).
 */
export const KEY_TYPES = [
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
] as const;

export type KmsKeyType = (typeof KEY_TYPES)[number];

export type KeyKind = 'signing' | 'aead' | 'mac' | 'ecdh' | 'bbs';

export type EcCurveName = 'P-256' | 'P-384' | 'P-521' | 'secp256k1';

export interface EcCurve {
  name: EcCurveName;
  /** OpenSSL's name, as `createECDH` wants it. */
  opensslName: string;
  /** Bytes per coordinate and per private scalar; half of an IEEE P1363 `r||s` signature. */
  size: number;
}

export const EC_CURVES: Readonly<Record<EcCurveName, EcCurve>> = {
  'P-256': { name: 'P-256', opensslName: 'prime256v1', size: 32 },
  'P-384': { name: 'P-384', opensslName: 'secp384r1', size: 48 },
  'P-521': { name: 'P-521', opensslName: 'secp521r1', size: 66 },
  secp256k1: { name: 'secp256k1', opensslName: 'secp256k1', size: 32 },
};

export type SignatureEncoding = 'der' | 'ieee-p1363';
export type AeadCipher = 'aes-128-gcm' | 'aes-256-gcm' | 'chacha20-poly1305' | 'xchacha20-poly1305';

export type KeySpec =
  | { kind: 'signing'; algorithm: 'ed25519' }
  | {
      kind: 'signing';
      algorithm: 'ecdsa';
      curve: EcCurve;
      hash: 'sha256' | 'sha384' | 'sha512';
      encoding: SignatureEncoding;
    }
  | { kind: 'aead'; cipher: AeadCipher; keyLength: number; nonceLength: number }
  | { kind: 'mac'; keyLength: number }
  | { kind: 'ecdh'; curve: EcCurve | 'X25519' }
  | { kind: 'bbs' };

// Hashes as aries' key templates pair them (aries localkms keytemplate.go): P-384 with SHA-384 in both
// encodings, P-521 with SHA-512.
function ecdsa(curve: EcCurveName, hash: 'sha256' | 'sha384' | 'sha512', encoding: SignatureEncoding): KeySpec {
  return { kind: 'signing', algorithm: 'ecdsa', curve: EC_CURVES[curve], hash, encoding };
}

export const KEY_SPECS: Readonly<Record<KmsKeyType, KeySpec>> = {
  ED25519: { kind: 'signing', algorithm: 'ed25519' },
  ECDSAP256DER: ecdsa('P-256', 'sha256', 'der'),
  ECDSAP384DER: ecdsa('P-384', 'sha384', 'der'),
  ECDSAP521DER: ecdsa('P-521', 'sha512', 'der'),
  ECDSAP256IEEEP1363: ecdsa('P-256', 'sha256', 'ieee-p1363'),
  ECDSAP384IEEEP1363: ecdsa('P-384', 'sha384', 'ieee-p1363'),
  ECDSAP521IEEEP1363: ecdsa('P-521', 'sha512', 'ieee-p1363'),
  ECDSASecp256k1DER: ecdsa('secp256k1', 'sha256', 'der'),
  ECDSASecp256k1IEEEP1363: ecdsa('secp256k1', 'sha256', 'ieee-p1363'),
  AES128GCM: { kind: 'aead', cipher: 'aes-128-gcm', keyLength: 16, nonceLength: 12 },
  AES256GCM: { kind: 'aead', cipher: 'aes-256-gcm', keyLength: 32, nonceLength: 12 },
  AES256GCMNoPrefix: { kind: 'aead', cipher: 'aes-256-gcm', keyLength: 32, nonceLength: 12 },
  ChaCha20Poly1305: { kind: 'aead', cipher: 'chacha20-poly1305', keyLength: 32, nonceLength: 12 },
  XChaCha20Poly1305: { kind: 'aead', cipher: 'xchacha20-poly1305', keyLength: 32, nonceLength: 24 },
  HMACSHA256Tag256: { kind: 'mac', keyLength: 32 },
  NISTP256ECDHKW: { kind: 'ecdh', curve: EC_CURVES['P-256'] },
  NISTP384ECDHKW: { kind: 'ecdh', curve: EC_CURVES['P-384'] },
  NISTP521ECDHKW: { kind: 'ecdh', curve: EC_CURVES['P-521'] },
  X25519ECDHKW: { kind: 'ecdh', curve: 'X25519' },
  BLS12381G2: { kind: 'bbs' },
};

export function isKmsKeyType(value: unknown): value is KmsKeyType {
  return typeof value === 'string' && Object.hasOwn(KEY_SPECS, value);
}

/** Which operations a key allows: signing (sign, verify; ED25519 also easy/easyOpen/sealOpen), aead, mac, ecdh (wrap, unwrap), bbs. */
export function keyKind(type: KmsKeyType): KeyKind {
  return KEY_SPECS[type].kind;
}
