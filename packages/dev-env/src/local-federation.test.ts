import { freePortRun, makeTempDir, type TempDir } from '@anchor/testing/process';
import { VcsClient } from '@anchor/common/clients';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDemoDid, waitUntilPublished } from './demo-did.js';
import { startLocalFederation, type LocalFederation } from './local-federation.js';

describe('the local federation (built binaries as processes), signing through its kms as npm start does', () => {
  let dir: TempDir;
  let logPort: number;
  let firstNodePort: number;
  let kmsPort: number;
  let vcsPort: number;
  let federation: LocalFederation | undefined;
  const start = (overrides: { firstNodePort?: number } = {}) =>
    startLocalFederation({
      dataDir: dir.path,
      nodes: 2,
      logPort,
      firstNodePort: overrides.firstNodePort ?? firstNodePort,
      kmsPort,
      vcsPort,
      logLevel: 'warning',
      nodeArgs: ['--batch-writer-timeout', '200ms'],
    });

  beforeAll(async () => {
    dir = await makeTempDir('local-federation-');
    logPort = await freePortRun(5);
    firstNodePort = logPort + 1;
    kmsPort = logPort + 3;
    vcsPort = logPort + 4;
  });
  afterAll(async () => {
    await federation?.stop();
    await dir.remove();
  });

  /** What the node publishes as its anchor-credential key, and what its health says about the kms. */
  const keysOf = async (url: string) => {
    const did = (await (await fetch(`${url}/.well-known/did.json`)).json()) as {
      verificationMethod: Array<{ publicKeyMultibase: string }>;
    };
    const health = (await (await fetch(`${url}/healthcheck`)).json()) as { kmsStatus: string };
    return { key: did.verificationMethod[0]!.publicKeyMultibase, kmsStatus: health.kmsStatus };
  };

  it('starts a log and two nodes that follow, witness and accept-list each other and use the log', async () => {
    federation = await start();
    const [node1, node2] = federation.admins;
    if (!node1 || !node2) throw new Error('two nodes expected');
    const [id1, id2] = await Promise.all([node1.serviceId(), node2.serviceId()]);
    expect(id1).toBe(`http://127.0.0.1:${firstNodePort}/services/node`);
    for (const [node, other] of [
      [node1, id2],
      [node2, id1],
    ] as const) {
      expect(await node.collection('following')).toEqual([other]);
      expect(await node.collection('followers')).toEqual([other]);
      expect(await node.collection('witnesses')).toEqual([other]);
      expect(await node.collection('witnessing')).toEqual([other]);
      expect(await node.acceptLists()).toEqual([
        { type: 'follow', url: [other] },
        { type: 'invite-witness', url: [other] },
      ]);
      expect(await node.log()).toBe(`http://127.0.0.1:${logPort}/main`);
    }
    expect(federation.layout.kms?.url).toBe(`http://127.0.0.1:${kmsPort}`);
    for (const url of [...federation.layout.nodes.map((node) => node.url), `http://127.0.0.1:${logPort}`]) {
      const health = (await (await fetch(`${url}/healthcheck`)).json()) as { kmsStatus: string };
      expect(health.kmsStatus, url).toBe('success');
    }
  });

  it('anchors a DID created on one node and publishes it on both', async () => {
    const urls = federation!.layout.nodes.map((node) => node.url);
    const demo = await createDemoDid(urls[0]!);
    const views = await waitUntilPublished(urls, demo.did, 60_000);
    expect(views).toHaveLength(2);
    expect(views[0]!.canonicalId).toMatch(new RegExp(`^did:node:uEi[\\w-]+:${demo.didSuffix}$`));
    expect(views[1]!.canonicalId).toBe(views[0]!.canonicalId);
  });

  it('runs a vcs whose demo issuer lives on node1 and signs through the kms: it issues, and the credential verifies', async () => {
    const vcs = new VcsClient({ url: `http://127.0.0.1:${vcsPort}` });
    try {
      const profile = await vcs.profile('demo-issuer');
      expect(profile?.did).toMatch(/^did:node:/);
      const health = (await (await fetch(`${vcs.url}/healthcheck`)).json()) as { kmsStatus?: string };
      expect(health.kmsStatus).toBe('success');
      const credential = await vcs.issue('demo-issuer', {
        '@context': ['https://www.w3.org/2018/credentials/v1'],
        id: 'urn:uuid:local-federation-1',
        type: ['VerifiableCredential'],
        issuanceDate: '2026-11-26T00:00:00Z',
        credentialSubject: { id: 'did:example:holder' },
      });
      expect((await vcs.verify(credential, ['proof'])).verified).toBe(true);
    } finally {
      vcs.close();
    }
  });

  it('restarts on the same data without posting the follows and invitations again', async () => {
    const before = await Promise.all(federation!.admins.map((admin) => admin.activities('outbox')));
    const keysBefore = await Promise.all(federation!.layout.nodes.map((node) => keysOf(node.url)));
    await federation!.stop();
    federation = await start();
    // The same keystores and the same kms keys: the nodes keep their identity.
    expect(await Promise.all(federation.layout.nodes.map((node) => keysOf(node.url)))).toEqual(keysBefore);
    const after = await Promise.all(federation.admins.map((admin) => admin.activities('outbox')));
    for (const [i, activities] of after.entries()) {
      const relationships = activities.filter((activity) => activity.type === 'Follow' || activity.type === 'Invite');
      expect(relationships.map((activity) => activity.type).sort()).toEqual(['Follow', 'Invite']);
      expect(relationships.map((activity) => activity.id)).toEqual(
        before[i]!.filter((activity) => activity.type === 'Follow' || activity.type === 'Invite').map(
          (activity) => activity.id,
        ),
      );
    }
    expect(await federation.admins[0]!.collection('following')).toHaveLength(1);
  });

  it('refuses to start its data on other ports', async () => {
    await federation!.stop();
    federation = undefined;
    await expect(start({ firstNodePort: firstNodePort + 10 })).rejects.toThrow(
      /belongs to a federation started on other ports \(node1 .* -> /,
    );
  });
});
