import { join } from 'node:path';
import type { SignedTreeHead } from '@anchor/common/vct';
import { makeTempDir, waitFor, type ServiceProcess, type TempDir } from '@anchor/testing/process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestNode, type TestNode } from '../testing/test-node.js';
import type { LogFailureKind, MonitoredLog } from './monitored-logs.js';
import { anchorCredential, startLog, startSplitViewLog, type SplitViewLog } from './monitoring.test-helpers.js';

/**
 * Log monitoring against real vct-log processes. Four logs share one signing key and stand behind one
 * URL (a split view): A is the honest history; B has as many entries as A but others (a fork); C has more
 * entries that do not extend A (no consistency proof can hold); D has fewer, the last signed after A's
 * (a rollback). The node is told the URL as its own log and must notice each switch, keep the evidence,
 * and keep its last verified tree head until the operator activates the log again.
 */
describe('log monitoring: a log that forks, rewrites or rolls back its history is caught', () => {
  let dir: TempDir;
  let view: SplitViewLog;
  const logs: Record<'a' | 'b' | 'c' | 'd', { process: ServiceProcess; url: string }> = {} as never;
  let node: TestNode;
  let logUrl: string;

  const state = async (): Promise<MonitoredLog | undefined> => node.server.services.logMonitoring.logs.get(logUrl);
  const treeSize = async (): Promise<number> =>
    ((await (await fetch(`${logUrl}/v1/get-sth`)).json()) as SignedTreeHead).tree_size;
  /** Logs credentials through the view's current target and waits for them to be integrated. */
  const addEntries = async (prefix: string, count: number): Promise<void> => {
    const before = await treeSize();
    for (let i = 0; i < count; i++)
      await node.server.services.vct.client.addCredential(logUrl, anchorCredential(`${prefix}${i}`));
    await waitFor(async () => (await treeSize()) === before + count, { description: `${prefix} integrated` });
  };
  const verifiedSize = (size: number) =>
    waitFor(
      async () => {
        const record = await state();
        return record?.sth?.tree_size === size && record.failure === undefined ? record : undefined;
      },
      { timeoutMs: 15_000, description: `tree head of size ${size} verified` },
    );
  const failed = (kind: LogFailureKind) =>
    waitFor(
      async () => {
        const record = await state();
        return record?.failure?.kind === kind ? record : undefined;
      },
      { timeoutMs: 15_000, description: `log marked failed (${kind})` },
    );
  const health = async () => {
    const response = await fetch(`${node.url}/healthcheck`);
    return { status: response.status, body: (await response.json()) as { logMonitorStatus: string } };
  };
  const reactivate = async () => {
    const response = await fetch(`${node.url}/log-monitor`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ activate: [logUrl] }),
    });
    expect(response.status).toBe(200);
  };

  beforeAll(async () => {
    dir = await makeTempDir('log-monitoring-');
    view = await startSplitViewLog();
    logUrl = `${view.url}/main`;
    const keyFile = join(dir.path, 'shared-log-key.pem');
    for (const name of ['a', 'b', 'c', 'd'] as const)
      logs[name] = await startLog(dir, name, { keyFile, baseUrl: view.url });
    node = await startTestNode({
      args: [
        '--vct-log-monitoring-interval',
        '100ms',
        '--vct-log-monitoring-max-tree-size',
        '10',
        '--vct-log-monitoring-get-entries-range',
        '2',
        '--vct-proof-monitoring-interval',
        '1h',
      ],
    });
    // The other histories are written before the node monitors the URL.
    view.target = logs.b.url;
    await addEntries('b', 5);
    view.target = logs.c.url;
    await addEntries('c', 7);
    view.target = logs.d.url;
    await addEntries('d', 2);
    view.target = logs.a.url;
    await addEntries('a', 2);
  }, 120_000);

  afterAll(async () => {
    await node?.stop();
    await view?.close();
    for (const log of Object.values(logs)) await log.process.stop();
    await dir?.remove();
  });

  it("monitors the node's own log: tree heads verified as it grows, its root rebuilt from its entries", async () => {
    const set = await fetch(`${node.url}/log`, {
      method: 'POST',
      body: logUrl,
      headers: { 'content-type': 'text/plain' },
    });
    expect(set.status).toBe(200);
    const first = await verifiedSize(2);
    expect(first.source).toBe('own');
    await addEntries('a-later-', 3);
    const grown = await verifiedSize(5);
    expect(grown.verifiedAt).toBeGreaterThan(first.verifiedAt!);
    const listed = (await (await fetch(`${node.url}/log-monitor?status=active`)).json()) as {
      active: Array<Record<string, unknown>>;
    };
    expect(listed.active).toEqual([
      expect.objectContaining({ Log: logUrl, Active: true, Source: 'own', STH: grown.sth, PubKey: grown.publicKey }),
    ]);
    expect((await health()).body.logMonitorStatus).toBe('success');
    const metrics = await (await fetch(`${node.url}/metrics`)).text();
    expect(metrics).toMatch(/node_vct_log_monitor_checks_total\{outcome="verified"\} [1-9]/);
  });

  it('a fork (another root for the same tree size) is reported, with both heads kept as evidence', async () => {
    const verified = (await state())!.sth!;
    view.target = logs.b.url;
    const record = await failed('fork');
    view.target = logs.a.url;
    // The last verified head stays; the node reports the failure everywhere.
    expect(record.sth).toEqual(verified);
    const [evidence, ...more] = await node.server.services.logMonitoring.logs.evidenceOf(logUrl);
    expect(more).toEqual([]);
    expect(evidence).toMatchObject({ kind: 'fork', verifiedSth: verified });
    const offending = evidence!.offendingSth as SignedTreeHead;
    expect(offending.tree_size).toBe(verified.tree_size);
    expect(offending.sha256_root_hash).not.toBe(verified.sha256_root_hash);
    const answer = await health();
    expect(answer.status).toBe(503);
    expect(answer.body.logMonitorStatus).toBe(`failed: ${logUrl} (fork)`);
    const listed = (await (await fetch(`${node.url}/log-monitor?status=failed`)).json()) as {
      failed: Array<{ Log: string; Failure: { kind: string; evidence: string }; Evidence: unknown }>;
    };
    expect(listed.failed).toEqual([
      expect.objectContaining({ Log: logUrl, Failure: expect.objectContaining({ kind: 'fork' }), Evidence: evidence }),
    ]);
    const metrics = await (await fetch(`${node.url}/metrics`)).text();
    expect(metrics).toContain(`node_vct_log_monitor_failed{log="${logUrl}"} 1`);
    expect(metrics).toMatch(/node_vct_log_monitor_failures_total\{kind="fork"\} 1/);

    // Back on the honest history, nothing is overwritten: the log stays failed with its one piece of evidence.
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect((await state())!.failure?.kind).toBe('fork');
    expect((await state())!.sth).toEqual(verified);
    expect(await node.server.services.logMonitoring.logs.evidenceOf(logUrl)).toHaveLength(1);
  });

  it("an operator's activation starts again from the log's current head; a history that cannot extend it is inconsistent", async () => {
    await reactivate();
    const restarted = await verifiedSize(5);
    expect(restarted.source).toBe('operator');
    expect((await health()).status).toBe(200);

    view.target = logs.c.url;
    await failed('inconsistent');
    view.target = logs.a.url;
    const evidence = (await node.server.services.logMonitoring.logs.evidenceOf(logUrl)).find(
      (e) => e.kind === 'inconsistent',
    );
    expect(evidence?.verifiedSth?.tree_size).toBe(5);
    expect((evidence?.offendingSth as SignedTreeHead).tree_size).toBe(7);
    expect(evidence?.consistencyProof?.length).toBeGreaterThan(0);
  });

  it('a smaller tree signed after the verified one is a rollback', async () => {
    await reactivate();
    await verifiedSize(5);
    view.target = logs.d.url;
    // D's head (size 2) is older than A's: a stale view, not yet proof of anything.
    await waitFor(async () => ((await state())?.lastError?.includes('older tree head') ? true : undefined), {
      description: 'stale view noted',
    });
    expect((await state())!.failure).toBeUndefined();
    await addEntries('d-later-', 1);
    const record = await failed('rolled-back');
    view.target = logs.a.url;
    expect(record.sth?.tree_size).toBe(5);
  });

  it('a tree head whose signature does not verify, and entries that do not rebuild the signed root, are failures', async () => {
    await reactivate();
    await verifiedSize(5);
    // An answer that is no tree head at all proves nothing: noted, not held against the log.
    view.garbageTreeHead = true;
    await waitFor(async () => ((await state())?.lastError?.includes('not a signed tree head') ? true : undefined), {
      description: 'garbage noted',
    });
    view.garbageTreeHead = false;
    expect((await state())!.failure).toBeUndefined();
    view.tamperTreeHead = true;
    await failed('bad-signature');
    view.tamperTreeHead = false;

    // Starting again from scratch rebuilds the root from get-entries, answered here from B's history.
    view.entriesTarget = logs.b.url;
    await reactivate();
    await failed('root-mismatch');
    view.entriesTarget = undefined;
    const kinds = (await node.server.services.logMonitoring.logs.evidenceOf(logUrl)).map((e) => e.kind).sort();
    expect(kinds).toEqual(['bad-signature', 'fork', 'inconsistent', 'rolled-back', 'root-mismatch']);
    await reactivate();
    await verifiedSize(5);
    expect((await health()).body.logMonitorStatus).toBe('success');
  });
});
