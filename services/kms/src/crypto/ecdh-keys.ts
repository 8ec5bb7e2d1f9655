import type { KeyObject } from 'node:crypto';
import { asymmetricKeys, requireKind, type KeyMaterial } from './key-material.js';

export type EcdhCurveName = 'P-256' | 'P-384' | 'P-521' | 'X25519';

/** The node:crypto private key of an ECDH key-wrap key (NISTP*ECDHKW, X25519ECDHKW), for the wrap module. */
export function ecdhPrivateKey(m: KeyMaterial): { curve: EcdhCurveName; privateKey: KeyObject; publicKey: KeyObject } {
  const spec = requireKind(m, ['ecdh'], 'agree a key (it is not an ECDH key-wrap key)');
  const { privateKey, publicKey } = asymmetricKeys(m);
  return { curve: spec.curve === 'X25519' ? 'X25519' : (spec.curve.name as EcdhCurveName), privateKey, publicKey };
}
