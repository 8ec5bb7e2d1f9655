/**
 * Whether 32 bytes are the encoding of a point on the Ed25519 curve, exactly as `ed25519.Point.fromBytes`
 * of @noble/curves decides it (y below p, and x = 0 only with a clear sign bit), without decompressing.
 *
 * Why not noble's decoder: it computes x, a square root mod p, by exponentiation in BigInt, and every
 * create the node accepts checks its keys, so that root was the largest cost of the accept path. A point
 * exists when x^2 = u/v has a root, i.e. when u·v is a square mod p (v = d·y^2 + 1 is never 0), which the
 * Jacobi symbol answers with shifts and subtractions only. The symbol is computed on fixed 28-bit limbs
 * rather than BigInt: every BigInt step allocates, and the BigInt version was a fifth of all the memory
 * the node allocated per accepted create. The test holds it to noble's answer.
 */
const P = 2n ** 255n - 19n;
const D = 37095705934669439343138083508754565189542113879843219016388785533085940283555n;
const Y_MASK = (1n << 255n) - 1n;

const LIMB_BITS = 28;
const LIMBS = 10;
const LIMB_MASK = (1 << LIMB_BITS) - 1;
/** Hex digits of LIMBS limbs (7 per limb). */
const HEX_DIGITS = 70;

function toLimbs(value: bigint, out: Int32Array<ArrayBuffer>): Int32Array<ArrayBuffer> {
  const hex = value.toString(16).padStart(HEX_DIGITS, '0');
  for (let i = 0; i < LIMBS; i++) out[i] = parseInt(hex.slice(HEX_DIGITS - 7 * (i + 1), HEX_DIGITS - 7 * i), 16);
  return out;
}

const P_LIMBS = toLimbs(P, new Int32Array(LIMBS));
const scratchA = new Int32Array(LIMBS);
const scratchN = new Int32Array(LIMBS);

export function isEd25519Point(bytes: Uint8Array): boolean {
  if (bytes.length !== 32) return false;
  const signBit = (bytes[31]! & 0x80) !== 0;
  const y = BigInt(`0x${Buffer.from(bytes).reverse().toString('hex')}`) & Y_MASK;
  if (y >= P) return false;
  const y2 = (y * y) % P;
  const u = (y2 + P - 1n) % P;
  if (u === 0n) return !signBit;
  const v = (D * y2 + 1n) % P;
  return jacobiModP((u * v) % P) === 1;
}

/**
 * The Jacobi symbol (w/p) for 0 <= w < p (binary algorithm with quadratic reciprocity), little-endian limbs.
 * Each round strips the factors of two from a, swaps so that a >= n (flipping the sign by reciprocity when
 * both are 3 mod 4) and subtracts n from a.
 */
export function jacobiModP(w: bigint): -1 | 0 | 1 {
  let a = toLimbs(w, scratchA);
  let n = scratchN;
  n.set(P_LIMBS);
  let result: -1 | 1 = 1;
  let length = LIMBS;
  for (;;) {
    let zeroLimbs = 0;
    while (zeroLimbs < length && a[zeroLimbs] === 0) zeroLimbs++;
    if (zeroLimbs === length) {
      for (let i = 1; i < length; i++) if (n[i] !== 0) return 0;
      return n[0] === 1 ? result : 0;
    }
    if (zeroLimbs > 0) {
      a.copyWithin(0, zeroLimbs, length);
      a.fill(0, length - zeroLimbs, length);
    }
    const low = a[0]!;
    const shift = 31 - Math.clz32(low & -low);
    if (shift > 0) {
      for (let i = 0; i < length - 1; i++) a[i] = (a[i]! >>> shift) | ((a[i + 1]! << (LIMB_BITS - shift)) & LIMB_MASK);
      a[length - 1] = a[length - 1]! >>> shift;
    }
    // (2/n) = -1 exactly when n is 3 or 5 mod 8.
    if (((zeroLimbs * LIMB_BITS + shift) & 1) === 1) {
      const r = n[0]! & 7;
      if (r === 3 || r === 5) result = result === 1 ? -1 : 1;
    }
    let top = length - 1;
    while (top > 0 && a[top] === n[top]) top--;
    if (a[top]! < n[top]!) {
      const swapped = a;
      a = n;
      n = swapped;
      if ((a[0]! & 3) === 3 && (n[0]! & 3) === 3) result = result === 1 ? -1 : 1;
    }
    let borrow = 0;
    for (let i = 0; i < length; i++) {
      let difference = a[i]! - n[i]! - borrow;
      borrow = difference < 0 ? 1 : 0;
      if (borrow === 1) difference += 1 << LIMB_BITS;
      a[i] = difference;
    }
    while (length > 1 && a[length - 1] === 0 && n[length - 1] === 0) length--;
  }
}
