import { join } from 'node:path';
import { VctLogClient } from '@anchor/common/clients';
import { ANCHOR_CREDENTIAL_UNDEFINED_TERMS } from '@anchor/common/jsonld';
import { makeTempDir, waitFor, type ServiceProcess, type TempDir } from '@anchor/testing/process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postOperation, startTestNode, TestDid, waitPublished, type TestNode } from '../testing/test-node.js';
import { anchorCredential, startLog, startSplitViewLog, type SplitViewLog } from './monitoring.test-helpers.js';
import type { WatchedCredential } from './watched-credentials.js';

/**
 * Proof monitoring against real vct-log processes: `current` holds what the node logged; `restored` has
 * the same key but an earlier state (a log restored from a backup taken before a credential was logged),
 * so switching the log's URL to it deletes that credential from the log.
 */
describe('proof monitoring: every logged credential is proven included, a missing one reported and logged again', () => {
  let dir: TempDir;
  let view: SplitViewLog;
  let current: { process: ServiceProcess; url: string };
  let restored: { process: ServiceProcess; url: string };
  let node: TestNode;
  let logUrl: string;

  const watched = (id: string): Promise<WatchedCredential | undefined> =>
    node.server.services.logMonitoring.watched.get(logUrl, id);
  const metric = async (name: string): Promise<number> => {
    const text = await (await fetch(`${node.url}/metrics`)).text();
    const line = text.split('\n').find((l) => l.startsWith(`${name} `));
    return Number(line?.split(' ')[1] ?? Number.NaN);
  };

  beforeAll(async () => {
    dir = await makeTempDir('proof-monitoring-');
    view = await startSplitViewLog();
    logUrl = `${view.url}/main`;
    const keyFile = join(dir.path, 'log-key.pem');
    current = await startLog(dir, 'current', { keyFile, baseUrl: view.url });
    restored = await startLog(dir, 'restored', { keyFile, baseUrl: view.url });
    // An entry from before the backup, in both; written past the node, which would watch it.
    const plain = new VctLogClient({ allowUndefinedTerms: ANCHOR_CREDENTIAL_UNDEFINED_TERMS });
    for (const log of [restored, current]) {
      view.target = log.url;
      await plain.addCredential(logUrl, anchorCredential('before-the-backup'));
      await waitFor(async () => (await plain.signedTreeHead(logUrl)).tree_size === 1, { description: 'integrated' });
    }
    node = await startTestNode({
      args: [
        '--vct-proof-monitoring-interval',
        '100ms',
        '--vct-proof-monitoring-expiry-period',
        '2s',
        '--vct-log-monitoring-interval',
        '1h',
      ],
    });
  }, 60_000);

  afterAll(async () => {
    await node?.stop();
    await view?.close();
    await current?.process.stop();
    await restored?.process.stop();
    await dir?.remove();
  });

  it('confirms a logged credential by its inclusion proof against a later tree head', async () => {
    const credential = anchorCredential('kept');
    const promise = await node.server.services.vct.client.addCredential(logUrl, credential);
    const record = await waitFor(
      async () => {
        const found = await watched(credential.id as string);
        return found?.status === 'confirmed' ? found : undefined;
      },
      { description: 'credential confirmed' },
    );
    expect(record).toMatchObject({ timestamp: promise.timestamp, leafIndex: 1, treeSize: 2, resubmissions: 0 });
    expect(record.nextCheckAt).toBeUndefined();
    expect(record.credential).toBeUndefined();
    expect(await metric('node_vct_proof_monitor_confirmed_total')).toBe(1);
  });

  it('reports a credential deleted from the log once the deadline passes, and logs it again', async () => {
    const credential = anchorCredential('deleted');
    const first = await node.server.services.vct.client.addCredential(logUrl, credential);
    // The log is restored from a backup made before the credential was added: its entry is gone.
    view.target = restored.url;
    const unconfirmed = await waitFor(
      async () => {
        const found = await watched(credential.id as string);
        return found?.lastError !== undefined ? found : undefined;
      },
      { description: 'first check' },
    );
    expect(unconfirmed.status).toBe('unconfirmed');
    expect(await metric('node_vct_proof_monitor_missing_total')).toBe(0);

    const record = await waitFor(
      async () => {
        const found = await watched(credential.id as string);
        return found?.status === 'confirmed' ? found : undefined;
      },
      { timeoutMs: 15_000, description: 'credential logged again and confirmed' },
    );
    expect(record.resubmissions).toBe(1);
    expect(record.missingSince).toBeGreaterThanOrEqual(first.timestamp + 2_000);
    expect(record.timestamp).toBeGreaterThan(first.timestamp);
    expect(record.leafIndex).toBe(1);
    expect(await metric('node_vct_proof_monitor_missing_total')).toBe(1);
    expect(await metric('node_vct_proof_monitor_resubmitted_total')).toBe(1);
    // The restored log now holds it: proven by the node's own client too.
    const sth = await node.server.services.vct.client.signedTreeHead(logUrl);
    const hash = await node.server.services.vct.client.leafHashOf(credential, record.timestamp);
    await expect(node.server.services.vct.client.verifyInclusion(logUrl, hash, sth)).resolves.toMatchObject({
      leafIndex: 1,
    });
  });

  it("watches the anchor credentials the node's local witness logs", async () => {
    const set = await fetch(`${node.url}/log`, {
      method: 'POST',
      body: logUrl,
      headers: { 'content-type': 'text/plain' },
    });
    expect(set.status).toBe(200);
    const did = new TestDid(node.url);
    expect((await postOperation(node.url, did.created.request)).status).toBe(200);
    await waitPublished(node.url, did.did);
    const record = await waitFor(
      async () =>
        (await node.server.services.logMonitoring.watched.withStatus('confirmed')).find((found) =>
          found.credentialId.startsWith(`${node.url}/vc/`),
        ),
      { description: "the anchor credential's inclusion confirmed" },
    );
    expect(record).toMatchObject({ logUrl, resubmissions: 0, treeSize: expect.any(Number) });
  });
});
