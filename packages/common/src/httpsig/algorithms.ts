import { verify as nodeVerify, type KeyObject } from 'node:crypto';

/**
 * Key types an HTTP signature may use: Orb's Ed25519, P-256 and P-384 (its PEM block type selects the
 * algorithm), and secp256k1 when it arrives as a standard SPKI key.
 */
export type HttpSigKeyType = 'Ed25519' | 'P-256' | 'P-384' | 'secp256k1';

/** Hash and scalar size per key type: ECDSA signatures on the wire are IEEE P1363 `r || s`, as Orb expects. */
export const KEY_PARAMETERS: Record<HttpSigKeyType, { hash: string | null; scalarBytes: number }> = {
  Ed25519: { hash: null, scalarBytes: 32 },
  'P-256': { hash: 'sha256', scalarBytes: 32 },
  'P-384': { hash: 'sha384', scalarBytes: 48 },
  secp256k1: { hash: 'sha256', scalarBytes: 32 },
};

/** The `algorithm` value Orb writes and requires (its custom httpsignatures-go algorithm name). */
export const ORIGINAL_ALGORITHM = 'Sign';

/**
 * Whether a declared `algorithm` is acceptable for a key of this type. The key, not the header, decides how
 * the signature is checked (as in draft-cavage-12 `hs2019` and in Orb), so the declared name only has
 * to be one a sender could legitimately write for it: Orb's `Sign`, `hs2019`, or the key's own name.
 */
export function algorithmAcceptable(declared: string | undefined, type: HttpSigKeyType): boolean {
  if (declared === undefined) return true;
  const name = declared.toLowerCase();
  if (name === 'sign' || name === 'hs2019') return true;
  switch (type) {
    case 'Ed25519':
      return name === 'ed25519';
    case 'P-256':
      return name === 'ecdsa-sha256';
    case 'P-384':
      return name === 'ecdsa-sha384';
    case 'secp256k1':
      return name === 'ecdsa-sha256';
  }
}

/** Anything that can check a signature over bytes: a key parsed from PEM here, or a DID module `KeyPair`. */
export interface VerificationKey {
  readonly type: string;
  verify(data: Uint8Array, signature: Uint8Array): boolean | Promise<boolean>;
}

/** A public key backed by a Node `KeyObject`: the fast path for keys fetched as PEM (no re-parsing per request). */
export class NodeVerificationKey implements VerificationKey {
  constructor(
    readonly type: HttpSigKeyType,
    readonly keyObject: KeyObject,
  ) {}

  verify(data: Uint8Array, signature: Uint8Array): boolean {
    const { hash, scalarBytes } = KEY_PARAMETERS[this.type];
    try {
      if (hash === null) return nodeVerify(null, data, this.keyObject, signature);
      // P1363 is the wire form; DER is tolerated because some signers (e.g. KMSs) only produce DER.
      const dsaEncoding = signature.length === 2 * scalarBytes ? 'ieee-p1363' : 'der';
      return nodeVerify(hash, data, { key: this.keyObject, dsaEncoding }, signature);
    } catch {
      // OpenSSL throws on structurally invalid signatures (e.g. bad DER); for the caller that is just "invalid".
      return false;
    }
  }
}

/**
 * Converts an ECDSA signature to IEEE P1363 (`r || s`, each left-padded to the scalar size), the only form the
 * original's verifier reads. Already-P1363 input is returned unchanged; DER input is unpacked.
 */
export function ecdsaSignatureToP1363(signature: Uint8Array, scalarBytes: number): Buffer {
  const sig = Buffer.from(signature);
  if (sig.length === 2 * scalarBytes) return sig;
  let offset = 0;
  const readLength = (): number => {
    const first = sig[offset++];
    if (first === undefined) throw new TypeError('truncated DER signature');
    if (first < 0x80) return first;
    const count = first & 0x7f;
    if (count === 0 || count > 2) throw new TypeError('unsupported DER length');
    let length = 0;
    for (let i = 0; i < count; i++) length = (length << 8) | (sig[offset++] ?? 0);
    return length;
  };
  const readInteger = (): Buffer => {
    if (sig[offset++] !== 0x02) throw new TypeError('expected a DER INTEGER');
    const length = readLength();
    const value = sig.subarray(offset, offset + length);
    if (value.length !== length) throw new TypeError('truncated DER integer');
    offset += length;
    let start = 0;
    while (start < value.length - 1 && value[start] === 0) start++;
    const trimmed = value.subarray(start);
    if (trimmed.length > scalarBytes) throw new TypeError('DER integer longer than the curve scalar');
    return Buffer.concat([Buffer.alloc(scalarBytes - trimmed.length), trimmed]);
  };
  if (sig[offset++] !== 0x30) throw new TypeError('ECDSA signature is neither P1363 nor DER');
  const total = readLength();
  if (offset + total !== sig.length) throw new TypeError('DER signature length mismatch');
  const r = readInteger();
  const s = readInteger();
  if (offset !== sig.length) throw new TypeError('trailing bytes after the DER signature');
  return Buffer.concat([r, s]);
}

export function isHttpSigKeyType(type: string): type is HttpSigKeyType {
  return type in KEY_PARAMETERS;
}

/**
 * What signs the signing string: a `crypto` module `KeyPair`, or a remote KMS key behind the same shape.
 * ECDSA signatures may come back as DER or P1363; they are sent as P1363, the form Orb verifies.
 */
export interface SigningKey {
  readonly type: string;
  sign(data: Buffer): Uint8Array | Promise<Uint8Array>;
}
