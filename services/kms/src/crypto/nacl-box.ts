import { createHash, createPublicKey, diffieHellman, type KeyObject } from 'node:crypto';
import { blake2b } from '@noble/hashes/blake2.js';
import nacl from 'tweetnacl';
import { badInput, decryptFailed, wrongKeyKind } from './errors.js';
import { parsedKeyCache, requireBytes, requireKind, type KeyMaterial } from './key-material.js';
import { okpPrivateKey, okpPublicKey, okpRawPublicKey } from './key-objects.js';

/**
 * NaCl `crypto_box` (X25519, XSalsa20-Poly1305) with an Ed25519 key converted to X25519 as aries does
 * (libsodium `crypto_sign_ed25519_sk_to_curve25519`), and libsodium's anonymous sealed box open. The X25519
 * agreement runs in node:crypto (OpenSSL, which also refuses the all-zero secret of a low-order point, as
 * libsodium does); tweetnacl derives the box key (HSalsa20) and seals and opens (XSalsa20-Poly1305).
 */
const NONCE_LENGTH = nacl.box.nonceLength;
const PUBLIC_KEY_LENGTH = nacl.box.publicKeyLength;
const TAG_LENGTH = nacl.box.overheadLength;
const SIGMA = new TextEncoder().encode('expand 32-byte k');
const HSALSA20_INPUT = new Uint8Array(16);

// tweetnacl exports HSalsa20 on its lowlevel object, which its type declarations leave out.
const lowlevel = (
  nacl as unknown as {
    lowlevel: { crypto_core_hsalsa20(out: Uint8Array, input: Uint8Array, key: Uint8Array, constant: Uint8Array): void };
  }
).lowlevel;

interface BoxKeys {
  privateKey: KeyObject;
  /** The X25519 public key, which also feeds the sealed box's nonce. */
  publicKey: Buffer;
}

const converted = parsedKeyCache<BoxKeys>();

/** `crypto_box_easy`: `tag(16) || ciphertext` of `payload` from this Ed25519 key to `theirPublicKey` (X25519). */
export function easy(m: KeyMaterial, payload: Uint8Array, nonce: Uint8Array, theirPublicKey: Uint8Array): Uint8Array {
  requireEd25519(m, 'easy');
  requireBytes(payload, 'payload');
  const key = sharedBoxKey(m, nonce, theirPublicKey, 'theirPub');
  return nacl.box.after(payload, nonce, key);
}

/** `crypto_box_open_easy` of a box from `theirPublicKey` (X25519) to this Ed25519 key. */
export function easyOpen(
  m: KeyMaterial,
  ciphertext: Uint8Array,
  nonce: Uint8Array,
  theirPublicKey: Uint8Array,
): Uint8Array {
  requireEd25519(m, 'easyOpen');
  requireBytes(ciphertext, 'ciphertext');
  const key = sharedBoxKey(m, nonce, theirPublicKey, 'theirPub');
  if (ciphertext.length < TAG_LENGTH)
    throw badInput(`ciphertext must be at least ${TAG_LENGTH} bytes, got ${ciphertext.length}`);
  return openOrFail(nacl.box.open.after(ciphertext, nonce, key));
}

/**
 * `crypto_box_seal_open`: `ciphertext` = ephemeral X25519 public key (32) || box, the box's nonce being
 * BLAKE2b-192(ephemeral public key || recipient X25519 public key).
 */
export function sealOpen(m: KeyMaterial, ciphertext: Uint8Array): Uint8Array {
  requireEd25519(m, 'open a sealed box');
  requireBytes(ciphertext, 'ciphertext');
  if (ciphertext.length < PUBLIC_KEY_LENGTH + TAG_LENGTH) {
    throw badInput(
      `ciphertext must be at least ${PUBLIC_KEY_LENGTH + TAG_LENGTH} bytes (ephemeral key and tag), got ${ciphertext.length}`,
    );
  }
  const ephemeral = ciphertext.subarray(0, PUBLIC_KEY_LENGTH);
  const nonce = blake2b(Buffer.concat([ephemeral, boxKeys(m).publicKey]), { dkLen: NONCE_LENGTH });
  const key = sharedBoxKey(m, nonce, ephemeral, 'ciphertext ephemeral key', decryptFailed);
  return openOrFail(nacl.box.open.after(ciphertext.subarray(PUBLIC_KEY_LENGTH), nonce, key));
}

/** `crypto_box_beforenm`: HSalsa20 of the X25519 secret between this key and `theirPublicKey`. */
function sharedBoxKey(
  m: KeyMaterial,
  nonce: Uint8Array,
  theirPublicKey: Uint8Array,
  field: string,
  lowOrder: (message: string) => Error = badInput,
): Uint8Array {
  requireBytes(nonce, 'nonce');
  requireBytes(theirPublicKey, field);
  if (nonce.length !== NONCE_LENGTH) throw badInput(`nonce must be ${NONCE_LENGTH} bytes, got ${nonce.length}`);
  const publicKey = okpPublicKey('X25519', theirPublicKey, field);
  let secret: Buffer;
  try {
    secret = diffieHellman({ privateKey: boxKeys(m).privateKey, publicKey });
  } catch {
    throw lowOrder(`${field} is a low-order X25519 point`);
  }
  const key = new Uint8Array(32);
  lowlevel.crypto_core_hsalsa20(key, HSALSA20_INPUT, secret, SIGMA);
  secret.fill(0);
  return key;
}

/** Only Ed25519 keys take part in boxes, as in aries (converted to X25519 here). */
function requireEd25519(m: KeyMaterial, operation: string): void {
  const spec = requireKind(m, ['signing'], operation);
  if (spec.algorithm !== 'ed25519') throw wrongKeyKind(`a ${m.type} key cannot ${operation}: only ED25519 keys can`);
}

function boxKeys(m: KeyMaterial): BoxKeys {
  return converted.get(m, (raw) => {
    const scalar = createHash('sha512').update(raw).digest().subarray(0, 32);
    scalar[0]! &= 248;
    scalar[31]! &= 127;
    scalar[31]! |= 64;
    const privateKey = okpPrivateKey('X25519', scalar);
    scalar.fill(0);
    return { privateKey, publicKey: okpRawPublicKey(createPublicKey(privateKey)) };
  });
}

function openOrFail(plaintext: Uint8Array | null): Uint8Array {
  if (!plaintext) throw decryptFailed('failed to unpack: wrong key, nonce or sender key, or altered ciphertext');
  return plaintext;
}
