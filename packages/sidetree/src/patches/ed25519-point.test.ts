import { randomBytes } from 'node:crypto';
import { KeyPair } from '@anchor/common/crypto';
import { ed25519 } from '@noble/curves/ed25519.js';
import { describe, expect, it } from 'vitest';
import { isEd25519Point, jacobiModP } from './ed25519-point.js';

const nobleAccepts = (bytes: Uint8Array): boolean => {
  try {
    ed25519.Point.fromBytes(bytes);
    return true;
  } catch {
    return false;
  }
};
const P = 2n ** 255n - 19n;
const encode = (y: bigint, signBit = false): Uint8Array => {
  const bytes = Buffer.alloc(32);
  for (let i = 0; i < 32; i++) bytes[i] = Number((y >> BigInt(8 * i)) & 0xffn);
  if (signBit) bytes[31]! |= 0x80;
  return bytes;
};

/** The textbook binary algorithm on BigInt: the reference for the limb version. */
function jacobiReference(a: bigint, n: bigint): number {
  let result = 1;
  a %= n;
  while (a !== 0n) {
    while ((a & 1n) === 0n) {
      a >>= 1n;
      if (n % 8n === 3n || n % 8n === 5n) result = -result;
    }
    [a, n] = [n, a];
    if (a % 4n === 3n && n % 4n === 3n) result = -result;
    a %= n;
  }
  return n === 1n ? result : 0;
}

describe('jacobiModP', () => {
  it('agrees with the BigInt algorithm, whole zero limbs and long runs of trailing zeros included', () => {
    const values = [
      0n,
      1n,
      2n,
      3n,
      P - 1n,
      P - 2n,
      (P - 1n) / 2n,
      2n ** 254n,
      2n ** 28n,
      2n ** 56n,
      2n ** 252n + 2n ** 28n,
    ];
    for (let shift = 0n; shift < 255n; shift += 7n) values.push((3n << shift) % P, ((2n ** 60n - 1n) << shift) % P);
    for (let i = 0; i < 500; i++) {
      const random = BigInt(`0x${randomBytes(32).toString('hex')}`) % P;
      values.push(random, (random << BigInt(i % 200)) % P, random >> BigInt(i % 250));
    }
    for (const value of values) expect(jacobiModP(value), value.toString(16)).toBe(jacobiReference(value, P));
  });
});

describe('isEd25519Point', () => {
  it('decides as noble decompression does, over random encodings (about half are points)', () => {
    let points = 0;
    for (let i = 0; i < 4000; i++) {
      const bytes = randomBytes(32);
      const expected = nobleAccepts(bytes);
      if (expected) points++;
      expect(isEd25519Point(bytes), bytes.toString('hex')).toBe(expected);
    }
    expect(points).toBeGreaterThan(1500);
    expect(points).toBeLessThan(2500);
  });

  it('accepts real public keys', () => {
    for (let i = 0; i < 50; i++) {
      const x = Buffer.from((KeyPair.generate('Ed25519').publicJwk() as { x: string }).x, 'base64url');
      expect(isEd25519Point(x)).toBe(true);
    }
  });

  it('decides the edges as noble does: y >= p, x = 0 with either sign, y = 2, other lengths', () => {
    const edges = [
      encode(P),
      encode(P + 1n),
      encode(2n ** 255n - 1n),
      encode(P - 1n, false),
      encode(P - 1n, true),
      encode(1n, false),
      encode(1n, true),
      encode(0n),
      encode(2n),
      encode(2n, true),
    ];
    for (const bytes of edges)
      expect(isEd25519Point(bytes), Buffer.from(bytes).toString('hex')).toBe(nobleAccepts(bytes));
    expect(isEd25519Point(encode(2n))).toBe(false);
    expect(isEd25519Point(encode(1n, true))).toBe(false);
    expect(isEd25519Point(encode(1n))).toBe(true);
    expect(isEd25519Point(Buffer.alloc(31))).toBe(false);
    expect(isEd25519Point(Buffer.alloc(33))).toBe(false);
  });
});
