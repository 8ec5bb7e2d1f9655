import { createHash } from 'node:crypto';
import { base64UrlDecode, base64UrlEncode } from './base64.js';

/** Multihash codes the protocols accept. */
export const SHA2_256 = 0x12;
export const SHA2_512 = 0x13;
export const IDENTITY = 0x00;

const DIGEST_ALGORITHMS: Record<number, { name: string; length: number }> = {
  [SHA2_256]: { name: 'sha256', length: 32 },
  [SHA2_512]: { name: 'sha512', length: 64 },
};

export interface DecodedMultihash {
  code: number;
  digest: Buffer;
}

export function sha256(data: Uint8Array | string): Buffer {
  return createHash('sha256').update(data).digest();
}

/** Wraps a digest in a multihash (`code || length || digest`); code and length are single-byte varints here. */
export function wrapMultihash(code: number, digest: Uint8Array): Buffer {
  if (code > 0x7f || digest.length > 0x7f) throw new RangeError('multihash code or length out of single-byte range');
  return Buffer.concat([Buffer.from([code, digest.length]), digest]);
}

/** `multihash(hashOf(data))` for a supported code (SHA2-256 by default). */
export function multihash(data: Uint8Array | string, code: number = SHA2_256): Buffer {
  const algorithm = DIGEST_ALGORITHMS[code];
  if (!algorithm) throw new RangeError(`unsupported multihash code ${code}`);
  return wrapMultihash(code, createHash(algorithm.name).update(data).digest());
}

/** Splits a multihash into code and digest, checking the declared length. */
export function decodeMultihash(bytes: Uint8Array): DecodedMultihash {
  const buffer = Buffer.from(bytes);
  if (buffer.length < 2) throw new TypeError('multihash too short');
  const code = buffer[0] as number;
  const length = buffer[1] as number;
  if (code > 0x7f || length > 0x7f) throw new TypeError('multihash varints longer than one byte are not supported');
  if (buffer.length !== 2 + length) throw new TypeError('multihash length does not match its digest');
  return { code, digest: buffer.subarray(2) };
}

/** The Sidetree "hashing process": base64url (unpadded) of the SHA2-256 multihash of the data. */
export function encodedMultihash(data: Uint8Array | string, code: number = SHA2_256): string {
  return base64UrlEncode(multihash(data, code));
}

/** Decodes a base64url multihash string, e.g. a Sidetree suffix or commitment. */
export function decodeEncodedMultihash(encoded: string): DecodedMultihash {
  return decodeMultihash(base64UrlDecode(encoded));
}

/**
 * Checks that `encoded` is the multihash of `data`, recomputed with the code `encoded` declares. Compares the
 * encoded strings, not the bytes, because base64url strings differing in spare bits decode to the same bytes.
 */
export function matchesEncodedMultihash(
  encoded: string,
  data: Uint8Array | string,
  allowedCodes: readonly number[] = [SHA2_256],
): boolean {
  let decoded: DecodedMultihash;
  try {
    decoded = decodeEncodedMultihash(encoded);
  } catch {
    return false;
  }
  if (!allowedCodes.includes(decoded.code)) return false;
  return encodedMultihash(data, decoded.code) === encoded;
}

export function isSupportedMultihashCode(code: number): boolean {
  return code in DIGEST_ALGORITHMS;
}
