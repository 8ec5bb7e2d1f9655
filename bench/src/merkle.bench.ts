/**
 * The transparency log's Merkle tree at a million leaves: the bulk rebuild a log does at start-up, then
 * inclusion and consistency proofs for random (index, size) and (first, second) pairs across all past sizes,
 * held against the ≤ 1 ms per proof target (p99), and their verification.
 */
import { MerkleTree, leafHash, verifyConsistency, verifyInclusion } from '@anchor/common/merkle';
import { atMost, percentile, rate, report, summary } from './lib/report.js';

const SECTION = 'merkle';
const LEAVES = 1_000_000;
const PROOFS = 20_000;

/** Deterministic pseudo-random integers in [0, bound), so runs are comparable. */
function randomInts(seed: number): (bound: number) => number {
  let state = seed >>> 0;
  return (bound) => {
    state = (Math.imul(state, 1_664_525) + 1_013_904_223) >>> 0;
    return Math.floor((state / 2 ** 32) * bound);
  };
}

function timed<T>(samples: number[], work: () => T): T {
  const start = performance.now();
  const result = work();
  samples.push(performance.now() - start);
  return result;
}

async function main(): Promise<void> {
  const leafHashes = Array.from({ length: LEAVES }, (_, i) => leafHash(Buffer.from(`{"leaf":${i}}`)));

  let start = performance.now();
  const tree = MerkleTree.fromLeafHashes(leafHashes);
  report(SECTION, 'build 1,000,000 leaves (bulk, from leaf hashes)', performance.now() - start, 'ms', atMost(2_000));

  start = performance.now();
  const appended = MerkleTree.empty();
  for (const hash of leafHashes) appended.append(hash);
  report(SECTION, 'build 1,000,000 leaves (one append at a time)', performance.now() - start, 'ms', atMost(3_000));
  if (!appended.root().equals(tree.root())) throw new Error('incremental and bulk roots differ');

  report(
    SECTION,
    'append one leaf to a 1,000,000-leaf tree',
    await rate(() => appended.append(leafHashes[7]!)),
    'ops/s',
  );

  const next = randomInts(42);
  const inclusionTimes: number[] = [];
  const inclusionVerifyTimes: number[] = [];
  const consistencyTimes: number[] = [];
  const consistencyVerifyTimes: number[] = [];
  const roots = new Map<number, Buffer>();
  const rootOf = (size: number): Buffer => roots.get(size) ?? roots.set(size, tree.root(size)).get(size)!;
  for (let i = 0; i < PROOFS; i++) {
    const size = 1 + next(LEAVES);
    const index = next(size);
    const proof = timed(inclusionTimes, () => tree.inclusionProof(index, size));
    const root = rootOf(size);
    if (!timed(inclusionVerifyTimes, () => verifyInclusion(index, size, leafHashes[index]!, proof, root)))
      throw new Error(`PATH(${index}, ${size}) failed`);

    const second = 2 + next(LEAVES - 1);
    const first = 1 + next(second - 1);
    const consistency = timed(consistencyTimes, () => tree.consistencyProof(first, second));
    const [firstRoot, secondRoot] = [rootOf(first), rootOf(second)];
    if (!timed(consistencyVerifyTimes, () => verifyConsistency(first, second, firstRoot, secondRoot, consistency))) {
      throw new Error(`PROOF(${first}, ${second}) failed`);
    }
  }
  const micros = (ms: number): number => ms * 1000;
  report(
    SECTION,
    'inclusion proof at 1M leaves, any past size, p50',
    micros(percentile(inclusionTimes, 50)),
    'µs',
    atMost(1000),
  );
  report(
    SECTION,
    'inclusion proof at 1M leaves, any past size, p99',
    micros(percentile(inclusionTimes, 99)),
    'µs',
    atMost(1000),
  );
  report(
    SECTION,
    'consistency proof at 1M leaves, any sizes, p50',
    micros(percentile(consistencyTimes, 50)),
    'µs',
    atMost(1000),
  );
  report(
    SECTION,
    'consistency proof at 1M leaves, any sizes, p99',
    micros(percentile(consistencyTimes, 99)),
    'µs',
    atMost(1000),
  );
  report(
    SECTION,
    'inclusion proof verification, p99',
    micros(percentile(inclusionVerifyTimes, 99)),
    'µs',
    atMost(1000),
  );
  report(
    SECTION,
    'consistency proof verification, p99',
    micros(percentile(consistencyVerifyTimes, 99)),
    'µs',
    atMost(1000),
  );
  report(SECTION, 'root of any past size', await rate(() => tree.root(1 + next(LEAVES))), 'ops/s');

  summary();
}

await main();
