import { leafHash, verifyConsistency, verifyInclusion } from '@anchor/common/merkle';
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
 * roots, and each is a prefix of the last. A monitor reading get-sth from the replicas in turn (what a client
 * behind a round-robin balancer sees) never gets a smaller tree than before, and has each new head proved
 * consistent with the one before it, its last entry served and its inclusion proved, each by the next
 * replica in turn.
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
        // Long enough that a replica's own round leaves it behind the integrating one for a while.
        '--integration-interval',
        '500ms',
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
    const monitor = new RoundRobinMonitor(set.replicas);
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
    await monitor.stop();
    console.info(
      `[vct-log replicas] ${load.acknowledged.size} acknowledged (${load.summary()}), tree ${treeSize}, ` +
        `takeover ${takeoverMs} ms, ${heads.length} heads watched on the replicas; round-robin monitor: ` +
        `${monitor.seen} heads, ${monitor.grew} new, ${monitor.backwards.length} smaller than an earlier one` +
        `${monitor.backwards.length > 0 ? ` (worst by ${Math.max(...monitor.backwards.map((b) => b.by))})` : ''}, ` +
        `${monitor.unproven.length} not proved by the next replica`,
    );
    expect(monitor.backwards).toEqual([]);
    expect(monitor.unproven).toEqual([]);
    expect(monitor.grew).toBeGreaterThan(2);
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

/**
 * A log monitor behind a round-robin balancer: get-sth from each running replica in turn. A head smaller
 * than the largest seen is a step back; a head of a size seen before must have its root; a larger one must
 * be proved by the next replicas in turn (get-sth-consistency from the previous head, get-entries of its
 * last leaf and get-proof-by-hash of that leaf), as a monitor would ask whichever replica the balancer picks.
 */
class RoundRobinMonitor {
  seen = 0;
  grew = 0;
  readonly backwards: { replica: number; size: number; by: number }[] = [];
  readonly unproven: string[] = [];
  private running = true;
  private turn = 0;
  private readonly done: Promise<void>;

  constructor(private readonly replicas: readonly Replica[]) {
    this.done = this.loop();
  }

  async stop(): Promise<void> {
    this.running = false;
    await this.done;
  }

  /** The next running replica in turn. */
  private next(): Replica {
    for (;;) {
      const replica = this.replicas[this.turn++ % this.replicas.length]!;
      if (replica.running) return replica;
    }
  }

  private async loop(): Promise<void> {
    let last: SignedTreeHead | undefined;
    while (this.running) {
      const replica = this.next();
      const reply = await call<SignedTreeHead>(`${replica.url}/main/v1/get-sth`).catch(() => undefined);
      if (reply?.status === 200) {
        const head = reply.body;
        this.seen++;
        if (last && head.tree_size < last.tree_size) {
          this.backwards.push({ replica: replica.index, size: head.tree_size, by: last.tree_size - head.tree_size });
        } else if (last && head.tree_size === last.tree_size) {
          if (head.sha256_root_hash !== last.sha256_root_hash) this.unproven.push(`size ${head.tree_size}: two roots`);
        } else {
          if (last) await this.prove(last, head);
          last = head;
        }
      }
      await sleep(20);
    }
  }

  private async prove(before: SignedTreeHead, head: SignedTreeHead): Promise<void> {
    this.grew++;
    const root = Buffer.from(head.sha256_root_hash, 'base64');
    const what = `${before.tree_size} -> ${head.tree_size}`;
    const ask = async <T>(path: string): Promise<{ replica: Replica; status: number; body: T } | undefined> => {
      for (;;) {
        const replica = this.next();
        const reply = await call<T>(`${replica.url}/main/v1/${path}`).catch(() => undefined);
        // A request the killed replica had in hand gets no answer, as the get-sth loop above allows: the next
        // running replica is asked. Its exit can be seen only after the failed request, so it counts as running
        // only if it still is a moment later; a running replica that does not answer is still unproven.
        if (!reply) {
          for (let waited = 0; waited < 2_000 && replica.running; waited += 50) await sleep(50);
          if (!replica.running) continue;
        }
        return reply && { replica, status: reply.status, body: reply.body };
      }
    };
    if (before.tree_size > 0) {
      const consistency = await ask<{ consistency: string[] | null }>(
        `get-sth-consistency?first=${before.tree_size}&second=${head.tree_size}`,
      );
      if (consistency?.status !== 200) {
        this.unproven.push(
          `${what}: get-sth-consistency answered ${consistency?.status ?? 'nothing'} (r${consistency?.replica.index})`,
        );
      } else {
        const proof = (consistency.body.consistency ?? []).map((node) => Buffer.from(node, 'base64'));
        const ok = verifyConsistency(
          before.tree_size,
          head.tree_size,
          Buffer.from(before.sha256_root_hash, 'base64'),
          root,
          proof,
        );
        if (!ok) this.unproven.push(`${what}: the consistency proof does not verify`);
      }
    }
    const last = head.tree_size - 1;
    const entries = await ask<{ entries: { leaf_input: string }[] }>(`get-entries?start=${last}&end=${last}`);
    const leafInput = entries?.status === 200 ? entries.body.entries[0]?.leaf_input : undefined;
    if (leafInput === undefined) {
      this.unproven.push(
        `${what}: get-entries of leaf ${last} answered ${entries?.status ?? 'nothing'} (r${entries?.replica.index})`,
      );
      return;
    }
    const hash = leafHash(Buffer.from(leafInput, 'base64'));
    const inclusion = await ask<{ leaf_index: number; audit_path: string[] | null }>(
      `get-proof-by-hash?hash=${encodeURIComponent(hash.toString('base64'))}&tree_size=${head.tree_size}`,
    );
    if (inclusion?.status !== 200) {
      this.unproven.push(
        `${what}: get-proof-by-hash answered ${inclusion?.status ?? 'nothing'} (r${inclusion?.replica.index})`,
      );
      return;
    }
    const path = (inclusion.body.audit_path ?? []).map((node) => Buffer.from(node, 'base64'));
    if (!verifyInclusion(inclusion.body.leaf_index, head.tree_size, hash, path, root))
      this.unproven.push(`${what}: the inclusion proof of leaf ${last} does not verify`);
  }
}
