import { base64UrlDecode, base64UrlEncode, isCanonicalBase64Url } from '../encoding/index.js';
import { AppError, badRequest } from '../errors/index.js';
import { type Jwk } from './jwk.js';
import { publicKeyFromJwk } from './key-cache.js';
import { KeyPair } from './key-pair.js';
import {
  checkAlgorithm,
  checkCritical,
  decodeProtectedHeader,
  encodeProtectedHeader,
  headerForKey,
} from './jws-header.js';
import type { Signer } from './signer.js';

/**
 * Detached JWS with an unencoded payload (RFC 7797), `<header>..<signature>`, as Ed25519Signature2018 and
 * JsonWebSignature2020 proofs carry it. The header is `{"alg":..,"b64":false,"crit":["b64"]}` (plus any
 * caller members, sorted), and the signing input is `ASCII(header segment) || '.' || payload bytes`.
 */
export function signDetachedJws(payload: Uint8Array, key: KeyPair, header: Record<string, unknown> = {}): string {
  const headerSegment = detachedHeaderSegment(key, header);
  return `${headerSegment}..${base64UrlEncode(key.sign(detachedSigningBytes(headerSegment, payload)))}`;
}

/** As `signDetachedJws`, with the signature made by a `Signer` (a local key or a key in the kms). */
export async function signDetachedJwsWith(
  payload: Uint8Array,
  signer: Signer,
  header: Record<string, unknown> = {},
): Promise<string> {
  const headerSegment = detachedHeaderSegment(signer.publicKey, header);
  return `${headerSegment}..${base64UrlEncode(await signer.sign(detachedSigningBytes(headerSegment, payload)))}`;
}

function detachedHeaderSegment(key: KeyPair, header: Record<string, unknown>): string {
  const { b64, crit } = header;
  if (
    (b64 !== undefined && b64 !== false) ||
    (crit !== undefined && !(Array.isArray(crit) && crit.length === 1 && crit[0] === 'b64'))
  ) {
    throw badRequest('a detached JWS header always has b64 false and crit ["b64"]');
  }
  return encodeProtectedHeader({ ...headerForKey(key, header), b64: false, crit: ['b64'] });
}

function detachedSigningBytes(headerSegment: string, payload: Uint8Array): Buffer {
  return Buffer.concat([Buffer.from(`${headerSegment}.`, 'ascii'), payload]);
}

/**
 * Verifies a detached JWS over `payload`. Unencoded (b64 false, listed in crit) and ordinary detached
 * (payload base64url-encoded into the signing input, RFC 7515 Appendix F) forms are both accepted, as the
 * original's proof verifier accepts both. Any defect in the JWS itself gives false; only an unusable
 * `publicKey` throws.
 */
export function verifyDetachedJws(jws: string, payload: Uint8Array, publicKey: Jwk | KeyPair): boolean {
  const key = publicKey instanceof KeyPair ? publicKey : publicKeyFromJwk(publicKey);
  if (key.type === 'X25519') throw badRequest('X25519 keys cannot verify signatures');
  try {
    const signingInput = detachedSigningInput(jws, payload, key);
    return key.verify(signingInput.data, signingInput.signature);
  } catch (error) {
    if (error instanceof AppError && error.code === 'bad_request') return false;
    throw error;
  }
}

function detachedSigningInput(jws: string, payload: Uint8Array, key: KeyPair): { data: Buffer; signature: Buffer } {
  if (typeof jws !== 'string') throw badRequest('JWS must be a string');
  const parts = jws.split('.');
  if (parts.length !== 3 || parts[1] !== '') throw badRequest('detached JWS must be <header>..<signature>');
  const [headerSegment, , signatureSegment] = parts as [string, string, string];
  const header = decodeProtectedHeader(headerSegment);
  checkAlgorithm(header.alg, key);
  checkCritical(header, ['b64']);
  if (signatureSegment.length === 0 || !isCanonicalBase64Url(signatureSegment))
    throw badRequest('JWS signature is not canonical base64url');
  const unencoded = header.b64 === false;
  if (unencoded && !(header.crit as string[] | undefined)?.includes('b64'))
    throw badRequest('b64 false must be listed in crit');
  if (header.b64 !== undefined && typeof header.b64 !== 'boolean') throw badRequest('JWS b64 must be a boolean');
  const encodedPayload = unencoded ? Buffer.from(payload) : Buffer.from(base64UrlEncode(payload), 'ascii');
  return {
    data: Buffer.concat([Buffer.from(`${headerSegment}.`, 'ascii'), encodedPayload]),
    signature: base64UrlDecode(signatureSegment),
  };
}
