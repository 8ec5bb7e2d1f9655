import { randomBytes } from 'node:crypto';
import { badInput } from '../errors.js';
import {
  BP2,
  Fr,
  H2S_DST,
  KEYGEN_DST,
  OCTET_POINT_LENGTH,
  OCTET_SCALAR_LENGTH,
  PAIRING_LINES,
  calculateDomain,
  commitment,
  concat,
  createGenerators,
  g1FromOctets,
  hashToScalar,
  i2osp,
  messagesToScalars,
  mulPublic,
  mulSecret,
  os2ip,
  pairingProductIsOne,
  publicKeyFromOctets,
  r,
  scalarToOctets,
  type G1Point,
} from './ciphersuite.js';

/**
 * The BBS interface operations of draft-irtf-cfrg-bbs-signatures-09 (§3.5: KeyGen, SkToPk, Sign, Verify,
 * ProofGen, ProofVerify) with their core operations inlined. Inputs are already checked for type by the
 * caller; what the draft calls INVALID is `false` from the verifications and a bad-input error elsewhere.
 */

/** Draws the proof's blinding scalars; replaced in tests by the draft's fixtures' scalars. */
export type RandomScalars = (count: number) => bigint[];

const randomScalars: RandomScalars = (count) => Array.from({ length: count }, () => os2ip(randomBytes(48)) % r);

/** KeyGen(key_material, key_info, key_dst); key_dst defaults to ciphersuite_id || "KEYGEN_DST_". */
export function keyGen(
  keyMaterial: Uint8Array,
  keyInfo: Uint8Array = new Uint8Array(),
  keyDst: Uint8Array = KEYGEN_DST,
): bigint {
  if (keyMaterial.length < 32) throw badInput('BBS key material must be at least 32 bytes');
  return hashToScalar(concat(keyMaterial, i2osp(keyInfo.length, 2), keyInfo), keyDst);
}

export function skToPk(sk: bigint): Uint8Array {
  return BP2.multiply(sk).toBytes(true);
}

export function sign(sk: bigint, pk: Uint8Array, header: Uint8Array, messages: readonly Uint8Array[]): Uint8Array {
  const scalars = messagesToScalars(messages);
  const generators = createGenerators(scalars.length + 1);
  const domain = calculateDomain(pk, generators, header);
  const e = hashToScalar(concat(scalarToOctets(sk), ...scalars.map(scalarToOctets), scalarToOctets(domain)), H2S_DST);
  const [q1, ...h] = generators as [G1Point, ...G1Point[]];
  const b = commitment(
    domain,
    q1,
    h.map((generator, i) => [generator, scalars[i]!] as const),
  );
  const skPlusE = Fr.add(sk, e);
  if (skPlusE === 0n) throw badInput('this key cannot sign these messages (SK + e = 0)');
  const a = mulSecret(b, Fr.inv(skPlusE));
  return concat(a.toBytes(true), scalarToOctets(e));
}

function signatureFromOctets(signature: Uint8Array): { a: G1Point; e: bigint } | undefined {
  if (signature.length !== OCTET_POINT_LENGTH + OCTET_SCALAR_LENGTH) return undefined;
  const a = g1FromOctets(signature.subarray(0, OCTET_POINT_LENGTH));
  const e = os2ip(signature.subarray(OCTET_POINT_LENGTH));
  return a === undefined || e === 0n || e >= r ? undefined : { a, e };
}

export function verify(
  pk: Uint8Array,
  signature: Uint8Array,
  header: Uint8Array,
  messages: readonly Uint8Array[],
): boolean {
  const parsed = signatureFromOctets(signature);
  const w = publicKeyFromOctets(pk);
  if (!parsed || !w) return false;
  const scalars = messagesToScalars(messages);
  const generators = createGenerators(scalars.length + 1);
  const domain = calculateDomain(pk, generators, header);
  const [q1, ...h] = generators as [G1Point, ...G1Point[]];
  const b = commitment(
    domain,
    q1,
    h.map((generator, i) => [generator, scalars[i]!] as const),
  );
  // h(A, W) * h(A * e - B, BP2) == Identity_GT
  return pairingProductIsOne([
    { g1: parsed.a, lines: w.lines },
    { g1: mulPublic(parsed.a, parsed.e).subtract(b), lines: PAIRING_LINES.BP2 },
  ]);
}

interface ProofInit {
  aBar: G1Point;
  bBar: G1Point;
  d: G1Point;
  t1: G1Point;
  t2: G1Point;
  domain: bigint;
}

/** ProofChallengeCalculate. */
function challengeOf(init: ProofInit, disclosed: ReadonlyArray<readonly [number, bigint]>, ph: Uint8Array): bigint {
  const octets = concat(
    i2osp(disclosed.length, 8),
    ...disclosed.flatMap(([index, scalar]) => [i2osp(index, 8), scalarToOctets(scalar)]),
    ...[init.aBar, init.bBar, init.d, init.t1, init.t2].map((point) => point.toBytes(true)),
    scalarToOctets(init.domain),
    i2osp(ph.length, 8),
    ph,
  );
  return hashToScalar(octets, H2S_DST);
}

/**
 * ProofGen. `disclosedIndexes` must be ascending, distinct and below messages.length (the caller sorts them).
 * The signature is verified first, as the draft recommends: a proof of a signature that does not verify would
 * not verify either.
 */
