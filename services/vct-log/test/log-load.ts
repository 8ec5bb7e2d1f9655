import { verifyConsistency, verifyInclusion } from '@anchor/common/merkle';
import type { AddVcResponse, SignedTreeHead } from '@anchor/common/vct';
import { waitFor } from '@anchor/testing/process';
import { anchorCredential, call, leafHashFor } from '../src/testing/index.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Load for the fault tests: submitters adding distinct credentials to a log and a watcher keeping the heads
 * it sees, over restarts of the log (its url stays the same); then the check that every acknowledged entry
 * is in the log at its acknowledged timestamp and every head seen is consistent with the last one.
 */
export class LogLoad {
  readonly acknowledged = new Map<string, { credential: Record<string, unknown>; timestamp: number }>();
  readonly heads: SignedTreeHead[] = [];
  /** Distinct refusal messages (digits as N), for the printed figures. */
  readonly messages = new Set<string>();
  /** 503 answers without a Retry-After header. */
  unavailableWithoutRetryAfter = 0;
  private readonly statuses = new Map<number, number>();
  lastAckAt = 0;
  private next = 0;
  private running = true;
  private readonly load: Promise<unknown>;

  constructor(
    private readonly url: string,
    submitters = 8,
  ) {
    this.load = Promise.all([...Array.from({ length: submitters }, () => this.submit()), this.watch()]);
  }

  private async submit(): Promise<void> {
    while (this.running) {
      const id = `fault-${this.next++}`;
      const credential = anchorCredential(id);
      try {
        const reply = await call<AddVcResponse>(`${this.url}/main/v1/add-vc`, { json: credential });
        this.statuses.set(reply.status, this.count(reply.status) + 1);
        if (reply.status === 200) {
          this.acknowledged.set(id, { credential, timestamp: reply.body.timestamp });
          this.lastAckAt = Date.now();
        } else {
          const message = String((reply.body as { message?: unknown } | null)?.message ?? reply.text);
          this.messages.add(`${reply.status} ${message.replace(/\d+/g, 'N').slice(0, 160)}`);
          if (reply.status === 503 && reply.headers.get('retry-after') === null) this.unavailableWithoutRetryAfter++;
        }
      } catch {
        this.statuses.set(0, this.count(0) + 1);
      }
      await sleep(5);
    }
  }

  private async watch(): Promise<void> {
    while (this.running) {
      try {
        const reply = await call<SignedTreeHead>(`${this.url}/main/v1/get-sth`);
        if (reply.status === 200) this.heads.push(reply.body);
      } catch {
        // the log is restarting
      }
      await sleep(50);
    }
  }

  /** Answers with this status so far (0: no answer). */
  count(status: number): number {
    return this.statuses.get(status) ?? 0;
  }

  summary(): string {
    return [...this.statuses].map(([status, n]) => `${status || 'no answer'} ${n}`).join(', ');
  }

  async ackAfter(at: number, timeoutMs = 30_000): Promise<number> {
    await waitFor(async () => this.lastAckAt > at, {
      timeoutMs,
      intervalMs: 50,
      description: 'a submission acknowledged',
    });
    return this.lastAckAt - at;
  }

  async stop(): Promise<void> {
    this.running = false;
    await this.load;
  }

  /**
   * Waits for every acknowledged entry to be integrated; how many are missing and how many heads are
   * inconsistent. A submission answered 503 may still have been written (the answer failed, not the write)
   * and integrated, so a tree as large as the acknowledged count may still lack some of them: an entry is
   * lost when it is not in the tree by the deadline.
   */
  async verify(
    timeoutMs = 30_000,
  ): Promise<{ lost: number; inconsistent: number; treeSize: number; missing: string[] }> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const head = await waitFor(
        async () => {
          const reply = await call<SignedTreeHead>(`${this.url}/main/v1/get-sth`);
          return reply.status === 200 && reply.body.tree_size >= this.acknowledged.size ? reply.body : undefined;
        },
        { timeoutMs: Math.max(1_000, deadline - Date.now()), description: 'every acknowledged entry integrated' },
      );
      const missing = await this.missingFrom(head);
      if (missing.length === 0 || Date.now() >= deadline)
        return {
          lost: missing.length,
          inconsistent: await this.inconsistentWith(head),
          treeSize: head.tree_size,
          missing,
        };
      await sleep(500);
    }
  }

  /** The acknowledged entries (id and timestamp) not included, at their acknowledged timestamps, in the tree of `head`. */
  private async missingFrom(head: SignedTreeHead): Promise<string[]> {
    const root = Buffer.from(head.sha256_root_hash, 'base64');
    const missing: string[] = [];
    for (const [id, { credential, timestamp }] of this.acknowledged) {
      const hash = await leafHashFor(credential, timestamp);
      const reply = await call<{ leaf_index: number; audit_path: string[] | null }>(
        `${this.url}/main/v1/get-proof-by-hash?hash=${encodeURIComponent(hash.toString('base64'))}&tree_size=${head.tree_size}`,
      );
      const path = (reply.body.audit_path ?? []).map((node) => Buffer.from(node, 'base64'));
      if (reply.status !== 200 || !verifyInclusion(reply.body.leaf_index, head.tree_size, hash, path, root))
        missing.push(`${id}@${timestamp}`);
    }
    return missing;
  }

  /** How many of the heads seen (a sample of them) the tree of `head` is not consistent with. */
  private async inconsistentWith(head: SignedTreeHead): Promise<number> {
    const root = Buffer.from(head.sha256_root_hash, 'base64');
    let inconsistent = 0;
    const step = Math.max(1, Math.floor(this.heads.length / 20));
    for (const seen of this.heads.filter((_, i) => i % step === 0 || i === this.heads.length - 1)) {
      if (seen.tree_size === 0 || seen.tree_size === head.tree_size) continue;
      const reply = await call<{ consistency: string[] | null }>(
        `${this.url}/main/v1/get-sth-consistency?first=${seen.tree_size}&second=${head.tree_size}`,
      );
      const proof = (reply.body.consistency ?? []).map((node) => Buffer.from(node, 'base64'));
      if (!verifyConsistency(seen.tree_size, head.tree_size, Buffer.from(seen.sha256_root_hash, 'base64'), root, proof))
        inconsistent++;
    }
    return inconsistent;
  }
}
