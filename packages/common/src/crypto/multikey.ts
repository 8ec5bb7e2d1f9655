import { varint } from 'multiformats';
import { badRequest } from '../errors/index.js';
import { OKP_KEY_LENGTH, type KeyType } from './key-types.js';

/**
 * Multikey framing of public keys (`publicKeyMultibase`, did:key): the unsigned-varint multicodec of the
 * key type, then the key (raw for Ed25519/X25519, SEC1-compressed for EC keys). The prefixes below are the
 * varint encodings of ed25519-pub 0xed, x25519-pub 0xec, secp256k1-pub 0xe7, p256-pub 0x1200, p384-pub 0x1201.
 */
const MULTICODEC_PREFIX: Readonly<Record<KeyType, Buffer>> = {
  Ed25519: Buffer.from([0xed, 0x01]),
  X25519: Buffer.from([0xec, 0x01]),
  secp256k1: Buffer.from([0xe7, 0x01]),
  'P-256': Buffer.from([0x80, 0x24]),
  'P-384': Buffer.from([0x81, 0x24]),
};

export function encodeMultikey(type: KeyType, keyBytes: Uint8Array): Buffer {
  return Buffer.concat([MULTICODEC_PREFIX[type], keyBytes]);
}

/** Key lengths each type can carry after its prefix: raw OKP keys, or compressed / uncompressed EC points. */
const KEY_LENGTHS: Readonly<Record<KeyType, readonly number[]>> = {
  Ed25519: [32],
  X25519: [32],
  secp256k1: [33, 65],
  'P-256': [33, 65],
  'P-384': [49, 97],
};

/**
 * Splits multikey bytes into key type and key. Exactly 32 bytes without a fitting prefix are read as a bare
 * Ed25519 key: early Ed25519VerificationKey2020 documents put the raw key in `publicKeyMultibase`. (A
 * prefix only counts when the rest has a length the type allows, so a bare key starting 0xed 0x01 is safe.)
 */
export function decodeMultikey(bytes: Uint8Array): { type: KeyType; key: Buffer } {
  const buffer = Buffer.from(bytes);
  const prefixed = (Object.entries(MULTICODEC_PREFIX) as [KeyType, Buffer][]).find(([, prefix]) =>
    buffer.subarray(0, prefix.length).equals(prefix),
  );
  if (prefixed) {
    const [type, prefix] = prefixed;
    const key = buffer.subarray(prefix.length);
    if (KEY_LENGTHS[type].includes(key.length)) return { type, key };
  }
  if (buffer.length === OKP_KEY_LENGTH) return { type: 'Ed25519', key: buffer };
  if (prefixed) {
    const [type] = prefixed;
    throw badRequest(
      `${type} multikey must carry ${KEY_LENGTHS[type].join(' or ')} key bytes, got ${buffer.length - prefixed[1].length}`,
    );
  }
  let codec: number | undefined;
  try {
    [codec] = varint.decode(buffer);
  } catch {
    codec = undefined;
  }
  throw badRequest(
    codec === undefined
      ? 'multikey has no valid multicodec prefix'
      : `unsupported multikey codec 0x${codec.toString(16)}`,
  );
}
