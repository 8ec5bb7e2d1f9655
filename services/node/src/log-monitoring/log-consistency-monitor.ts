import { AppError, errorMessage } from '@anchor/common/errors';
import type { Logger } from '@anchor/common/log';
import { MerkleTree } from '@anchor/common/merkle';
import type { VctClient } from '../vct-client/vct-client.js';
import type { MonitoringMetrics } from './monitoring-metrics.js';
import type { LogEvidence, LogFailureKind, MonitoredLog, MonitoredLogs } from './monitored-logs.js';
import { witnessedHeadProblem, type WitnessPolicy } from './witnessed-head.js';

export interface LogConsistencyOptions {
  /** Up to this tree size the root is also rebuilt from the log's entries (`--vct-log-monitoring-max-tree-size`). */
  maxTreeSize: number;
  /** Entries asked for in one get-entries (`--vct-log-monitoring-get-entries-range`). */
  getEntriesRange: number;
  /**
   * A head is trusted only with cosignatures of `quorum` of these witnesses on the log's C2SP checkpoint
   * (`--vct-log-monitoring-witnesses`, `--vct-log-monitoring-witness-quorum`); quorum 0 asks for none.
   */
  witnesses?: WitnessPolicy;
}

export type LogCheckOutcome = 'verified' | 'unchanged' | 'stale' | 'error' | 'failed' | 'skipped' | 'unwitnessed';

/**
 * Watches transparency logs as RFC 6962 §5.3 monitors do (orb.md §2.5, Orb's
 * `vct-log-consistency-monitor`): each round, per active log, the current signed tree head is checked
 * against the log's WebFinger key, then against the last one verified — the same size must have the same
 * root, a larger tree must come with a valid consistency proof, a smaller tree signed later is a rollback —
 * and, while the tree is at most `maxTreeSize`, its root is rebuilt from get-entries (kept in memory per
 * log and extended with the new entries only). A log that fails any of these is marked failed with the
 * evidence kept, and is not checked again until an operator activates it; trouble that proves nothing (the
 * log unreachable, a replica serving an older head, a head fewer than k of the n known witnesses cosigned
 * when a witness policy is set) is only noted as the record's `lastError`, the head not trusted.
 */
export class LogConsistencyMonitor {
  /** Leaves rebuilt from get-entries, per log, matching that log's verified tree head. */
  private readonly trees = new Map<string, MerkleTree>();

  constructor(
    private readonly logs: MonitoredLogs,
    private readonly client: VctClient,
    private readonly metrics: MonitoringMetrics,
    private readonly log: Logger,
    private readonly options: LogConsistencyOptions,
  ) {}

  /** One round over every active log; resolves when all were checked. */
  async checkAll(): Promise<void> {
    const active = await this.logs.withStatus('active');
    for (const record of active) {
      const outcome = await this.check(record);
      this.metrics.logChecks.labels({ outcome }).inc();
    }
    for (const record of await this.logs.all())
      this.metrics.logFailed.labels({ log: record.logUrl }).set(record.failure && record.status === 'active' ? 1 : 0);
  }

