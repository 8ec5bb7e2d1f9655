import { createHash } from 'node:crypto';
import { errorMessage, isRetryable } from '@anchor/common/errors';
import { peerStatusOf } from '@anchor/common/http-client';
import type { Logger } from '@anchor/common/log';
import type { AddVcResponse, SignedTreeHead } from '@anchor/common/vct';
import type { VctClient } from '../vct-client/vct-client.js';
import { PENDING_PROOF_STATUSES, type MonitoringMetrics } from './monitoring-metrics.js';
import type { WatchedCredential, WatchedCredentials } from './watched-credentials.js';

export interface ProofMonitorOptions {
  /** Between checks of one credential (`--vct-proof-monitoring-interval`). */
  intervalMs: number;
  /** Credentials checked per round at most (`--vct-proof-monitoring-max-records`). */
  maxRecords: number;
  /** A credential not proven included this long after it was logged is missing (`--vct-proof-monitoring-expiry-period`). */
  deadlineMs: number;
}

/**
 * Proof monitoring (orb.md §2.5, Orb's `vct/proofmonitoring`): every anchor credential this node
 * logs is watched until the log proves it included — get-proof-by-hash of its leaf against a tree head
 * signed after the entry's timestamp, so after the log's merge delay, the audit path checked against the
 * signed root. One that is still not included at the deadline is reported (metric, error line, status
 * `missing` in the `proof-monitor` store) and logged again, then watched again under its new entry.
 * The promise the log broke is kept, as evidence.
 */
export class ProofMonitor {
  constructor(
    private readonly watched: WatchedCredentials,
    private readonly client: VctClient,
    private readonly metrics: MonitoringMetrics,
    private readonly log: Logger,
    private readonly options: ProofMonitorOptions,
  ) {}

  /** Registers a credential the node has just logged (the VctClient's listener). */
  async watch(logUrl: string, credential: Record<string, unknown>, promise: AddVcResponse): Promise<void> {
    const { proof: _proof, ...unsigned } = credential;
    const credentialId =
      typeof unsigned.id === 'string'
        ? unsigned.id
        : `sha256:${createHash('sha256').update(JSON.stringify(unsigned)).digest('hex')}`;
    const existing = await this.watched.get(logUrl, credentialId);
    // The same entry again (a pipeline step re-run after a crash: the log answers with the first timestamp).
    if (existing !== undefined && existing.timestamp === promise.timestamp) return;
    const now = Date.now();
    const wasMissing = existing?.status === 'missing' || existing?.status === 'resubmitted';
    await this.watched.put({
      logUrl,
      credentialId,
      credential: unsigned,
      timestamp: promise.timestamp,
      status: wasMissing ? 'resubmitted' : 'unconfirmed',
      loggedAt: now,
      nextCheckAt: now + this.options.intervalMs,
      resubmissions: existing?.resubmissions ?? 0,
      ...(existing?.missingSince !== undefined ? { missingSince: existing.missingSince } : {}),
    });
  }

  /** One round: the records due, one tree head per log. */
  async checkDue(): Promise<void> {
    const now = Date.now();
    const heads = new Map<string, Promise<SignedTreeHead>>();
    for (const record of await this.watched.due(now, this.options.maxRecords)) {
      let head = heads.get(record.logUrl);
      if (head === undefined) {
        head = this.client.signedTreeHead(record.logUrl);
        head.catch(() => undefined);
        heads.set(record.logUrl, head);
      }
      try {
        await this.check(record, head, now);
      } catch (error) {
        this.log.warn('proof monitoring: a check failed; retried next round', {
          credential: record.credentialId,
          log: record.logUrl,
          err: errorMessage(error),
        });
      }
    }
    for (const status of PENDING_PROOF_STATUSES)
      this.metrics.proofsPending.labels({ status }).set(await this.watched.count(status));
  }

