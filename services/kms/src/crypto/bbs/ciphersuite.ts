import { bls12_381 } from '@noble/curves/bls12-381.js';
import { expand_message_xmd } from '@noble/curves/abstract/hash-to-curve.js';
import { sha256 } from '@noble/hashes/sha2.js';

/**
 * The BLS12-381-SHA-256 ciphersuite of draft-irtf-cfrg-bbs-signatures-09 (§6.2.2) and the utilities of its
 * §4: hash to scalar, generators, serialization. Names follow the draft.
 */
export const G1 = bls12_381.G1.Point;
export const G2 = bls12_381.G2.Point;
export type G1Point = InstanceType<typeof G1>;
export type G2Point = InstanceType<typeof G2>;
export const Fr = bls12_381.fields.Fr;
export const r = Fr.ORDER;

const ascii = (text: string): Uint8Array => new TextEncoder().encode(text);

export const CIPHERSUITE_ID = ascii('BBS_BLS12381G1_XMD:SHA-256_SSWU_RO_');
/** The api_id of the draft's BBS interface: ciphersuite_id || "H2G_HM2S_". */
export const API_ID = concat(CIPHERSUITE_ID, ascii('H2G_HM2S_'));
export const OCTET_SCALAR_LENGTH = 32;
export const OCTET_POINT_LENGTH = 48;
const EXPAND_LEN = 48;

export const P1 = G1.fromHex(
  'a8ce256102840821a3e94ea9025e4662b205762f9776b3a766c872b948f1fd225e7c59698588e70d11406d161b4e28c9',
);
export const BP2 = G2.BASE;

export const H2S_DST = concat(API_ID, ascii('H2S_'));
export const KEYGEN_DST = concat(CIPHERSUITE_ID, ascii('KEYGEN_DST_'));
const MAP_DST = concat(API_ID, ascii('MAP_MSG_TO_SCALAR_AS_HASH_'));
const SEED_DST = concat(API_ID, ascii('SIG_GENERATOR_SEED_'));
const GENERATOR_DST = concat(API_ID, ascii('SIG_GENERATOR_DST_'));
const GENERATOR_SEED = concat(API_ID, ascii('MESSAGE_GENERATOR_SEED'));

