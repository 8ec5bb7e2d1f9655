import { createPublicKey, KeyObject, type JsonWebKey } from 'node:crypto';
import { base64Decode } from '../encoding/index.js';
import { KEY_PARAMETERS, NodeVerificationKey, type HttpSigKeyType } from './algorithms.js';

/**
 * `publicKeyPem` in the two forms that meet on the wire.
 *
 * - Orb's form (trustbloc/orb `EncodePublicKeyToPEM`): the PEM block type names the key type and the
 *   body is the raw public key, not SPKI: `-----BEGIN Ed25519-----` over the 32-byte key, `-----BEGIN P-256-----`
 *   / `-----BEGIN P-384-----` over the uncompressed point `04 || X || Y`. Orb's verifier dispatches on
 *   the block type, so this is the form to serve to its nodes.
 * - Standard SPKI (`-----BEGIN PUBLIC KEY-----`), as other ActivityPub software writes.
 *
 * Both are accepted on input; Orb's form (`'original'`) is produced by default.
 */
export type PemForm = 'original' | 'spki';

export class PublicKeyFormatError extends Error {}

/** Line breaks are optional: some documents carry PEM flattened onto one line. */
const PEM_BLOCK = /-----BEGIN ([A-Za-z0-9 -]+)-----([\s\S]*?)-----END \1-----/;
const CURVE_BY_TYPE = { 'P-256': 'P-256', 'P-384': 'P-384', secp256k1: 'secp256k1' } as const;
const TYPE_BY_NAMED_CURVE: Record<string, HttpSigKeyType> = {
  prime256v1: 'P-256',
  secp384r1: 'P-384',
  secp256k1: 'secp256k1',
};

/** Parses a PEM public key in either form into a verification key; throws `PublicKeyFormatError` naming the problem. */
export function parsePublicKeyPem(pem: string): NodeVerificationKey {
  const match = PEM_BLOCK.exec(pem);
  if (!match) throw new PublicKeyFormatError('publicKeyPem holds no PEM block');
  const label = match[1] as string;
  let body: Buffer;
  try {
    body = base64Decode((match[2] as string).replace(/\s+/g, ''));
  } catch {
    throw new PublicKeyFormatError(`the ${label} PEM block is not base64`);
  }
  switch (label) {
    case 'PUBLIC KEY':
      return fromSpki(body);
    case 'Ed25519':
      if (body.length !== 32) throw new PublicKeyFormatError(`an Ed25519 PEM block holds 32 bytes, got ${body.length}`);
      return new NodeVerificationKey('Ed25519', jwkKey({ kty: 'OKP', crv: 'Ed25519', x: body.toString('base64url') }));
    case 'P-256':
    case 'P-384':
      return new NodeVerificationKey(label, fromUncompressedPoint(label, body));
    default:
      throw new PublicKeyFormatError(
        `unsupported public key PEM block type ${JSON.stringify(label)} (expected Ed25519, P-256, P-384 or PUBLIC KEY)`,
      );
  }
}

/** A public key in any shape at hand: a `KeyObject`, a PEM string (either form), or a `crypto` module `KeyPair`. */
export type PublicKeySource = KeyObject | string | { publicKey: KeyObject } | { publicKeyPem(): string };

/** Encodes a public key as `publicKeyPem`, by default in Orb's form (see the module comment). */
export function encodePublicKeyPem(source: PublicKeySource, form: PemForm = 'original'): string {
  const key = toVerificationKey(source);
  if (form === 'spki') return key.keyObject.export({ format: 'pem', type: 'spki' }).toString();
  const jwk = key.keyObject.export({ format: 'jwk' });
  switch (key.type) {
    case 'Ed25519':
      return goPem('Ed25519', Buffer.from(jwk.x as string, 'base64url'));
    case 'P-256':
    case 'P-384': {
      const size = KEY_PARAMETERS[key.type].scalarBytes;
      const point = Buffer.concat([
        Buffer.from([4]),
        pad(Buffer.from(jwk.x as string, 'base64url'), size),
        pad(Buffer.from(jwk.y as string, 'base64url'), size),
      ]);
      return goPem(key.type, point);
    }
    case 'secp256k1':
      throw new PublicKeyFormatError('the original has no PEM form for secp256k1 keys; use the spki form');
  }
}

/** The key type of a public key source, e.g. to pick the signing algorithm for a `KeyPair`. */
export function toVerificationKey(source: PublicKeySource): NodeVerificationKey {
  if (source instanceof KeyObject) return fromKeyObject(source);
  if (typeof source === 'string') return parsePublicKeyPem(source);
  if ('publicKey' in source && source.publicKey instanceof KeyObject) return fromKeyObject(source.publicKey);
  return parsePublicKeyPem((source as { publicKeyPem(): string }).publicKeyPem());
}

function fromSpki(der: Buffer): NodeVerificationKey {
  let keyObject: KeyObject;
  try {
    keyObject = createPublicKey({ key: der, format: 'der', type: 'spki' });
  } catch (error) {
    throw new PublicKeyFormatError(`invalid SPKI public key: ${(error as Error).message}`);
  }
  return fromKeyObject(keyObject);
}

function fromKeyObject(keyObject: KeyObject): NodeVerificationKey {
  const publicKey = keyObject.type === 'private' ? createPublicKey(keyObject) : keyObject;
  if (publicKey.asymmetricKeyType === 'ed25519') return new NodeVerificationKey('Ed25519', publicKey);
  const curve = publicKey.asymmetricKeyType === 'ec' ? publicKey.asymmetricKeyDetails?.namedCurve : undefined;
  const type = curve === undefined ? undefined : TYPE_BY_NAMED_CURVE[curve];
  if (!type)
    throw new PublicKeyFormatError(
      `unsupported public key type ${publicKey.asymmetricKeyType ?? 'unknown'}${curve ? ` (${curve})` : ''}`,
    );
  return new NodeVerificationKey(type, publicKey);
}

function fromUncompressedPoint(type: 'P-256' | 'P-384', point: Buffer): KeyObject {
  const size = KEY_PARAMETERS[type].scalarBytes;
  if (point.length !== 1 + 2 * size || point[0] !== 4) {
    throw new PublicKeyFormatError(
      `a ${type} PEM block holds an uncompressed point of ${1 + 2 * size} bytes starting 04`,
    );
  }
  return jwkKey({
    kty: 'EC',
    crv: CURVE_BY_TYPE[type],
    x: point.subarray(1, 1 + size).toString('base64url'),
    y: point.subarray(1 + size).toString('base64url'),
  });
}

function jwkKey(jwk: JsonWebKey): KeyObject {
  try {
    return createPublicKey({ key: jwk, format: 'jwk' });
  } catch (error) {
    throw new PublicKeyFormatError(`invalid public key: ${(error as Error).message}`);
  }
}

function pad(bytes: Buffer, size: number): Buffer {
  return bytes.length >= size ? bytes : Buffer.concat([Buffer.alloc(size - bytes.length), bytes]);
}

/** PEM as Go's `pem.EncodeToMemory` writes it: 64-character lines, a trailing newline. */
function goPem(label: string, body: Buffer): string {
  const lines = body.toString('base64').match(/.{1,64}/g) ?? [];
  return `-----BEGIN ${label}-----\n${lines.join('\n')}\n-----END ${label}-----\n`;
}
