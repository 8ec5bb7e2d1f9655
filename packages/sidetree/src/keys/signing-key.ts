import type { Jwk } from '@anchor/common/crypto';
import { base64UrlDecode, canonicalize, isCanonicalBase64Url, SHA2_256 } from '@anchor/common/encoding';
import { badRequest } from '@anchor/common/errors';
import { commitmentOfBytes, hashBytes } from '../hashing.js';
import { isJsonObject, rejectUnknownMembers, type JsonObject } from '../json.js';
import type { ProtocolParameters } from '../protocol.js';
import type { ParseMode } from '../operations/parse-mode.js';

/**
 * Update and recovery keys (the JWKs inside signed data). Their reveal values and commitments are hashed
 * over Orb's normalised form (§1.7): exactly kty, crv, x and y (y always present, "" for
 * Ed25519), plus n, e and nonce when non-empty; every other member (kid, alg, use, d...) is dropped. For EC
 * keys this is the plain public JWK, so the DIF vectors hash identically; for Ed25519 it is what orb hashes.
 */
export interface NormalisedSigningJwk {
  kty: string;
  crv: string;
  x: string;
  y: string;
  n?: string;
  e?: string;
  nonce?: string;
}

export interface SigningKey {
  /** The key as it appeared in the signed data (used to verify the signature). */
  jwk: Jwk;
  normalised: NormalisedSigningJwk;
  /** JCS of the normalised key: the bytes reveal values and commitments hash. */
  canonical: string;
}

const GO_JWK_MEMBERS = ['kty', 'crv', 'x', 'y', 'n', 'e', 'nonce'] as const;
const INGEST_JWK_MEMBERS: ReadonlySet<string> = new Set(['kty', 'crv', 'x', 'y', 'nonce']);
const CURVE_KTY: Readonly<Record<string, string>> = {
  Ed25519: 'OKP',
  X25519: 'OKP',
  'P-256': 'EC',
  'P-384': 'EC',
  'P-521': 'EC',
  secp256k1: 'EC',
};

/** The Go normalisation alone, for any JWK-shaped object (members that are not strings count as absent). */
export function normaliseSigningJwk(jwk: JsonObject): NormalisedSigningJwk {
  const text = (member: string): string => (typeof jwk[member] === 'string' ? (jwk[member] as string) : '');
  const normalised: NormalisedSigningJwk = { kty: text('kty'), crv: text('crv'), x: text('x'), y: text('y') };
  for (const member of ['n', 'e', 'nonce'] as const) {
    const value = text(member);
    if (value !== '') normalised[member] = value;
  }
  return normalised;
}

/**
 * Validates a signing key and returns it with its normalised canonical form. Both modes check what the Go
 * parser checks (member types, kty/crv/x present, curve allowed, nonce size); ingest also refuses members the
 * hash would silently drop (a private `d` above all), and keys whose kty, crv and y do not belong together.
 */
export function parseSigningKey(
  value: unknown,
  path: string,
  protocol: ProtocolParameters,
  mode: ParseMode,
): SigningKey {
  if (value === undefined) throw badRequest(`${path} is missing`);
  if (!isJsonObject(value)) throw badRequest(`${path} must be a JSON object (a public JWK)`);
  if (mode === 'ingest') {
    if ('d' in value) throw badRequest(`${path} must be a public key: it carries the private member d`);
    rejectUnknownMembers(value, INGEST_JWK_MEMBERS, path);
  }
  for (const member of GO_JWK_MEMBERS) {
    if (value[member] !== undefined && typeof value[member] !== 'string')
      throw badRequest(`${path}.${member} must be a string`);
  }
  const normalised = normaliseSigningJwk(value);
  if (normalised.kty === '') throw badRequest(`${path}.kty is missing`);
  if (normalised.crv === '') throw badRequest(`${path}.crv is missing`);
  if (normalised.x === '') throw badRequest(`${path}.x is missing`);
  if (!protocol.keyCurves.includes(normalised.crv)) {
    throw badRequest(
      `${path} curve '${normalised.crv}' is not allowed by ${protocol.name} (allowed: ${protocol.keyCurves.join(', ')})`,
    );
  }
  if (mode === 'ingest') checkKeyShape(value, normalised, path);
  if (value.nonce !== undefined && (mode === 'ingest' || value.nonce !== ''))
    checkNonce(value.nonce as string, path, protocol);
  return { jwk: value as Jwk, normalised, canonical: canonicalize(normalised) };
}

function checkKeyShape(jwk: JsonObject, normalised: NormalisedSigningJwk, path: string): void {
  const kty = CURVE_KTY[normalised.crv];
  if (kty !== normalised.kty)
    throw badRequest(`${path}.kty must be '${String(kty)}' for curve ${normalised.crv}, not '${normalised.kty}'`);
  if (kty === 'EC' && normalised.y === '') throw badRequest(`${path}.y is missing (an EC key needs both coordinates)`);
  // Go-built clients send `"y": ""` for Ed25519 keys; a real value there would be hashed but never used.
  if (kty === 'OKP' && jwk.y !== undefined && jwk.y !== '')
    throw badRequest(`${path}.y must be absent or empty for an ${normalised.crv} key`);
}

function checkNonce(nonce: string, path: string, protocol: ProtocolParameters): void {
  if (!isCanonicalBase64Url(nonce) || nonce === '')
    throw badRequest(`${path}.nonce must be non-empty canonical base64url`);
  const length = base64UrlDecode(nonce).length;
  if (length !== protocol.nonceSize)
    throw badRequest(`${path}.nonce must decode to ${protocol.nonceSize} bytes, got ${length}`);
}

/** The reveal value of a public JWK: `hash(JCS(normalised key))`. */
export function revealValueOf(jwk: Jwk | JsonObject, code: number = SHA2_256): string {
  return hashBytes(canonicalize(normaliseSigningJwk(jwk)), code);
}

/** The commitment to a public JWK: `multihash(H(H(JCS(normalised key))))` with the raw inner digest. */
export function commitmentOf(jwk: Jwk | JsonObject, code: number = SHA2_256): string {
  return commitmentOfBytes(canonicalize(normaliseSigningJwk(jwk)), code);
}
