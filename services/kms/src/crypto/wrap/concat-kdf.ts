import { createHash } from 'node:crypto';

/**
 * The one-step key derivation of NIST SP 800-56A §5.8.2.1 in JOSE's concatenation format (RFC 7518 §4.6.2),
 * SHA-256. `tag` is ECDH-1PU's cctag in key-wrapping mode (draft-madden-jose-ecdh-1pu-04 §2.3): when given
 * (even empty), SuppPubInfo is keydatalen followed by the length-prefixed tag.
 */
export function concatKdf(
  z: Uint8Array,
  keyBits: number,
  algorithmId: string,
  apu: Uint8Array,
  apv: Uint8Array,
  tag?: Uint8Array,
): Buffer {
  const fixedInfo = Buffer.concat([
    lengthPrefixed(Buffer.from(algorithmId, 'ascii')),
    lengthPrefixed(apu),
    lengthPrefixed(apv),
    uint32(keyBits),
    ...(tag === undefined ? [] : [lengthPrefixed(tag)]),
  ]);
  const keyBytes = keyBits / 8;
  const rounds: Buffer[] = [];
  for (let round = 1; round * 32 < keyBytes + 32; round++)
    rounds.push(createHash('sha256').update(uint32(round)).update(z).update(fixedInfo).digest());
  return Buffer.concat(rounds).subarray(0, keyBytes);
}

function uint32(value: number): Buffer {
  const out = Buffer.alloc(4);
  out.writeUInt32BE(value);
  return out;
}

function lengthPrefixed(data: Uint8Array): Buffer {
  return Buffer.concat([uint32(data.length), data]);
}
