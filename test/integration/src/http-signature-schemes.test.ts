/**
 * Both HTTP signature schemes between real node processes: node A signs with RFC 9421
 * (`--http-signature-scheme rfc9421`), node B with draft-cavage (the default, the only scheme Orb reads).
 * Each verifies both. A follows B and witnesses for B, so every step of the federation crosses the two schemes:
 * A's Follow and witness Accepts reach B signed with RFC 9421, B's Accept, Offers and Create reach A signed with
 * draft-cavage.
 */
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { KeyPair } from '@anchor/common/crypto';
import { createRequestSigner, createSignatureAuthenticator, createSignedFetch } from '@anchor/common/httpsig';
import { makeTempDir, stopAllProcesses, waitFor, type TempDir } from '@anchor/testing/process';
import { TestDid, metadataOf, postOperation, resolveDid } from '@anchor/node/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startNode, startVctLog, type RunningNode } from './federation.test-helpers.js';

const NODE_FLAGS = [
  '--follow-auth-policy',
  'accept-list',
  '--invite-witness-auth-policy',
  'accept-list',
  '--mq-redelivery-initial-interval',
  '500ms',
  '--mq-redelivery-max-interval',
  '2s',
];

/** A peer that is not a node: serves an actor whose inbox records what arrives, headers and body. */
async function startRecordingPeer() {
  const received: { method: string; url: string; headers: IncomingHttpHeaders; body: Buffer }[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      received.push({
        method: req.method ?? 'GET',
        url: req.url ?? '/',
        headers: req.headers,
        body: Buffer.concat(chunks),
      });
      if (req.url === '/services/peer') {
        res.writeHead(200, { 'content-type': 'application/activity+json' });
        res.end(
          JSON.stringify({
            '@context': 'https://www.w3.org/ns/activitystreams',
            id: service,
            type: 'Service',
            inbox: `${service}/inbox`,
          }),
        );
      } else res.writeHead(req.method === 'POST' ? 200 : 404).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const service = `${url}/services/peer`;
  return { service, received, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

describe('HTTP signature schemes between node processes (A: rfc9421, B: cavage)', () => {
  const dirs: TempDir[] = [];
  let nodeA: RunningNode;
  let nodeB: RunningNode;
  const keyA = KeyPair.generate('Ed25519');
  const keyB = KeyPair.generate('Ed25519');

  beforeAll(async () => {
    const [vctDir, dirA, dirB] = await Promise.all(['sig-vct-', 'sig-nodeA-', 'sig-nodeB-'].map((p) => makeTempDir(p)));
    dirs.push(vctDir!, dirA!, dirB!);
    const keyFileA = join(dirA!.path, 'http-sign-key.pem');
    const keyFileB = join(dirB!.path, 'http-sign-key.pem');
    await writeFile(keyFileA, keyA.privateKeyPem());
    await writeFile(keyFileB, keyB.privateKeyPem());
    const { logUrl } = await startVctLog(vctDir!);
    [nodeA, nodeB] = await Promise.all([
      startNode('nodeA', dirA!, [
        ...NODE_FLAGS,
        '--http-signature-scheme',
        'rfc9421',
        '--http-sign-key-file',
        keyFileA,
      ]),
      startNode('nodeB', dirB!, [...NODE_FLAGS, '--http-sign-key-file', keyFileB]),
    ]);
    for (const node of [nodeA, nodeB]) expect(await node.admin.setLog(logUrl)).toBe(logUrl);
  });

  afterAll(async () => {
    for (const node of [nodeA, nodeB]) node?.admin.close();
    await stopAllProcesses();
    await Promise.all(dirs.map((dir) => dir.remove()));
  });

  it("node A's inbox accepts a POST signed with RFC 9421 and one signed with draft-cavage, and refuses a forged one", async () => {
    const keyId = `${nodeB.service}/keys/main-key`;
    const post = (scheme: 'cavage' | 'rfc9421', key: KeyPair, n: number) =>
      createSignedFetch(createRequestSigner({ keyId, key, scheme }))(`${nodeA.service}/inbox`, {
        method: 'POST',
        headers: { 'content-type': 'application/activity+json' },
        body: JSON.stringify({
          '@context': 'https://www.w3.org/ns/activitystreams',
          id: `${nodeB.service}/activities/scheme-${scheme}-${n}`,
          type: 'Like',
          actor: nodeB.service,
          object: { type: 'AnchorEvent', url: 'hl:uEiAAAA' },
        }),
      });
    expect((await post('rfc9421', keyB, 1)).status).toBe(200);
    expect((await post('cavage', keyB, 2)).status).toBe(200);
    const forged = await post('rfc9421', KeyPair.generate('Ed25519'), 3);
    expect(forged.status).toBe(401);
    expect(((await forged.json()) as { message: string }).message).toBe(
      `invalid signature: it does not verify with key ${keyId}`,
    );
  });

  it('node A signs what it sends with RFC 9421 (a Follow to a recording peer verifies as such)', async () => {
    const peer = await startRecordingPeer();
    try {
      await nodeA.admin.follow(peer.service);
      const follow = await waitFor(
        async () =>
          peer.received.find((request) => request.method === 'POST' && request.url === '/services/peer/inbox'),
        { timeoutMs: 20_000, intervalMs: 200, description: "node A's Follow at the recording peer" },
      );
      expect(follow.headers['signature-input']).toMatch(
        /^sig1=\("@method" "@target-uri" "content-digest"\);created=\d+;keyid="/,
      );
      expect(follow.headers.digest).toBeUndefined();
      const authenticate = createSignatureAuthenticator({ targetScheme: 'http' });
      const signer = await authenticate({
        method: 'POST',
        originalUrl: follow.url,
        headers: follow.headers,
        rawBody: follow.body,
      });
      expect(signer).toEqual({ actor: nodeA.service, keyId: `${nodeA.service}/keys/main-key` });
    } finally {
      await peer.close();
    }
  });

  it('A follows B and witnesses for B: a DID created on B is published on both', async () => {
    await nodeB.admin.allow('follow', [nodeA.service]);
    await nodeA.admin.allow('invite-witness', [nodeB.service]);
    expect(await nodeB.admin.setWitnessPolicy('MinPercent(100,batch)')).toBe('MinPercent(100,batch)');
    await nodeA.admin.follow(nodeB.service);
    await nodeB.admin.inviteWitness(nodeA.service);
    await Promise.all([
      nodeB.admin.waitUntilIn('followers', nodeA.service),
      nodeA.admin.waitUntilIn('following', nodeB.service),
      nodeA.admin.waitUntilIn('witnessing', nodeB.service),
      nodeB.admin.waitUntilIn('witnesses', nodeA.service),
    ]);

    const did = new TestDid(nodeB.url);
    expect((await postOperation(nodeB.url, did.created.request)).status).toBe(200);
    const canonicalIds = await Promise.all(
      [nodeB, nodeA].map((node) =>
        waitFor(
          async () => {
            const result = await resolveDid(node.url, did.did);
            if (result.status !== 200) return undefined;
            const metadata = metadataOf(result);
            return (metadata.method as { published?: boolean }).published === true
              ? String(metadata.canonicalId)
              : undefined;
          },
          { timeoutMs: 45_000, intervalMs: 250, description: `${did.did} published on ${node.name}` },
        ),
      ),
    );
    expect(canonicalIds[1]).toBe(canonicalIds[0]);

    // A follower's signed GET of a collection with a query, in each scheme.
    for (const scheme of ['rfc9421', 'cavage'] as const) {
      const asA = createSignedFetch(
        createRequestSigner({ keyId: `${nodeA.service}/keys/main-key`, key: keyA, scheme }),
      );
      const followers = await asA(`${nodeB.service}/followers?page=true`);
      expect(followers.status, scheme).toBe(200);
      expect(((await followers.json()) as { orderedItems?: string[]; items?: string[] }).items ?? []).toContain(
        nodeA.service,
      );
    }
  });
});