export function concat(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

export function i2osp(value: number | bigint, length: number): Uint8Array {
  const out = new Uint8Array(length);
  let rest = BigInt(value);
  for (let i = length - 1; i >= 0; i--) {
    out[i] = Number(rest & 0xffn);
    rest >>= 8n;
  }
  if (rest !== 0n) throw new Error(`${value} does not fit in ${length} octets`);
  return out;
}

export function os2ip(octets: Uint8Array): bigint {
  let value = 0n;
  for (const octet of octets) value = (value << 8n) | BigInt(octet);
  return value;
}

export function hashToScalar(message: Uint8Array, dst: Uint8Array): bigint {
  return os2ip(expand_message_xmd(message, dst, EXPAND_LEN, sha256)) % r;
}

export function messagesToScalars(messages: readonly Uint8Array[]): bigint[] {
  return messages.map((message) => hashToScalar(message, MAP_DST));
}

export function scalarToOctets(scalar: bigint): Uint8Array {
  return i2osp(scalar, OCTET_SCALAR_LENGTH);
}

/**
 * Generators are constants of the interface (§4.1.1 allows caching them). Each is kept with a precomputed
 * window table, which turns the multiplications by message scalars, the bulk of signing, into table look-ups:
 * wide tables for Q_1 and the first 15 message generators, where most credentials fall, narrower ones up to
 * 128, none beyond, to bound the memory (sizes and timings: README.md).
 */
const generatorCache: G1Point[] = [];
/** Their octets (point_to_octets_E1), for calculate_domain: compressing a point costs an inversion and a subgroup check. */
const generatorOctets: Uint8Array[] = [];
let generatorState = expand_message_xmd(GENERATOR_SEED, SEED_DST, EXPAND_LEN, sha256);

function tableWindow(index: number): number | undefined {
  if (index < 16) return 8;
  return index < 128 ? 4 : undefined;
}

/** create_generators(count, api_id): (Q_1, H_1, ..., H_count-1). */
export function createGenerators(count: number): G1Point[] {
  while (generatorCache.length < count) {
    generatorState = expand_message_xmd(
      concat(generatorState, i2osp(generatorCache.length + 1, 8)),
      SEED_DST,
      EXPAND_LEN,
      sha256,
    );
    const generator = bls12_381.G1.hashToCurve(generatorState, { DST: GENERATOR_DST }) as G1Point;
    const window = tableWindow(generatorCache.length);
    generatorCache.push(window === undefined ? generator : generator.precompute(window, false));
    generatorOctets.push(generator.toBytes(true));
  }
  return generatorCache.slice(0, count);
}

/** calculate_domain(PK, Q_1, H_Points, header, api_id). */
export function calculateDomain(pk: Uint8Array, generators: readonly G1Point[], header: Uint8Array): bigint {
  const domOcts = concat(i2osp(generators.length - 1, 8), ...generatorOctets.slice(0, generators.length), API_ID);
  return hashToScalar(concat(pk, domOcts, i2osp(header.length, 8), header), H2S_DST);
}

/** P1 + Q_1 * domain + Σ H_i * msg_i over the given (generator, scalar) pairs; scalars here are not secret. */
export function commitment(domain: bigint, q1: G1Point, terms: ReadonlyArray<readonly [G1Point, bigint]>): G1Point {
  let sum = P1.add(mulPublic(q1, domain));
  for (const [generator, scalar] of terms) sum = sum.add(mulPublic(generator, scalar));
  return sum;
}

/** Multiplication by a scalar the caller may disclose (variable time); zero is allowed. */
export function mulPublic(point: G1Point, scalar: bigint): G1Point {
  return scalar === 0n ? G1.ZERO : point.multiplyUnsafe(scalar);
}

/** Multiplication by a secret scalar (constant time). */
export function mulSecret(point: G1Point, scalar: bigint): G1Point {
  return point.multiply(scalar);
}

/** octets_to_point_E1 with the subgroup and identity checks of octets_to_signature / octets_to_proof; undefined if invalid. */
export function g1FromOctets(octets: Uint8Array): G1Point | undefined {
  try {
    const point = G1.fromBytes(octets);
    return point.is0() ? undefined : point;
  } catch {
    return undefined;
  }
}

type PairingPrecompute = ReturnType<typeof bls12_381.utils.calcPairingPrecomputes>;

/** A public key as verification uses it: the G2 point and its Miller-loop line coefficients. */
export interface PublicKeyPoint {
  w: G2Point;
  lines: PairingPrecompute;
}

/**
 * Parsed public keys, by their octets (§4.7.4 allows caching the validation): the subgroup check and the
 * Miller-loop precomputation of a G2 point cost more than the rest of a verification. A kms verifies under
 * few keys; the oldest entry goes when the cache is full.
 */
const publicKeys = new Map<string, PublicKeyPoint>();
const PUBLIC_KEY_CACHE_SIZE = 256;

/** octets_to_pubkey: a G2 point in the subgroup, not the identity; undefined if invalid. */
export function publicKeyFromOctets(pk: Uint8Array): PublicKeyPoint | undefined {
  if (pk.length !== 96) return undefined;
  const id = Buffer.from(pk).toString('hex');
  const cached = publicKeys.get(id);
  if (cached) return cached;
  let w: G2Point;
  try {
    w = G2.fromBytes(pk);
  } catch {
    return undefined;
  }
  if (w.is0()) return undefined;
  const parsed = { w, lines: bls12_381.utils.calcPairingPrecomputes(w) };
  if (publicKeys.size >= PUBLIC_KEY_CACHE_SIZE) publicKeys.delete(publicKeys.keys().next().value!);
  publicKeys.set(id, parsed);
  return parsed;
}

const BP2_LINES = bls12_381.utils.calcPairingPrecomputes(BP2);
const NEG_BP2_LINES = bls12_381.utils.calcPairingPrecomputes(BP2.negate());

/**
 * Whether h(P_1, Q_1) * h(P_2, Q_2) == Identity_GT, each Q given by its line coefficients (a public key's, or
 * BP2's / -BP2's). An identity P contributes the identity.
 */
export function pairingProductIsOne(pairs: Array<{ g1: G1Point; lines: PairingPrecompute }>): boolean {
  const { Fp12 } = bls12_381.fields;
  const terms = pairs
    .filter(({ g1 }) => !g1.is0())
    .map(({ g1, lines }) => {
      const { x, y } = g1.toAffine();
      return [lines, x, y] as [PairingPrecompute, bigint, bigint];
    });
  return Fp12.eql(Fp12.finalExponentiate(bls12_381.millerLoopBatch(terms)), Fp12.ONE);
}

export const PAIRING_LINES = { BP2: BP2_LINES, NEG_BP2: NEG_BP2_LINES };
