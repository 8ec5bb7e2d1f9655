import { badInput, unsupported } from '../errors.js';
import { ecdhPrivateKey } from '../ecdh-keys.js';
import { requireBytes, type KeyMaterial } from '../key-material.js';
import { concatKdf } from './concat-kdf.js';
import { aesKeyUnwrap, aesKeyWrap, xc20pKeyUnwrap, xc20pKeyWrap } from './key-wrap.js';
import {
  ephemeralPrivateKey,
  sharedSecret,
  wrapPublicKey,
  wrapShapeOf,
  type WrapCurve,
  type WrapPublicKey,
} from './wrap-keys.js';

export { WRAP_CURVES, type WrapCurve, type WrapPublicKey } from './wrap-keys.js';

/** A recipient's (or sender's) public key as the wrap endpoints take it. */
export type RecipientPublicKey = WrapPublicKey;

export const WRAP_ALGORITHMS = ['ECDH-ES+A256KW', 'ECDH-ES+XC20PKW', 'ECDH-1PU+A256KW', 'ECDH-1PU+XC20PKW'] as const;
export type WrapAlgorithm = (typeof WRAP_ALGORITHMS)[number];

/** A content-encryption key wrapped for one recipient (aries `cryptoapi.RecipientWrappedKey`). */
export interface RecipientWrappedKey {
  kid?: string;
  encryptedKey: Uint8Array;
  /** The sender's ephemeral public key, on the recipient's curve. */
  epk: WrapPublicKey;
  alg: string;
  apu: Uint8Array;
  apv: Uint8Array;
}

type KeyWrap = 'A256KW' | 'XC20PKW';

const KEK_BITS = 256;

/** As aries: XC20P key wrap for X25519 recipients, AES key wrap (RFC 3394) for the NIST curves. */
function keyWrapFor(curve: WrapCurve): KeyWrap {
  return curve === 'X25519' ? 'XC20PKW' : 'A256KW';
}

function wrapKey(keyWrap: KeyWrap, kek: Uint8Array, cek: Uint8Array): Buffer {
  return keyWrap === 'A256KW' ? aesKeyWrap(kek, cek) : xc20pKeyWrap(kek, cek);
}

function requireWrapInputs(cek: Uint8Array, apu: Uint8Array, apv: Uint8Array): void {
  requireBytes(cek, 'cek');
  requireBytes(apu, 'apu');
  requireBytes(apv, 'apv');
}

/**
 * Anoncrypt (ECDH-ES, RFC 7518 §4.6): an ephemeral key on the recipient's curve, the Concat KDF over the shared
 * secret, and the CEK wrapped under the derived key.
 */
export function wrapAnoncrypt(
  cek: Uint8Array,
  apu: Uint8Array,
  apv: Uint8Array,
  recipient: RecipientPublicKey,
): RecipientWrappedKey {
  requireWrapInputs(cek, apu, apv);
  const { curve, key } = wrapPublicKey(recipient, 'recPubKey');
  const keyWrap = keyWrapFor(curve);
  const alg: WrapAlgorithm = `ECDH-ES+${keyWrap}`;
  const ephemeral = ephemeralPrivateKey(curve);
  const kek = concatKdf(sharedSecret(ephemeral, key, 'recPubKey'), KEK_BITS, alg, apu, apv);
  return {
    ...(recipient.kid === undefined ? {} : { kid: recipient.kid }),
    encryptedKey: wrapKey(keyWrap, kek, cek),
    epk: wrapShapeOf(ephemeral, curve),
    alg,
    apu,
    apv,
  };
}

/**
 * Authcrypt (ECDH-1PU, draft-madden-jose-ecdh-1pu-04): as anoncrypt, with the shared secret of the sender's
 * static key and the recipient's appended to the ephemeral one (Z = Ze ‖ Zs). `tag`, the JWE authentication tag
 * of the content the CEK encrypted, enters the KDF as the draft's key-wrapping mode says; without one, the empty
 * tag does (its zero length still goes in, as later aries versions do).
 */
