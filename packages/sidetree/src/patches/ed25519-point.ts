/**
 * Whether 32 bytes are the encoding of a point on the Ed25519 curve, exactly as `ed25519.Point.fromBytes`
 * of @noble/curves decides it (y below p, and x = 0 only with a clear sign bit), without decompressing.
 *
 * Why not noble's decoder: it computes x, a square root mod p, by exponentiation in BigInt, and every
 * create the node accepts checks its keys, so that root was the largest cost of the accept path. A point
 * exists when x^2 = u/v has a root, i.e. when u·v is a square mod p (v = d·y^2 + 1 is never 0), which the
 * Jacobi symbol answers with shifts and remainders only. The test holds it to noble's answer.
 */
const P = 2n ** 255n - 19n;
const D = 37095705934669439343138083508754565189542113879843219016388785533085940283555n;

export function isEd25519Point(bytes: Uint8Array): boolean {
  if (bytes.length !== 32) return false;
  const signBit = (bytes[31]! & 0x80) !== 0;
  let y = BigInt(bytes[31]! & 0x7f);
  for (let i = 30; i >= 0; i--) y = (y << 8n) | BigInt(bytes[i]!);
  if (y >= P) return false;
  const y2 = (y * y) % P;
  const u = (y2 + P - 1n) % P;
  if (u === 0n) return !signBit;
  const v = (D * y2 + 1n) % P;
  return jacobi((u * v) % P, P) === 1;
}

/** The Jacobi symbol (a/n) for odd n > 0 (binary algorithm with quadratic reciprocity). */
function jacobi(a: bigint, n: bigint): -1 | 0 | 1 {
  let result: -1 | 1 = 1;
  a %= n;
  while (a !== 0n) {
    while ((a & 1n) === 0n) {
      a >>= 1n;
      const r = n & 7n;
      if (r === 3n || r === 5n) result = result === 1 ? -1 : 1;
    }
    [a, n] = [n, a];
    if ((a & 3n) === 3n && (n & 3n) === 3n) result = result === 1 ? -1 : 1;
    a %= n;
  }
  return n === 1n ? result : 0;
}
