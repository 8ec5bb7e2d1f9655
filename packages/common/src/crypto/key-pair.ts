import { createPrivateKey, createPublicKey, diffieHellman, sign, verify, type KeyObject } from 'node:crypto';
import { base58Encode, multibaseDecode, multibaseEncode } from '../encoding/index.js';
import { badRequest } from '../errors/index.js';
import { normaliseSecp256k1LowS } from './ecdsa.js';
import { importJwk, privateJwkOf, publicJwkOf, type Jwk } from './jwk.js';
import { EC_CURVES, isEcKeyType, jwsAlgorithmFor, type JwsAlgorithm, type KeyType } from './key-types.js';
import { decodeMultikey, encodeMultikey } from './multikey.js';
import {
  compressEcPoint,
  decodeEcPoint,
  generateKeyObjects,
  okpPrivateKeyFromSeed,
  okpPublicKeyFromRaw,
  okpRawPublicKey,
} from './raw-keys.js';

const ED25519_SIGNATURE_LENGTH = 64;

/** node:crypto's names for the curves, mapped back to our key types. */
const TYPE_OF_NAMED_CURVE: Readonly<Record<string, KeyType>> = {
  prime256v1: 'P-256',
  secp384r1: 'P-384',
  secp256k1: 'secp256k1',
};

/**
 * A public key, optionally with its private half, over node:crypto KeyObjects (OpenSSL does all the curve
 * arithmetic). Instances are immutable; derived encodings are computed once and handed out as copies.
 */
export class KeyPair {
  readonly type: KeyType;
  readonly publicKey: KeyObject;
  readonly privateKey: KeyObject | undefined;
  #publicJwk: Jwk | undefined;
  #publicKeyBytes: Buffer | undefined;

  private constructor(type: KeyType, publicKey: KeyObject, privateKey: KeyObject | undefined) {
    this.type = type;
    this.publicKey = publicKey;
    this.privateKey = privateKey;
  }

  static generate(type: KeyType): KeyPair {
    if (!isEcKeyType(type) && type !== 'Ed25519' && type !== 'X25519') unsupportedType(type);
    const { publicKey, privateKey } = generateKeyObjects(type);
    return new KeyPair(type, publicKey, privateKey);
  }

  /** Imports a JWK: private when `d` is present. Lengths, the curve point and the d/x/y match are checked. */
  static fromJwk(jwk: Jwk): KeyPair {
    const { type, publicKey, privateKey } = importJwk(jwk);
    return new KeyPair(type, publicKey, privateKey);
  }

  /** An Ed25519 or X25519 private key from its 32-byte seed (the JWK `d`, RFC 8032 secret key). */
  static fromSeed(type: 'Ed25519' | 'X25519', seed: Uint8Array): KeyPair {
    if (type !== 'Ed25519' && type !== 'X25519')
      throw badRequest(`fromSeed supports Ed25519 and X25519, not '${String(type)}'`);
    const privateKey = okpPrivateKeyFromSeed(type, seed);
    return new KeyPair(type, createPublicKey(privateKey), privateKey);
  }

  /** A public key from raw bytes: 32 bytes for Ed25519/X25519; a compressed or uncompressed SEC1 point for EC. */
  static fromPublicKeyBytes(type: KeyType, bytes: Uint8Array): KeyPair {
    if (isEcKeyType(type)) {
      const { x, y } = decodeEcPoint(type, bytes);
      const jwk = { kty: 'EC', crv: type, x: x.toString('base64url'), y: y.toString('base64url') };
      return new KeyPair(type, createPublicKey({ key: jwk, format: 'jwk' }), undefined);
    }
    if (type === 'Ed25519' || type === 'X25519') return new KeyPair(type, okpPublicKeyFromRaw(type, bytes), undefined);
    return unsupportedType(type);
  }

  /** A key from SPKI (public) or PKCS#8 / SEC1 (private) PEM. */
  static fromPem(pem: string): KeyPair {
    if (typeof pem !== 'string') throw badRequest('PEM must be a string');
    let key: KeyObject;
    try {
      key = pem.includes('PRIVATE KEY-----') ? createPrivateKey(pem) : createPublicKey(pem);
    } catch {
      throw badRequest('invalid PEM key');
    }
    return KeyPair.fromKeyObject(key);
  }

  /** A key from `publicKeyMultibase`: multikey form, or the bare 32-byte Ed25519 key of early Ed25519VerificationKey2020. */
  static fromMultibase(text: string): KeyPair {
    if (typeof text !== 'string' || text.length < 2)
      throw badRequest('publicKeyMultibase must be a non-empty multibase string');
    let bytes: Buffer;
    try {
      bytes = multibaseDecode(text);
    } catch (error) {
      throw badRequest(`invalid publicKeyMultibase: ${(error as Error).message}`);
    }
    const { type, key } = decodeMultikey(bytes);
    return KeyPair.fromPublicKeyBytes(type, key);
  }

  /** Wraps an existing node:crypto key (public or private) of a supported type. */
  static fromKeyObject(key: KeyObject): KeyPair {
    const type = keyTypeOfKeyObject(key);
    if (key.type === 'public') return new KeyPair(type, key, undefined);
    // An EC private key encoding may carry its own public point, which OpenSSL trusts; going through the
    // JWK import re-derives the point from the scalar and refuses a mismatch.
    if (isEcKeyType(type)) return KeyPair.fromJwk(key.export({ format: 'jwk' }) as Jwk);
    return new KeyPair(type, createPublicKey(key), key);
  }

