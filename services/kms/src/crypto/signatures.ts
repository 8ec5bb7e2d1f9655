import { sign as nodeSign, verify as nodeVerify } from 'node:crypto';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { asymmetricKeys, requireBytes, requireKind, type KeyMaterial } from './key-material.js';

const ED25519_SIGNATURE_LENGTH = 64;
// The longest DER ECDSA signature: SEQUENCE header (3) + two INTEGERs of tag, length and a 66-byte P-521 value
// with its sign byte (2 + 67 each).
const MAX_DER_SIGNATURE_LENGTH = 3 + 2 * (2 + 67);

/**
 * Signs `message`: pure Ed25519, or ECDSA over the type's hash, its signature DER or IEEE P1363 (`r || s`)
 * encoded by type. secp256k1 signatures come out low-S, which Bitcoin-lineage verifiers insist on.
 */
export function sign(m: KeyMaterial, message: Uint8Array): Uint8Array {
  const spec = requireKind(m, ['signing'], 'sign');
  requireBytes(message, 'message');
  const { privateKey } = asymmetricKeys(m);
  if (spec.algorithm === 'ed25519') return nodeSign(null, message, privateKey);
  if (spec.curve.name !== 'secp256k1') return nodeSign(spec.hash, message, { key: privateKey, dsaEncoding: spec.encoding });
  const signature = secp256k1.Signature.fromBytes(nodeSign(spec.hash, message, { key: privateKey, dsaEncoding: 'ieee-p1363' }), 'compact');
  const lowS = signature.hasHighS() ? new secp256k1.Signature(signature.r, secp256k1.Point.Fn.ORDER - signature.s) : signature;
  return lowS.toBytes(spec.encoding === 'der' ? 'der' : 'compact');
}

/**
 * Checks a signature made by `sign`. A wrong, malformed or wrongly sized signature gives false, never an
 * exception; a key that cannot verify (not a signing key) is an error. High-S secp256k1 signatures are
 * accepted, as the original accepts them.
 */
export function verify(m: KeyMaterial, signature: Uint8Array, message: Uint8Array): boolean {
  const spec = requireKind(m, ['signing'], 'verify');
  requireBytes(signature, 'signature');
  requireBytes(message, 'message');
  const { publicKey } = asymmetricKeys(m);
  try {
    if (spec.algorithm === 'ed25519') return signature.length === ED25519_SIGNATURE_LENGTH && nodeVerify(null, message, publicKey, signature);
    const sizeFits = spec.encoding === 'der' ? signature.length <= MAX_DER_SIGNATURE_LENGTH : signature.length === 2 * spec.curve.size;
    return sizeFits && nodeVerify(spec.hash, message, { key: publicKey, dsaEncoding: spec.encoding }, signature);
  } catch {
    // OpenSSL throws for undecodable DER; that is a bad signature, not a bad request.
    return false;
  }
}
