import { verifyConsistency } from '@anchor/common/merkle';
import type { SignedTreeHead } from '@anchor/common/vct';
import { waitFor } from '@anchor/testing/process';
import { haproxyBinary, startVctLogReplicas, type Replica, type ReplicaSet } from '@anchor/testing/replicas';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call } from '../src/testing/index.js';
import { LogLoad } from './log-load.js';

/**
 * One log as three processes on one FerretDB behind haproxy: add-vc spread over all three while the replica
 * holding the sequencer lease is killed (SIGKILL) mid-load. No acknowledged entry is lost, and every tree
 * head any replica served (each asked directly) is consistent with every other: equal sizes have equal
 * roots, and each is a prefix of the last.
 */
const { reason } = await haproxyBinary();
if (reason) console.warn(`vct-log replicas test skipped: ${reason}`);

const LEASE_MS = 3_000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.skipIf(reason !== undefined)('three replicas of one vct-log behind haproxy', () => {
  let set: ReplicaSet;

  beforeAll(async () => {
    set = await startVctLogReplicas({
      extraArgs: [
        '--sequencer-lease',
        `${LEASE_MS}ms`,
        '--integration-interval',
        '100ms',
        '--canonicalize-workers',
        '0',
        '--log-level',
        'vct-sequencer=info:warning',
      ],
    });
  }, 180_000);
  afterAll(async () => {
    await set?.stop();
  });

  it('loses no acknowledged entry and serves consistent heads when the sequencer is killed', async () => {
    const heads: SignedTreeHead[] = [];
    let watching = true;
    const watchers = set.replicas.map(async (replica) => {
      while (watching) {
        const reply = await call<SignedTreeHead>(`${replica.url}/main/v1/get-sth`).catch(() => undefined);
        if (reply?.status === 200) heads.push(reply.body);
        await sleep(100);
      }
    });
    const load = new LogLoad(set.url, 6);
    await load.ackAfter(Date.now());
    await waitFor(async () => load.acknowledged.size >= 100, { timeoutMs: 60_000, description: '100 entries' });
    const sequencer = integrating(set);
    const killedAt = Date.now();
    await sequencer.kill();
    // The survivors go on accepting; one of them takes the lease within its TTL and integrates.
    const acked = load.acknowledged.size;
    await waitFor(async () => load.acknowledged.size >= acked + 100, {
      timeoutMs: 60_000,
      description: '100 entries acknowledged after the kill',
    });
    await waitFor(() => set.running.find((replica) => replica !== sequencer && integrating(set) === replica), {
      timeoutMs: LEASE_MS * 4,
      description: 'a surviving replica integrating',
    });
    const takeoverMs = Date.now() - killedAt;
    await load.stop();
    const { lost, inconsistent, treeSize, missing } = await load.verify(30_000);
    watching = false;
    await Promise.all(watchers);
    console.info(
      `[vct-log replicas] ${load.acknowledged.size} acknowledged (${load.summary()}), tree ${treeSize}, ` +
        `takeover ${takeoverMs} ms, ${heads.length} heads watched on the replicas`,
    );
    expect(missing).toEqual([]);
    expect(lost).toBe(0);
    expect(inconsistent).toBe(0);
    expect(takeoverMs).toBeLessThan(LEASE_MS * 4);
    await expectConsistent(set.url, heads, treeSize);
  }, 150_000);
});

/** The replica that last said it integrates (the log line the sequencer writes when the lease changes hands). */
function integrating(set: ReplicaSet): Replica {
  const states = set.running.map((replica) => {
    const output = replica.process.output();
    return {
      replica,
      leading: output.lastIndexOf('this replica now integrates') > output.lastIndexOf('another replica integrates'),
    };
  });
  const leaders = states.filter((state) => state.leading);
  if (leaders.length !== 1) throw new Error(`${leaders.length} replicas say they integrate`);
  return leaders[0]!.replica;
}

/** Same size, same root; and every head a prefix of the final tree (a consistency proof from the log). */
async function expectConsistent(url: string, heads: readonly SignedTreeHead[], finalSize: number): Promise<void> {
  const final = (await call<SignedTreeHead>(`${url}/main/v1/get-sth`)).body;
  expect(final.tree_size).toBeGreaterThanOrEqual(finalSize);
  const rootOf = new Map<number, string>();
  for (const head of heads) {
    const root = rootOf.get(head.tree_size);
    if (root !== undefined) expect(head.sha256_root_hash).toBe(root);
    else rootOf.set(head.tree_size, head.sha256_root_hash);
  }
  for (const [size, root] of rootOf) {
    if (size === 0 || size === final.tree_size) continue;
    const reply = await call<{ consistency: string[] | null }>(
      `${url}/main/v1/get-sth-consistency?first=${size}&second=${final.tree_size}`,
    );
    const proof = (reply.body.consistency ?? []).map((node) => Buffer.from(node, 'base64'));
    const ok = verifyConsistency(
      size,
      final.tree_size,
      Buffer.from(root, 'base64'),
      Buffer.from(final.sha256_root_hash, 'base64'),
      proof,
    );
    expect(ok, `head of size ${size} consistent with ${final.tree_size}`).toBe(true);
  }
}