export function proofGen(
  pk: Uint8Array,
  signature: Uint8Array,
  header: Uint8Array,
  ph: Uint8Array,
  messages: readonly Uint8Array[],
  disclosedIndexes: readonly number[],
  random: RandomScalars = randomScalars,
): Uint8Array {
  const parsed = signatureFromOctets(signature);
  if (!parsed) throw badInput('signature is not a BBS signature (BLS12-381-SHA-256)');
  if (!publicKeyFromOctets(pk)) throw badInput('publicKey is not a BLS12-381 G2 public key');
  if (!verify(pk, signature, header, messages))
    throw badInput('signature does not verify for these messages and header');
  const scalars = messagesToScalars(messages);
  const disclosed = new Set(disclosedIndexes);
  const undisclosed = scalars.map((_, i) => i).filter((i) => !disclosed.has(i));
  const [r1, r2, eTilde, r1Tilde, r3Tilde, ...mTilde] = random(5 + undisclosed.length) as [
    bigint,
    bigint,
    bigint,
    bigint,
    bigint,
    ...bigint[],
  ];
  const generators = createGenerators(scalars.length + 1);
  const [q1, ...h] = generators as [G1Point, ...G1Point[]];
  const domain = calculateDomain(pk, generators, header);
  const b = commitment(
    domain,
    q1,
    h.map((generator, i) => [generator, scalars[i]!] as const),
  );
  const d = mulSecret(b, r2);
  const aBar = mulSecret(parsed.a, Fr.mul(r1, r2));
  const bBar = mulSecret(d, r1).subtract(mulSecret(aBar, parsed.e));
  const t1 = mulSecret(aBar, eTilde).add(mulSecret(d, r1Tilde));
  let t2 = mulSecret(d, r3Tilde);
  undisclosed.forEach((j, k) => {
    t2 = t2.add(mulSecret(h[j]!, mTilde[k]!));
  });
  const init = { aBar, bBar, d, t1, t2, domain };
  const c = challengeOf(
    init,
    disclosedIndexes.map((i) => [i, scalars[i]!] as const),
    ph,
  );
  const r3 = Fr.inv(r2);
  return concat(
    aBar.toBytes(true),
    bBar.toBytes(true),
    d.toBytes(true),
    scalarToOctets(Fr.add(eTilde, Fr.mul(parsed.e, c))),
    scalarToOctets(Fr.sub(r1Tilde, Fr.mul(r1, c))),
    scalarToOctets(Fr.sub(r3Tilde, Fr.mul(r3, c))),
    ...undisclosed.map((j, k) => scalarToOctets(Fr.add(mTilde[k]!, Fr.mul(scalars[j]!, c)))),
    scalarToOctets(c),
  );
}

const PROOF_LENGTH_FLOOR = 3 * OCTET_POINT_LENGTH + 4 * OCTET_SCALAR_LENGTH;

/** The number of undisclosed messages a proof of this length commits to, or undefined if no proof has it. */
export function undisclosedCount(proofLength: number): number | undefined {
  const rest = proofLength - PROOF_LENGTH_FLOOR;
  return rest < 0 || rest % OCTET_SCALAR_LENGTH !== 0 ? undefined : rest / OCTET_SCALAR_LENGTH;
}

/** ProofVerify. `disclosed` is (index, message), by ascending index; indexes out of order or repeated do not verify. */
export function proofVerify(
  pk: Uint8Array,
  proof: Uint8Array,
  header: Uint8Array,
  ph: Uint8Array,
  disclosed: ReadonlyArray<readonly [number, Uint8Array]>,
): boolean {
  const u = undisclosedCount(proof.length);
  const w = publicKeyFromOctets(pk);
  if (u === undefined || !w) return false;
  const points: G1Point[] = [];
  for (let i = 0; i < 3; i++) {
    const point = g1FromOctets(proof.subarray(i * OCTET_POINT_LENGTH, (i + 1) * OCTET_POINT_LENGTH));
    if (!point) return false;
    points.push(point);
  }
  const scalars: bigint[] = [];
  for (let at = 3 * OCTET_POINT_LENGTH; at < proof.length; at += OCTET_SCALAR_LENGTH) {
    const scalar = os2ip(proof.subarray(at, at + OCTET_SCALAR_LENGTH));
    if (scalar === 0n || scalar >= r) return false;
    scalars.push(scalar);
  }
  const [aBar, bBar, d] = points as [G1Point, G1Point, G1Point];
  const [eHat, r1Hat, r3Hat, ...rest] = scalars as [bigint, bigint, bigint, ...bigint[]];
  const c = rest.pop()!;
  const commitments = rest;
  const total = disclosed.length + u;
  if (disclosed.some(([index], k) => index >= total || (k > 0 && index <= disclosed[k - 1]![0]))) return false;
  const disclosedIndexes = new Set(disclosed.map(([index]) => index));
  const undisclosed = Array.from({ length: total }, (_, i) => i).filter((i) => !disclosedIndexes.has(i));
  const disclosedScalars = messagesToScalars(disclosed.map(([, message]) => message));
  const generators = createGenerators(total + 1);
  const [q1, ...h] = generators as [G1Point, ...G1Point[]];
  const domain = calculateDomain(pk, generators, header);
  const t1 = mulPublic(bBar, c).add(mulPublic(aBar, eHat)).add(mulPublic(d, r1Hat));
  const bv = commitment(
    domain,
    q1,
    disclosed.map(([index], k) => [h[index]!, disclosedScalars[k]!] as const),
  );
  let t2 = mulPublic(bv, c).add(mulPublic(d, r3Hat));
  undisclosed.forEach((j, k) => {
    t2 = t2.add(mulPublic(h[j]!, commitments[k]!));
  });
  const challenge = challengeOf(
    { aBar, bBar, d, t1, t2, domain },
    disclosed.map(([index], k) => [index, disclosedScalars[k]!] as const),
    ph,
  );
  if (challenge !== c) return false;
  return pairingProductIsOne([
    { g1: aBar, lines: w.lines },
    { g1: bBar, lines: PAIRING_LINES.NEG_BP2 },
  ]);
}
