import { hash } from 'node:crypto';
import { badRequest } from '@anchor/common/errors';
import {
  base64UrlEncode,
  canonicalize,
  decodeEncodedMultihash,
  isCanonicalBase64Url,
  SHA2_256,
  type DecodedMultihash,
  wrapMultihash,
} from '@anchor/common/encoding';
import type { ProtocolParameters } from './protocol.js';

/**
 * The Sidetree hashing process (`base64url(multihash(H(data)))`), commitments and reveal values. Values are
 * compared as encoded strings, never as decoded bytes: two base64url strings whose spare bits differ decode
 * to the same bytes, and sidetree-go and Orb compare strings.
 */
const DIGEST_OF: Readonly<Record<number, { algorithm: string; length: number }>> = {
  0x12: { algorithm: 'sha256', length: 32 },
  0x13: { algorithm: 'sha512', length: 64 },
};

function digest(code: number, data: Uint8Array | string): Buffer {
  const spec = DIGEST_OF[code];
  if (!spec) throw badRequest(`multihash code ${code} is not supported`);
  // One-shot: a Hash object per digest costs more than the digest of a request-sized input.
  return hash(spec.algorithm, data, 'buffer');
}

/** `base64url(multihash(H(data)))` with H chosen by the multihash code. */
export function hashBytes(data: Uint8Array | string, code: number = SHA2_256): string {
  return base64UrlEncode(wrapMultihash(code, digest(code, data)));
}

/** The Sidetree hash of a JSON value: `hashBytes(JCS(value))` (suffixes, delta hashes, reveal values). */
export function hashCanonical(value: unknown, code: number = SHA2_256): string {
  return hashBytes(canonicalize(value), code);
}

/** `multihash(H(H(data)))` where the inner hash is the raw digest: a commitment over already canonical bytes. */
export function commitmentOfBytes(data: Uint8Array | string, code: number = SHA2_256): string {
  return base64UrlEncode(wrapMultihash(code, digest(code, digest(code, data))));
}

/**
 * The commitment a reveal value opens: decode the multihash, hash its digest again with the same code. This is
 * the key under which the resolver files an operation that reveals the value.
 */
export function commitmentFromRevealValue(revealValue: string): string {
  const { code, digest: inner } = decodeEncodedMultihash(revealValue);
  return base64UrlEncode(wrapMultihash(code, digest(code, inner)));
}

/**
 * Validates an encoded multihash field (suffix, commitment, reveal value, delta hash) against the protocol:
 * a string no longer than the maximum hash length, canonical base64url, a well-formed multihash with an
 * allowed code and the digest length that code implies. Returns the decoded multihash.
 */
export function checkEncodedMultihash(value: unknown, path: string, protocol: ProtocolParameters): DecodedMultihash {
  if (value === undefined) throw badRequest(`${path} is missing`);
  if (typeof value !== 'string') throw badRequest(`${path} must be a string`);
  if (value.length === 0) throw badRequest(`${path} must not be empty`);
  if (value.length > protocol.maxOperationHashLength) {
    throw badRequest(
      `${path} is too long: ${value.length} characters exceeds the maximum hash length ${protocol.maxOperationHashLength}`,
    );
  }
  if (!isCanonicalBase64Url(value)) throw badRequest(`${path} is not canonical base64url`);
  let decoded: DecodedMultihash;
  try {
    decoded = decodeEncodedMultihash(value);
  } catch (error) {
    throw badRequest(`${path} is not a valid multihash: ${(error as Error).message}`);
  }
  if (!protocol.multihashAlgorithms.includes(decoded.code)) {
    throw badRequest(
      `${path} uses multihash code ${decoded.code}, but ${protocol.name} allows only ${protocol.multihashAlgorithms.join(', ')}`,
    );
  }
  const expected = DIGEST_OF[decoded.code]?.length;
  if (decoded.digest.length !== expected) {
    throw badRequest(
      `${path} has a ${decoded.digest.length}-byte digest; multihash code ${decoded.code} needs ${String(expected)}`,
    );
  }
  return decoded;
}

/** Whether `encoded` is the hash of `data` under the code `encoded` declares (compared as encoded strings). */
export function hashMatches(encoded: string, data: Uint8Array | string): boolean {
  let code: number;
  try {
    code = decodeEncodedMultihash(encoded).code;
  } catch {
    return false;
  }
  if (!(code in DIGEST_OF)) return false;
  return hashBytes(data, code) === encoded;
}