export function wrapAuthcrypt(
  sender: KeyMaterial,
  cek: Uint8Array,
  apu: Uint8Array,
  apv: Uint8Array,
  recipient: RecipientPublicKey,
  tag?: Uint8Array,
): RecipientWrappedKey {
  requireWrapInputs(cek, apu, apv);
  if (tag !== undefined) requireBytes(tag, 'tag');
  const own = ecdhPrivateKey(sender);
  const { curve, key } = wrapPublicKey(recipient, 'recPubKey');
  if (curve !== own.curve) throw badInput(`recPubKey.curve ${curve} differs from the sender key's curve ${own.curve}`);
  const keyWrap = keyWrapFor(curve);
  const alg: WrapAlgorithm = `ECDH-1PU+${keyWrap}`;
  const ephemeral = ephemeralPrivateKey(curve);
  const z = Buffer.concat([sharedSecret(ephemeral, key, 'recPubKey'), sharedSecret(own.privateKey, key, 'recPubKey')]);
  const kek = concatKdf(z, KEK_BITS, alg, apu, apv, tag ?? new Uint8Array());
  return {
    ...(recipient.kid === undefined ? {} : { kid: recipient.kid }),
    encryptedKey: wrapKey(keyWrap, kek, cek),
    epk: wrapShapeOf(ephemeral, curve),
    alg,
    apu,
    apv,
  };
}

function parseAlgorithm(alg: unknown): { authcrypt: boolean; keyWrap: KeyWrap } {
  if (typeof alg !== 'string' || !(WRAP_ALGORITHMS as readonly string[]).includes(alg))
    throw unsupported(`wrappedKey.alg must be one of ${WRAP_ALGORITHMS.join(', ')}`);
  return { authcrypt: alg.startsWith('ECDH-1PU'), keyWrap: alg.endsWith('XC20PKW') ? 'XC20PKW' : 'A256KW' };
}

/**
 * The CEK of `wrapped`, with the recipient's ECDH key. ECDH-1PU needs the sender's public key (and the tag the
 * sender wrapped with, if any); for ECDH-ES both are ignored, as aries ignores its senderKID.
 */
export function unwrap(
  recipient: KeyMaterial,
  wrapped: RecipientWrappedKey,
  senderPublicKey?: RecipientPublicKey,
  tag?: Uint8Array,
): Uint8Array {
  const own = ecdhPrivateKey(recipient);
  if (typeof wrapped !== 'object' || wrapped === null) throw badInput('wrappedKey is missing');
  const encryptedKey = requireBytes(wrapped.encryptedKey, 'wrappedKey.encryptedCEK');
  const apu = requireBytes(wrapped.apu, 'wrappedKey.apu');
  const apv = requireBytes(wrapped.apv, 'wrappedKey.apv');
  const { authcrypt, keyWrap } = parseAlgorithm(wrapped.alg);
  const epk = wrapPublicKey(wrapped.epk, 'wrappedKey.epk');
  if (epk.curve !== own.curve)
    throw badInput(`wrappedKey.epk.curve ${epk.curve} differs from the key's curve ${own.curve}`);
  let z = sharedSecret(own.privateKey, epk.key, 'wrappedKey.epk');
  if (authcrypt) {
    if (senderPublicKey === undefined) throw badInput(`senderPubKey is required to unwrap ${wrapped.alg}`);
    if (tag !== undefined) requireBytes(tag, 'tag');
    const sender = wrapPublicKey(senderPublicKey, 'senderPubKey');
    if (sender.curve !== own.curve)
      throw badInput(`senderPubKey.curve ${sender.curve} differs from the key's curve ${own.curve}`);
    z = Buffer.concat([z, sharedSecret(own.privateKey, sender.key, 'senderPubKey')]);
  }
  const kek = concatKdf(z, KEK_BITS, wrapped.alg, apu, apv, authcrypt ? (tag ?? new Uint8Array()) : undefined);
  return keyWrap === 'A256KW' ? aesKeyUnwrap(kek, encryptedKey) : xc20pKeyUnwrap(kek, encryptedKey);
}
