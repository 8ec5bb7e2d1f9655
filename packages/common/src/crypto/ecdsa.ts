/**
 * secp256k1 low-S normalisation. OpenSSL returns either of the two valid `s` values; Bitcoin-lineage
 * verifiers (@noble/curves by default, libsecp256k1) accept only `s <= n/2`, so signatures we emit are
 * normalised. Verification stays permissive, like Orb's.
 */
const SECP256K1_ORDER = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
const SECP256K1_HALF_ORDER = SECP256K1_ORDER >> 1n;

/** Rewrites a 64-byte IEEE P1363 secp256k1 signature in place to its low-S twin when `s` is high. */
export function normaliseSecp256k1LowS(signature: Buffer): Buffer {
  const s = BigInt(`0x${signature.subarray(32).toString('hex')}`);
  if (s > SECP256K1_HALF_ORDER) {
    Buffer.from((SECP256K1_ORDER - s).toString(16).padStart(64, '0'), 'hex').copy(signature, 32);
  }
  return signature;
}

/** True when a 64-byte secp256k1 signature has `s <= n/2`. */
export function isSecp256k1LowS(signature: Uint8Array): boolean {
  return BigInt(`0x${Buffer.from(signature.subarray(32)).toString('hex')}`) <= SECP256K1_HALF_ORDER;
}
