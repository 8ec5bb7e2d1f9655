import { createPublicKey, sign as nodeSign, verify as nodeVerify, type KeyObject } from 'node:crypto';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { badInput, wrongKeyKind } from './errors.js';
import { asymmetricKeys, requireBytes, requireKind, type KeyMaterial } from './key-material.js';
import { okpPublicKey } from './key-objects.js';
import { KEY_SPECS, isKmsKeyType, type KeySpec, type KmsKeyType } from './key-types.js';

type SigningSpec = Extract<KeySpec, { kind: 'signing' }>;

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
  if (spec.curve.name !== 'secp256k1')
    return nodeSign(spec.hash, message, { key: privateKey, dsaEncoding: spec.encoding });
  const signature = secp256k1.Signature.fromBytes(
    nodeSign(spec.hash, message, { key: privateKey, dsaEncoding: 'ieee-p1363' }),
    'compact',
  );
  const lowS = signature.hasHighS()
    ? new secp256k1.Signature(signature.r, secp256k1.Point.Fn.ORDER - signature.s)
    : signature;
  return lowS.toBytes(spec.encoding === 'der' ? 'der' : 'compact');
}

/**
 * Checks a signature made by `sign`. A wrong, malformed or wrongly sized signature gives false, never an
 * exception; a key that cannot verify (not a signing key) is an error. High-S secp256k1 signatures are
 * accepted, as aries accepts them.
 */
export function verify(m: KeyMaterial, signature: Uint8Array, message: Uint8Array): boolean {
  const spec = requireKind(m, ['signing'], 'verify');
  return verifyWith(spec, asymmetricKeys(m).publicKey, signature, message);
}

/**
 * `verify` against a public key alone, in the encoding `exportPublicKey` gives for the type (raw Ed25519, SPKI
 * DER, or the uncompressed point): what a holder of an exported key checks a signature with.
 */
export function verifyWithPublicKey(
  type: KmsKeyType,
  publicKey: Uint8Array,
  signature: Uint8Array,
  message: Uint8Array,
): boolean {
  if (!isKmsKeyType(type)) throw badInput(`unknown key type '${String(type)}'`);
  const spec = KEY_SPECS[type];
  if (spec.kind !== 'signing') throw wrongKeyKind(`a ${type} key cannot verify`);
  return verifyWith(spec, signingPublicKey(spec, requireBytes(publicKey, 'publicKey')), signature, message);
}

function verifyWith(spec: SigningSpec, publicKey: KeyObject, signature: Uint8Array, message: Uint8Array): boolean {
  requireBytes(signature, 'signature');
  requireBytes(message, 'message');
  try {
    if (spec.algorithm === 'ed25519')
      return signature.length === ED25519_SIGNATURE_LENGTH && nodeVerify(null, message, publicKey, signature);
    const sizeFits =
      spec.encoding === 'der' ? signature.length <= MAX_DER_SIGNATURE_LENGTH : signature.length === 2 * spec.curve.size;
    return sizeFits && nodeVerify(spec.hash, message, { key: publicKey, dsaEncoding: spec.encoding }, signature);
  } catch {
    // OpenSSL throws for undecodable DER; that is a bad signature, not a bad request.
    return false;
  }
}

function signingPublicKey(spec: SigningSpec, bytes: Uint8Array): KeyObject {
  if (spec.algorithm === 'ed25519') return okpPublicKey('Ed25519', bytes, 'publicKey');
  const { curve } = spec;
  let key: KeyObject;
  try {
    if (spec.encoding === 'der') {
      key = createPublicKey({ key: Buffer.from(bytes), format: 'der', type: 'spki' });
    } else {
      if (bytes.length !== 1 + 2 * curve.size || bytes[0] !== 0x04) throw new Error('not an uncompressed point');
      const coordinate = (from: number) => Buffer.from(bytes.subarray(from, from + curve.size)).toString('base64url');
      key = createPublicKey({
        key: { kty: 'EC', crv: curve.name, x: coordinate(1), y: coordinate(1 + curve.size) },
        format: 'jwk',
      });
    }
  } catch {
    throw badInput(
      `publicKey is not a ${curve.name} public key (${spec.encoding === 'der' ? 'SPKI DER' : 'uncompressed point'})`,
    );
  }
  if (key.asymmetricKeyType !== 'ec' || key.asymmetricKeyDetails?.namedCurve !== curve.opensslName)
    throw badInput(`publicKey is not a ${curve.name} public key`);
  return key;
}
