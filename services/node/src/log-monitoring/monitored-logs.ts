import { randomUUID } from 'node:crypto';
import type { Store, StoreProvider } from '@anchor/common/storage';
import type { SignedTreeHead } from '@anchor/common/vct';

export const LOG_MONITOR_STORE = 'log-monitor';
export const LOG_EVIDENCE_STORE = 'log-monitor-evidence';

/** Why a log is monitored: the node's own `/log`, the log of a service it follows, or an operator's POST. */
export type LogSource = 'own' | 'followed' | 'operator';

/** What a log did that no honest log does. */
export type LogFailureKind = 'bad-signature' | 'fork' | 'inconsistent' | 'rolled-back' | 'root-mismatch';

export interface LogFailure {
  kind: LogFailureKind;
  message: string;
  detectedAt: number;
  /** The key of the evidence record (both tree heads, the proof). */
  evidence: string;
}

export interface MonitoredLog {
  logUrl: string;
  status: 'active' | 'inactive';
  source: LogSource;
  /** The newest tree head verified: signature, consistency with the one before, root rebuilt when small enough. */
  sth?: SignedTreeHead;
  /** base64 of the key the tree head verified with (the log's WebFinger key). */
  publicKey?: string;
  verifiedAt?: number;
  checkedAt?: number;
  /** Trouble of the last check that proves nothing against the log (unreachable, a stale view). */
  lastError?: string;
  /** Set once the log misbehaved; the record's tree head then stays the last good one. */
  failure?: LogFailure;
}

export interface LogEvidence {
  logUrl: string;
  kind: LogFailureKind;
  message: string;
  detectedAt: number;
  /** The last tree head this node had verified. */
  verifiedSth?: SignedTreeHead;
  /** What the log served that does not fit it. */
  offendingSth: unknown;
  /** base64 hashes of the consistency proof the log gave, when one was checked. */
  consistencyProof?: string[];
  /** The root rebuilt from the log's entries (base64), for a root mismatch. */
  rebuiltRoot?: string;
  publicKey?: string;
}

/**
 * The logs this node watches (orb.md §6 `log-monitor`: log URL → its state) and the evidence of every
 * misbehaviour found. Evidence records are only ever inserted under fresh keys, so nothing found is
 * overwritten; a failed log keeps its last verified tree head until an operator activates it again.
 */
export class MonitoredLogs {
  private constructor(
    private readonly logs: Store<MonitoredLog>,
    private readonly evidenceStore: Store<LogEvidence>,
  ) {}

  static async open(provider: StoreProvider): Promise<MonitoredLogs> {
    return new MonitoredLogs(
      await provider.open<MonitoredLog>(LOG_MONITOR_STORE, { indexes: ['status'] }),
      await provider.open<LogEvidence>(LOG_EVIDENCE_STORE),
    );
  }

  get(logUrl: string): Promise<MonitoredLog | undefined> {
    return this.logs.get(logUrl);
  }

  async withStatus(status: MonitoredLog['status']): Promise<MonitoredLog[]> {
    const found: MonitoredLog[] = [];
    let after: string | undefined;
    do {
      const page = await this.logs.query({ where: { status }, limit: 1000, ...(after ? { after } : {}) });
      found.push(...page.items.map((item) => item.value));
      after = page.next;
    } while (after !== undefined);
    return found;
  }

  async all(): Promise<MonitoredLog[]> {
    return [...(await this.withStatus('active')), ...(await this.withStatus('inactive'))];
  }

  /**
   * A log discovery wants monitored (the node's own, a followed service's): added, or activated again when
   * discovery had deactivated it; an operator's choice stands. Resolves whether anything changed.
   */
  async discovered(logUrl: string, source: Exclude<LogSource, 'operator'>): Promise<boolean> {
    const current = await this.logs.get(logUrl);
    if (current === undefined) return this.logs.insert(logUrl, { logUrl, status: 'active', source });
    if (current.status === 'active' || current.source === 'operator') return false;
    await this.logs.put(logUrl, { ...current, status: 'active', source });
    return true;
  }

  /**
   * An operator's activation. A failed log starts again from its current tree head, trusted on first use,
   * its failure cleared from the log's state (the evidence stays); any other log goes on from the tree
   * head last verified.
   */
  async activate(logUrl: string): Promise<void> {
    const current = await this.logs.get(logUrl);
    if (current !== undefined && current.failure === undefined) {
      await this.logs.put(logUrl, { ...current, status: 'active', source: 'operator' });
      return;
    }
    await this.logs.put(logUrl, { logUrl, status: 'active', source: 'operator' });
  }

  /** Stops monitoring; with `operator` the log is not activated again by discovery. */
  async deactivate(logUrl: string, by: LogSource): Promise<void> {
    const current = await this.logs.get(logUrl);
    if (current === undefined) {
      if (by === 'operator') await this.logs.put(logUrl, { logUrl, status: 'inactive', source: by });
      return;
    }
    await this.logs.put(logUrl, { ...current, status: 'inactive', ...(by === 'operator' ? { source: by } : {}) });
  }

  /**
   * Saves what a check found, unless the log changed meanwhile (deactivated, or activated again by an
   * operator): a check never undoes an operator's decision.
   */
  async saveCheck(checked: MonitoredLog, result: Partial<MonitoredLog>): Promise<void> {
    const current = await this.logs.get(checked.logUrl);
    if (current === undefined || current.status !== 'active' || current.failure !== undefined) return;
    if (JSON.stringify(current.sth) !== JSON.stringify(checked.sth)) return;
    const { lastError: _lastError, ...rest } = current;
    await this.logs.put(checked.logUrl, { ...rest, ...result });
  }

  /** Keeps the evidence under a key of its own and marks the log failed, its verified tree head untouched. */
  async recordFailure(record: MonitoredLog, evidence: LogEvidence): Promise<LogFailure> {
    const key = `${evidence.logUrl}|${evidence.detectedAt}|${randomUUID()}`;
    await this.evidenceStore.insert(key, evidence);
    const failure: LogFailure = {
      kind: evidence.kind,
      message: evidence.message,
      detectedAt: evidence.detectedAt,
      evidence: key,
    };
    await this.saveCheck(record, { failure, checkedAt: evidence.detectedAt });
    return failure;
  }

  evidence(key: string): Promise<LogEvidence | undefined> {
    return this.evidenceStore.get(key);
  }

  evidenceOf(logUrl: string): Promise<LogEvidence[]> {
    return this.evidenceStore
      .query({ keyPrefix: `${logUrl}|`, limit: 1000 })
      .then((page) => page.items.map((i) => i.value));
  }
}
