import { NodeAdminClient } from '@anchor/common/clients';
import { makeTempDir, waitFor, type TempDir } from '@anchor/testing/process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startVctLogProcess } from '../../test/node-process.js';
import { startTestNode, type TestNode } from '../testing/test-node.js';
import type { MonitoredLog } from './monitored-logs.js';

/** Node B follows node A, whose WebFinger announces a real vct-log: B monitors that log until it unfollows A. */
describe('log monitoring: the logs of followed services', () => {
  let dir: TempDir;
  let log: Awaited<ReturnType<typeof startVctLogProcess>>;
  let a: TestNode;
  let b: TestNode;

  beforeAll(async () => {
    dir = await makeTempDir('log-discovery-');
    log = await startVctLogProcess(dir);
    const args = ['--vct-log-monitoring-interval', '100ms'];
    [a, b] = await Promise.all([startTestNode({ args }), startTestNode({ args })]);
    const set = await fetch(`${a.url}/log`, {
      method: 'POST',
      body: log.logUrl,
      headers: { 'content-type': 'text/plain' },
    });
    expect(set.status).toBe(200);
  }, 60_000);

  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
    await log?.process.stop();
    await dir?.remove();
  });

  const monitoredByB = (): Promise<MonitoredLog | undefined> => b.server.services.logMonitoring.logs.get(log.logUrl);

  it('monitors the log a followed service announces, and stops when it is unfollowed', async () => {
    // A monitors its own log; B knows nothing of it yet.
    await waitFor(async () => (await a.server.services.logMonitoring.logs.get(log.logUrl))?.source === 'own', {
      description: 'A monitors its own log',
    });
    expect(await monitoredByB()).toBeUndefined();

    const adminB = new NodeAdminClient({ url: b.url });
    const serviceA = await new NodeAdminClient({ url: a.url }).serviceId();
    await adminB.follow(serviceA);
    const record = await waitFor(
      async () => {
        const found = await monitoredByB();
        return found?.status === 'active' && found.verifiedAt !== undefined ? found : undefined;
      },
      { timeoutMs: 20_000, description: "B monitors A's log" },
    );
    expect(record.source).toBe('followed');
    expect(record.sth?.tree_size).toBe(0);

    await adminB.undo('Follow', serviceA);
    await waitFor(async () => ((await monitoredByB())?.status === 'inactive' ? true : undefined), {
      timeoutMs: 20_000,
      description: "B no longer monitors A's log",
    });
    const listed = (await (await fetch(`${b.url}/log-monitor?status=inactive`)).json()) as {
      inactive: Array<{ Log: string; Source: string }>;
    };
    expect(listed.inactive).toEqual([expect.objectContaining({ Log: log.logUrl, Source: 'followed' })]);
  });

  it("never undoes an operator's choice: a deactivated own log stays off until activated again", async () => {
    const switchA = (change: Record<string, string[]>) =>
      fetch(`${a.url}/log-monitor`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(change),
      });
    const ofA = () => a.server.services.logMonitoring.logs.get(log.logUrl);
    expect((await switchA({ deactivate: [log.logUrl] })).status).toBe(200);
    // Several discovery rounds (100 ms) later it is still off, although it is still A's own log.
    await new Promise((resolve) => setTimeout(resolve, 600));
    expect(await ofA()).toMatchObject({ status: 'inactive', source: 'operator' });
    expect((await switchA({ activate: [log.logUrl] })).status).toBe(200);
    const checkedBefore = (await ofA())!.checkedAt!;
    await waitFor(async () => ((await ofA())!.checkedAt! > checkedBefore ? true : undefined), {
      description: 'checked again',
    });
    expect(await ofA()).toMatchObject({ status: 'active', source: 'operator' });
  });
});