  get jwsAlgorithm(): JwsAlgorithm {
    return jwsAlgorithmFor(this.type);
  }

  get isPrivate(): boolean {
    return this.privateKey !== undefined;
  }

  /** The same public key without its private half, e.g. to hand to code that only verifies. */
  toPublic(): KeyPair {
    return this.privateKey ? new KeyPair(this.type, this.publicKey, undefined) : this;
  }

  /** The public JWK (`kty`, `crv`, `x`, and `y` for EC keys), as a fresh object the caller may extend. */
  publicJwk(): Jwk {
    this.#publicJwk ??= publicJwkOf(this.type, this.publicKey);
    return { ...this.#publicJwk };
  }

  privateJwk(): Jwk {
    return privateJwkOf(this.type, this.publicKey, this.requirePrivate());
  }

  /** Raw public key: 32 bytes for Ed25519/X25519, the uncompressed point `04 || X || Y` for EC keys. */
  publicKeyBytes(): Buffer {
    this.#publicKeyBytes ??= this.computePublicKeyBytes();
    return Buffer.from(this.#publicKeyBytes);
  }

  /** `z` + base58btc(multicodec varint || key), EC keys compressed: the Multikey / did:key form. */
  publicKeyMultibase(): string {
    const bytes = isEcKeyType(this.type) ? compressEcPoint(this.type, this.publicKeyBytes()) : this.publicKeyBytes();
    return multibaseEncode(encodeMultikey(this.type, bytes), 'base58btc');
  }

  /** base58btc of `publicKeyBytes()` without a multibase prefix (Ed25519VerificationKey2018 `publicKeyBase58`). */
  publicKeyBase58(): string {
    return base58Encode(this.publicKeyBytes());
  }

  publicKeyPem(): string {
    return this.publicKey.export({ format: 'pem', type: 'spki' }) as string;
  }

  privateKeyPem(): string {
    return this.requirePrivate().export({ format: 'pem', type: 'pkcs8' }) as string;
  }

  /**
   * Signs `data`: pure EdDSA for Ed25519; ECDSA with SHA-256 (P-256, secp256k1) or SHA-384 (P-384) as a raw
   * `r || s` (IEEE P1363) signature, which is what JWS and Orb expect. secp256k1 comes out low-S.
   */
  sign(data: Uint8Array): Buffer {
    const privateKey = this.requirePrivate();
    if (this.type === 'Ed25519') return sign(null, data, privateKey);
    if (!isEcKeyType(this.type)) throw badRequest(`${this.type} keys cannot sign`);
    const signature = sign(EC_CURVES[this.type].hash, data, { key: privateKey, dsaEncoding: 'ieee-p1363' });
    return this.type === 'secp256k1' ? normaliseSecp256k1LowS(signature) : signature;
  }

  /**
   * Checks a signature made by `sign`. Malformed signatures (wrong length, garbage) give false, never an
   * exception. High-S secp256k1 signatures are accepted, as Orb accepts them.
   */
  verify(data: Uint8Array, signature: Uint8Array): boolean {
    if (this.type === 'X25519') throw badRequest('X25519 keys cannot verify signatures');
    try {
      if (this.type === 'Ed25519') {
        return signature.length === ED25519_SIGNATURE_LENGTH && verify(null, data, this.publicKey, signature);
      }
      const { hash, size } = EC_CURVES[this.type];
      return (
        signature.length === 2 * size &&
        verify(hash, data, { key: this.publicKey, dsaEncoding: 'ieee-p1363' }, signature)
      );
    } catch {
      return false;
    }
  }

  /** Diffie-Hellman shared secret with a peer's public key of the same type (X25519 or an EC curve). */
  ecdh(peerPublic: KeyPair): Buffer {
    const privateKey = this.requirePrivate();
    if (this.type === 'Ed25519') throw badRequest('Ed25519 keys cannot agree keys; use an X25519 key');
    if (peerPublic.type !== this.type)
      throw badRequest(`cannot agree a key between ${this.type} and ${peerPublic.type} keys`);
    return diffieHellman({ privateKey, publicKey: peerPublic.publicKey });
  }

  private computePublicKeyBytes(): Buffer {
    if (!isEcKeyType(this.type)) return okpRawPublicKey(this.publicKey);
    const { x, y } = this.publicJwk();
    return Buffer.concat([
      Buffer.from([0x04]),
      Buffer.from(x as string, 'base64url'),
      Buffer.from(y as string, 'base64url'),
    ]);
  }

  private requirePrivate(): KeyObject {
    if (!this.privateKey) throw badRequest(`this ${this.type} key pair has no private key`);
    return this.privateKey;
  }
}

function keyTypeOfKeyObject(key: KeyObject): KeyType {
  if (key.type === 'secret') throw badRequest('a secret key is not a key pair');
  switch (key.asymmetricKeyType) {
    case 'ed25519':
      return 'Ed25519';
    case 'x25519':
      return 'X25519';
    case 'ec': {
      const curve = key.asymmetricKeyDetails?.namedCurve ?? '';
      const type = TYPE_OF_NAMED_CURVE[curve];
      if (!type) throw badRequest(`unsupported EC curve '${curve}'`);
      return type;
    }
    default:
      throw badRequest(`unsupported key algorithm '${key.asymmetricKeyType ?? 'unknown'}'`);
  }
}

function unsupportedType(type: string): never {
  throw badRequest(`unsupported key type '${String(type)}'`);
}