  async check(record: MonitoredLog): Promise<LogCheckOutcome> {
    if (record.failure !== undefined) return 'skipped';
    const now = Date.now();
    let fetched: Awaited<ReturnType<VctClient['checkedTreeHead']>>;
    try {
      fetched = await this.client.checkedTreeHead(record.logUrl);
    } catch (error) {
      return this.noteError(record, now, `the tree head cannot be read: ${errorMessage(error)}`);
    }
    const publicKey = fetched.publicKey.toString('base64');
    if (fetched.problem !== undefined)
      return this.fail(record, 'bad-signature', fetched.problem, { offendingSth: fetched.sth, publicKey });
    const sth = fetched.sth;
    const verified = record.sth;

    if (verified !== undefined) {
      if (sth.tree_size === verified.tree_size) {
        if (sth.sha256_root_hash !== verified.sha256_root_hash)
          return this.fail(record, 'fork', `two signed tree heads of size ${sth.tree_size} with different roots`, {
            offendingSth: sth,
            verifiedSth: verified,
            publicKey,
          });
        await this.logs.saveCheck(record, { checkedAt: now });
        return 'unchanged';
      }
      if (sth.tree_size < verified.tree_size) {
        if (sth.timestamp > verified.timestamp)
          return this.fail(
            record,
            'rolled-back',
            `a tree head of size ${sth.tree_size} signed after the verified one of size ${verified.tree_size}`,
            { offendingSth: sth, verifiedSth: verified, publicKey },
          );
        return this.noteError(
          record,
          now,
          `served an older tree head (size ${sth.tree_size}) than the one verified (size ${verified.tree_size})`,
          'stale',
        );
      }
      let proof: Buffer[];
      try {
        proof = await this.client.verifyConsistency(record.logUrl, verified, sth);
      } catch (error) {
        const consistency = error instanceof AppError ? error.details?.consistency : undefined;
        if (Array.isArray(consistency))
          return this.fail(record, 'inconsistent', errorMessage(error), {
            offendingSth: sth,
            verifiedSth: verified,
            consistencyProof: consistency as string[],
            publicKey,
          });
        return this.noteError(record, now, `the consistency proof cannot be read: ${errorMessage(error)}`);
      }
      this.log.debug('tree head consistent with the last verified', {
        log: record.logUrl,
        from: verified.tree_size,
        to: sth.tree_size,
        proofHashes: proof.length,
      });
    }

    // A head too few known witnesses cosigned is not trusted (not saved), whatever else holds: proof of
    // nothing wrong, only of too few eyes, so it is noted and checked again next round.
    const policy = this.options.witnesses;
    if (policy !== undefined && policy.quorum > 0) {
      let problem: string | undefined;
      try {
        problem = witnessedHeadProblem(await this.client.checkpoint(record.logUrl), fetched.publicKey, sth, policy);
      } catch (error) {
        problem = `its checkpoint cannot be read: ${errorMessage(error)}`;
      }
      if (problem !== undefined)
        return this.noteError(record, now, `tree head of size ${sth.tree_size} not trusted: ${problem}`, 'unwitnessed');
    }

    if (sth.tree_size <= this.options.maxTreeSize) {
      let rebuilt: Buffer;
      try {
        rebuilt = await this.rebuiltRoot(record, sth.tree_size);
      } catch (error) {
        this.trees.delete(record.logUrl);
        return this.noteError(record, now, `the entries cannot be read: ${errorMessage(error)}`);
      }
      if (rebuilt.toString('base64') !== sth.sha256_root_hash) {
        this.trees.delete(record.logUrl);
        return this.fail(
          record,
          'root-mismatch',
          `the root rebuilt from the log's ${sth.tree_size} entries is not the signed root`,
          {
            offendingSth: sth,
            ...(verified ? { verifiedSth: verified } : {}),
            rebuiltRoot: rebuilt.toString('base64'),
            publicKey,
          },
        );
      }
    } else {
      this.trees.delete(record.logUrl);
    }

    await this.logs.saveCheck(record, { sth, publicKey, verifiedAt: now, checkedAt: now });
    return 'verified';
  }

  private async rebuiltRoot(record: MonitoredLog, treeSize: number): Promise<Buffer> {
    let tree = this.trees.get(record.logUrl);
    // The kept leaves match the verified head only; anything else starts again from the first entry.
    if (tree === undefined || tree.size !== (record.sth?.tree_size ?? -1) || tree.size > treeSize) {
      tree = MerkleTree.empty();
      this.trees.set(record.logUrl, tree);
    }
    await this.client.appendEntries(record.logUrl, tree, treeSize, this.options.getEntriesRange);
    return tree.root(treeSize);
  }

  private async noteError(
    record: MonitoredLog,
    now: number,
    message: string,
    outcome: LogCheckOutcome = 'error',
  ): Promise<LogCheckOutcome> {
    // Said once per new trouble, not every round while it lasts.
    if (record.lastError !== message)
      this.log.warn('log monitoring: check inconclusive', { log: record.logUrl, err: message });
    await this.logs.saveCheck(record, { lastError: message, checkedAt: now });
    return outcome;
  }

  private async fail(
    record: MonitoredLog,
    kind: LogFailureKind,
    message: string,
    evidence: Omit<LogEvidence, 'logUrl' | 'kind' | 'message' | 'detectedAt'>,
  ): Promise<LogCheckOutcome> {
    this.trees.delete(record.logUrl);
    const failure = await this.logs.recordFailure(record, {
      logUrl: record.logUrl,
      kind,
      message,
      detectedAt: Date.now(),
      ...evidence,
    });
    this.metrics.logFailures.labels({ kind }).inc();
    this.log.error('transparency log misbehaved: monitoring stopped, evidence kept', {
      log: record.logUrl,
      kind,
      err: message,
      evidence: failure.evidence,
    });
    return 'failed';
  }
}