  private async check(record: WatchedCredential, head: Promise<SignedTreeHead>, now: number): Promise<void> {
    const credential = record.credential;
    // Only a confirmed record lacks it, and a confirmed record has no check due.
    if (credential === undefined) return;
    let sth: SignedTreeHead;
    try {
      sth = await head;
    } catch (error) {
      return this.later(record, now, `the log's tree head cannot be read: ${errorMessage(error)}`);
    }
    const leafHash = record.leafHash ?? (await this.client.leafHashOf(credential, record.timestamp)).toString('base64');
    let problem: string;
    // Only a tree head signed after the entry can be expected to hold it.
    if (sth.tree_size === 0 || sth.timestamp < record.timestamp) {
      problem = `the log's newest tree head (size ${sth.tree_size}, ${sth.timestamp}) is older than the entry (${record.timestamp})`;
    } else {
      try {
        const inclusion = await this.client.verifyInclusion(record.logUrl, Buffer.from(leafHash, 'base64'), sth);
        return this.confirmed(record, leafHash, inclusion.leafIndex, sth.tree_size, now);
      } catch (error) {
        problem = errorMessage(error);
        // Unreachable or 5xx proves nothing; a 404 or a proof that does not lead to the root counts as absent.
        if (isRetryable(error) && peerStatusOf(error) !== 404) return this.later({ ...record, leafHash }, now, problem);
      }
    }
    if (now < record.loggedAt + this.options.deadlineMs) return this.later({ ...record, leafHash }, now, problem);
    await this.missing({ ...record, leafHash }, credential, now, problem);
  }

  private async confirmed(
    record: WatchedCredential,
    leafHash: string,
    leafIndex: number,
    treeSize: number,
    now: number,
  ): Promise<void> {
    // Once proven, the credential itself is not needed again (it is in the log and at /vc).
    const { nextCheckAt: _next, lastError: _error, credential: _credential, ...rest } = record;
    await this.watched.put({
      ...rest,
      leafHash,
      status: 'confirmed',
      confirmedAt: now,
      leafIndex,
      treeSize,
      expiresAt: now + this.options.deadlineMs,
    });
    this.metrics.proofsConfirmed.inc();
    if (record.resubmissions > 0)
      this.log.info('a credential logged again is now included in its log', {
        credential: record.credentialId,
        log: record.logUrl,
        leafIndex,
        resubmissions: record.resubmissions,
      });
  }

  private async later(record: WatchedCredential, now: number, problem: string | undefined): Promise<void> {
    const { lastError: _error, ...rest } = record;
    await this.watched.put({
      ...rest,
      nextCheckAt: now + this.options.intervalMs,
      ...(problem !== undefined ? { lastError: problem } : {}),
    });
  }

  /** Reports the broken promise (once per entry), keeps it, and logs the credential again. */
  private async missing(
    record: WatchedCredential,
    credential: Record<string, unknown>,
    now: number,
    problem: string,
  ): Promise<void> {
    const newlyMissing = record.status !== 'missing';
    const reported: WatchedCredential = {
      ...record,
      status: 'missing',
      missingSince: record.missingSince ?? now,
      resubmissions: record.resubmissions + 1,
      nextCheckAt: now + this.options.intervalMs,
      lastError: problem,
    };
    await this.watched.put(reported);
    if (newlyMissing) {
      this.metrics.proofsMissing.inc();
      this.log.error('a logged anchor credential is missing from its log past the deadline: logging it again', {
        credential: record.credentialId,
        log: record.logUrl,
        timestamp: record.timestamp,
        loggedAt: new Date(record.loggedAt).toISOString(),
        err: problem,
      });
    }
    try {
      // The listener (watch) records the new entry as `resubmitted`.
      await this.client.addCredential(record.logUrl, credential);
      this.metrics.proofsResubmitted.inc();
    } catch (error) {
      await this.watched.put({
        ...reported,
        resubmissions: record.resubmissions,
        lastError: `logging again failed: ${errorMessage(error)}`,
      });
    }
  }
}
