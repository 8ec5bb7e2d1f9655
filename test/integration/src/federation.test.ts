/**
 * The federation end to end: three node processes and a vct-log process on loopback, set up only
 * through HTTP APIs (a fourth joins for one test). Node 1 anchors; nodes 2 and 3 follow it; node 3 (later also node 2) witnesses for it
 * under the policy `MinPercent(100,batch) AND MinPercent(50,system)`; every node logs its proofs in the one
 * vct-log. The tests run in order and share the federation.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { KeyPair } from '@anchor/common/crypto';
import { decodeDataUri } from '@anchor/common/encoding';
import { createRequestSigner, createSignedFetch } from '@anchor/common/httpsig';
import { makeTempDir, stopAllProcesses, waitFor, type TempDir } from '@anchor/testing/process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestDid, metadataOf, postOperation, resolveDid } from '@anchor/node/testing';
import { call as http } from '@anchor/vct-log/testing';
import {
  EMBEDDED_BACKEND,
  mongoAmqpBackend,
  startNode as startNodeOn,
  startVctLog as startVctLogOn,
  type FederationBackend,
  type RunningNode,
} from './federation.test-helpers.js';

const WITNESS_POLICY = 'MinPercent(100,batch) AND MinPercent(50,system)';
/** Test timing only: shorter grace, monitoring, catch-up and retry intervals than the production defaults. */
const TIMING = [
  '--anchor-status-in-process-grace-period',
  '4s',
  '--anchor-status-monitoring-interval',
  '1s',
  '--sync-interval',
  '2s',
  '--sync-min-activity-age',
  '1s',
  '--mq-redelivery-initial-interval',
  '500ms',
  '--mq-redelivery-max-interval',
  '2s',
];
/** Who may follow and invite is decided by the accept lists this test fills. */
const ACCEPT_LISTS = ['--follow-auth-policy', 'accept-list', '--invite-witness-auth-policy', 'accept-list'];

interface PublishedState {
  canonicalId: string;
  /** The types of the published operations that apply (a recover starts the list afresh). */
  operations: string[];
  deactivated: boolean;
}

/** The DID's published state on a node, once its last published operation is `lastOperation`. */
async function published(
  node: RunningNode,
  did: string,
  lastOperation: string,
  timeoutMs = 45_000,
): Promise<PublishedState> {
  const state = waitFor(
    async () => {
      const result = await resolveDid(node.url, did);
      if (result.status !== 200) return undefined;
      const metadata = metadataOf(result);
      const method = metadata.method as { published?: boolean; publishedOperations?: Array<{ type: string }> };
      if (method.published !== true) return undefined;
      const operations = (method.publishedOperations ?? []).map((operation) => operation.type);
      const deactivated = metadata.deactivated === true;
      if (deactivated ? lastOperation !== 'deactivate' : operations.at(-1) !== lastOperation) return undefined;
      return { canonicalId: String(metadata.canonicalId), operations, deactivated } satisfies PublishedState;
    },
    { timeoutMs, intervalMs: 250, description: `${did} published with its ${lastOperation} on ${node.name}` },
  );
  // A node that does not get there says why in its own log (warnings and errors at the test's log level).
  return state.catch((error: unknown) => {
    throw new Error(node.process.describe((error as Error).message), { cause: error });
  });
}

/** The anchor credential of an anchor linkset served by a node's CAS, and the hosts of its proofs' keys. */
async function credentialOf(
  node: RunningNode,
  anchorHash: string,
): Promise<{ proofs: Array<{ verificationMethod: string; domain?: string; created: string }> }> {
  const linkset = await http<{ linkset: Array<{ replies: Array<{ href: string }> }> }>(`${node.url}/cas/${anchorHash}`);
  expect(linkset.status).toBe(200);
  const credential = JSON.parse(decodeDataUri(linkset.body.linkset[0]!.replies[0]!.href).toString('utf8')) as {
    proof: unknown;
  };
  const proofs = Array.isArray(credential.proof) ? credential.proof : [credential.proof];
  return { proofs: proofs as Array<{ verificationMethod: string; domain?: string; created: string }> };
}

/** `node_activitypub_deliveries_total{outcome="dead-lettered"}` of a node. */
async function deliveriesDeadLettered(node: RunningNode): Promise<number> {
  const { text } = await http(`${node.url}/metrics`);
  const line = text
    .split('\n')
    .find((row) => row.startsWith('node_activitypub_deliveries_total{outcome="dead-lettered"}'));
  return line === undefined ? 0 : Number(line.split(' ').at(-1));
}

const didWebOf = (node: RunningNode) => `did:web:${encodeURIComponent(`127.0.0.1:${node.port}`)}`;

/** The whole suite, on one backend: every service's storage and queue. */
function federationSuite(backend: FederationBackend, problem: string | undefined): void {
  describe.skipIf(problem !== undefined)(`a federation of three nodes and a vct-log (${backend.name})`, () => {
    const startNode = (name: string, dir: TempDir, args: readonly string[], port?: number) =>
      startNodeOn(name, dir, [...args, ...backend.nodeArgs(name)], port);
    const startVctLog = (dir: TempDir) => startVctLogOn(dir, backend.logArgs());

    const dirs: TempDir[] = [];
    let node1: RunningNode;
    let node2: RunningNode;
    let node3: RunningNode;
    let logUrl: string;
    /** HTTP-signature keys of nodes 1 and 2, given to them as files so the test can sign as them. */
    const node1Key = KeyPair.generate('Ed25519');
    const node2Key = KeyPair.generate('Ed25519');
    let did: TestDid;
    let firstCanonicalId = '';
    /** Nodes a test starts for itself, stopped with the rest. */
    const extraNodes: RunningNode[] = [];

    beforeAll(async () => {
      await backend.setUp();
      const [vctDir, dir1, dir2, dir3] = await Promise.all([
        makeTempDir('fed-vct-'),
        makeTempDir('fed-node1-'),
        makeTempDir('fed-node2-'),
        makeTempDir('fed-node3-'),
      ]);
      dirs.push(vctDir!, dir1!, dir2!, dir3!);
      const keyFile1 = join(dir1!.path, 'http-sign-key.pem');
      const keyFile2 = join(dir2!.path, 'http-sign-key.pem');
      await writeFile(keyFile1, node1Key.privateKeyPem());
      await writeFile(keyFile2, node2Key.privateKeyPem());
      const vct = await startVctLog(vctDir!);
      logUrl = vct.logUrl;
      [node1, node2, node3] = await Promise.all([
        // Node 1 gives up on an unreachable inbox after 4 attempts (a few seconds), so what node 3 misses while
        // it is down can only come back through its catch-up.
        startNode('node1', dir1!, [
          ...ACCEPT_LISTS,
          ...TIMING,
          '--mq-redelivery-max-attempts',
          '4',
          '--http-sign-key-file',
          keyFile1,
        ]),
        startNode('node2', dir2!, [...ACCEPT_LISTS, ...TIMING, '--http-sign-key-file', keyFile2]),
        startNode('node3', dir3!, [...ACCEPT_LISTS, ...TIMING]),
      ]);

      // Who may follow and invite whom. Node 3 lets only node 1 follow it.
      await node1.admin.allow('follow', [node2.service, node3.service]);
      await node2.admin.allow('follow', [node1.service, node3.service]);
      await node3.admin.allow('follow', [node1.service]);
      for (const node of [node2, node3]) await node.admin.allow('invite-witness', [node1.service]);
      for (const node of [node1, node2, node3]) expect(await node.admin.setLog(logUrl)).toBe(logUrl);
      expect(await node1.admin.setWitnessPolicy(WITNESS_POLICY)).toBe(WITNESS_POLICY);

      await node2.admin.follow(node1.service);
      await node3.admin.follow(node1.service);
      await node1.admin.inviteWitness(node3.service);
      await Promise.all([
        node1.admin.waitUntilIn('followers', node2.service),
        node1.admin.waitUntilIn('followers', node3.service),
        node2.admin.waitUntilIn('following', node1.service),
        node3.admin.waitUntilIn('following', node1.service),
        node3.admin.waitUntilIn('witnessing', node1.service),
        node1.admin.waitUntilIn('witnesses', node3.service),
      ]);
    });

    afterAll(async () => {
      for (const node of [node1, node2, node3, ...extraNodes]) node?.admin.close();
      // FEDERATION_TEST_LOG_LEVEL=debug (or info) shows what the nodes did.
      if (process.env.FEDERATION_TEST_LOG_LEVEL)
        for (const node of [node1, node2, node3]) console.log(`----- ${node?.name}\n${node?.process.output()}`);
      await stopAllProcesses();
      await Promise.all(dirs.map((dir) => dir.remove()));
      await backend.tearDown();
    });

    it('a Follow from a service not on the accept list gets a Reject', async () => {
      const followId = await node2.admin.follow(node3.service);
      const reject = await waitFor(
        async () =>
          (await node2.admin.activities('inbox')).find(
            (activity) => activity.type === 'Reject' && (activity.object as { id?: string }).id === followId,
          ),
        {
          timeoutMs: 20_000,
          intervalMs: 200,
          description: "node 3's Reject of node 2's Follow",
        },
      );
      expect(reject.actor).toBe(node3.service);
      expect(await node3.admin.collection('followers')).not.toContain(node2.service);
      expect(await node2.admin.collection('following')).not.toContain(node3.service);
    });

    it('inbox and collections refuse unsigned, forged and stale requests (401) and admit node 2 signing as itself', async () => {
      const keyId = `${node2.service}/keys/main-key`;
      const signedFetch = (key: KeyPair, now?: () => Date) =>
        createSignedFetch(createRequestSigner({ keyId, key, ...(now ? { now } : {}) }));
      const like = {
        '@context': 'https://www.w3.org/ns/activitystreams',
        id: `${node2.service}/activities/forged-1`,
        type: 'Like',
        actor: node2.service,
        object: { type: 'AnchorEvent', url: 'hl:uEiAAAA' },
      };
      const body = JSON.stringify(like);
      const headers = { 'content-type': 'application/json' };

      expect((await http(`${node1.service}/inbox`, { json: like })).status).toBe(401);
      const forged = signedFetch(KeyPair.generate('Ed25519'));
      expect((await forged(`${node1.service}/inbox`, { method: 'POST', body, headers })).status).toBe(401);
      expect((await forged(`${node1.service}/followers?page=true`)).status).toBe(401);
      const stale = signedFetch(node2Key, () => new Date(Date.now() - 15 * 60_000));
      expect((await stale(`${node1.service}/inbox`, { method: 'POST', body, headers })).status).toBe(401);
      expect((await stale(`${node1.service}/followers?page=true`)).status).toBe(401);

      // The same requests properly signed by node 2 (a follower of node 1) pass.
      const genuine = signedFetch(node2Key);
      expect((await genuine(`${node1.service}/followers?page=true`)).status).toBe(200);
    });

    it('a DID created on node 1 is witnessed by node 3, logged, and resolves published with the same canonicalId on all three', async () => {
      did = new TestDid(node1.url);
      expect((await postOperation(node1.url, did.created.request)).status).toBe(200);
      const states = await Promise.all([node1, node2, node3].map((node) => published(node, did.did, 'create')));
      firstCanonicalId = states[0]!.canonicalId;
      expect(firstCanonicalId).toMatch(new RegExp(`^did:node:uEi[A-Za-z0-9_-]+:${did.suffix}$`));
      for (const state of states) expect(state.canonicalId).toBe(firstCanonicalId);

      const anchorHash = firstCanonicalId.split(':')[2]!;
      const { proofs } = await credentialOf(node1, anchorHash);
      const witnessProof = proofs.find((proof) => proof.verificationMethod.startsWith(`${didWebOf(node3)}#`));
      expect(witnessProof, 'node 3 proof in the published credential').toBeDefined();
      expect(witnessProof!.domain).toBe(logUrl);
      expect(proofs.some((proof) => proof.verificationMethod.startsWith(`${didWebOf(node1)}#`))).toBe(true);
      // Each follower, once it processed the anchor, Likes it back to node 1 naming its own copy.
      await waitFor(
        async () => {
          const likes = await http<{ orderedItems?: Array<{ actor: string; result?: { url?: string } }> }>(
            `${node1.service}/likes/${anchorHash}?page=true`,
          );
          const likers = (likes.body.orderedItems ?? []).map((like) => like.actor).sort();
          return likers.join(' ') === [node2.service, node3.service].sort().join(' ');
        },
        { timeoutMs: 15_000, intervalMs: 250, description: "nodes 2 and 3 Liking node 1's anchor" },
      );
      // A log-backed proof's `created` is the log's timestamp of the credential's entry (the leaf input is
      // trustbloc/vct's JSON MerkleTreeLeaf).
      const loggedAt = Date.parse(witnessProof!.created);
      await waitFor(
        async () => {
          const size = (await http<{ tree_size: number }>(`${logUrl}/v1/get-sth`)).body.tree_size;
          if (size === 0) return false;
          const { body } = await http<{ entries: Array<{ leaf_input: string }> }>(
            `${logUrl}/v1/get-entries?start=0&end=${size - 1}`,
          );
          const leaves = body.entries.map(
            (entry) =>
              JSON.parse(Buffer.from(entry.leaf_input, 'base64').toString('utf8')) as {
                timestamped_entry: { timestamp: number };
              },
          );
          return leaves.some((leaf) => leaf.timestamped_entry.timestamp === loggedAt);
        },
        { timeoutMs: 10_000, description: `an entry logged at ${witnessProof!.created} in ${logUrl}` },
      );
    });

    it('a node witnesses only for services whose invitation it accepted', async () => {
      // Node 1's Offer of the first anchor (public in its outbox), which node 3 witnessed, delivered to node 2
      // as node 1 would: node 2 has not accepted an Invite of node 1 yet, so it must not answer.
      const offer = (await node1.admin.activities('outbox')).find((activity) => activity.type === 'Offer');
      expect(offer).toBeDefined();
      const asNode1 = createSignedFetch(
        createRequestSigner({ keyId: `${node1.service}/keys/main-key`, key: node1Key }),
      );
      const delivered = await asNode1(`${node2.service}/inbox`, {
        method: 'POST',
        body: JSON.stringify(offer),
        headers: { 'content-type': 'application/json' },
      });
      expect(delivered.status).toBe(200);
      await waitFor(async () => (await node2.admin.activities('inbox')).some((activity) => activity.id === offer!.id), {
        timeoutMs: 10_000,
        description: 'the Offer handled by node 2',
      });
      const answered = (activities: Array<{ type: string; object?: unknown }>) =>
        activities.some(
          (activity) => activity.type === 'Accept' && (activity.object as { id?: string }).id === offer!.id,
        );
      expect(answered(await node2.admin.activities('outbox'))).toBe(false);
      expect(answered(await node3.admin.activities('outbox'))).toBe(true);
    });

    it('update, recover and deactivate on node 1 propagate to nodes 2 and 3', async () => {
      expect((await postOperation(node1.url, did.update('key-2'))).status).toBe(200);
      for (const node of [node1, node2, node3])
        expect((await published(node, did.did, 'update')).operations).toEqual(['create', 'update']);

      expect((await postOperation(node1.url, did.recover(node1.url, 'key-3'))).status).toBe(200);
      const recovered = await Promise.all([node1, node2, node3].map((node) => published(node, did.did, 'recover')));
      for (const state of recovered) expect(state.canonicalId).toBe(recovered[0]!.canonicalId);
      expect(recovered[0]!.canonicalId).not.toBe(firstCanonicalId);

      expect((await postOperation(node1.url, did.deactivate())).status).toBe(200);
      for (const node of [node1, node2, node3])
        expect((await published(node, did.did, 'deactivate')).deactivated).toBe(true);
    });

    it("a node that follows only node 2 learns node 1's anchors from node 2's Announces", async () => {
      const dir = await makeTempDir('fed-node4-');
      dirs.push(dir);
      const node4 = await startNode('node4', dir, [...ACCEPT_LISTS, ...TIMING]);
      extraNodes.push(node4);
      await node2.admin.allow('follow', [node4.service]);
      await node4.admin.follow(node2.service);
      await node2.admin.waitUntilIn('followers', node4.service);

      const announced = new TestDid(node1.url);
      expect((await postOperation(node1.url, announced.created.request)).status).toBe(200);
      const [onNode1, onNode4] = await Promise.all([
        published(node1, announced.did, 'create'),
        published(node4, announced.did, 'create'),
      ]);
      expect(onNode4.canonicalId).toBe(onNode1.canonicalId);
      // It came as node 2's Announce of node 1's anchor: node 4 follows nobody else.
      expect(await node4.admin.collection('following')).toEqual([node2.service]);
      const anchorHash = onNode1.canonicalId.split(':')[2]!;
      const announces = (await node4.admin.activities('inbox')).filter(
        (activity) => activity.type === 'Announce' && activity.actor === node2.service,
      );
      expect(announces.some((activity) => JSON.stringify(activity.object).includes(anchorHash))).toBe(true);
    });

    it('a witness that never answers is replaced, and a node stopped meanwhile catches up after its restart', async () => {
      // Node 3, node 1's only witness, goes down: its Offer finds nobody.
      await node3.process.stop();
      const second = new TestDid(node1.url);
      expect((await postOperation(node1.url, second.created.request)).status).toBe(200);
      await new Promise((resolve) => setTimeout(resolve, 2_000));
      const pending = metadataOf(await resolveDid(node1.url, second.did)).method as { published?: boolean };
      expect(pending.published, 'no witness has answered yet').toBe(false);

      // A second witness joins; past the grace period node 1 offers the anchor to it in node 3's place.
      await node1.admin.inviteWitness(node2.service);
      await node1.admin.waitUntilIn('witnesses', node2.service);
      const [onNode1, onNode2] = await Promise.all([
        published(node1, second.did, 'create'),
        published(node2, second.did, 'create'),
      ]);
      expect(onNode2.canonicalId).toBe(onNode1.canonicalId);
      const { proofs } = await credentialOf(node1, onNode1.canonicalId.split(':')[2]!);
      expect(proofs.some((proof) => proof.verificationMethod.startsWith(`${didWebOf(node2)}#`))).toBe(true);
      expect(proofs.some((proof) => proof.verificationMethod.startsWith(`${didWebOf(node3)}#`))).toBe(false);

      // Node 1 has given up delivering to node 3 (dead-lettered); node 3 comes back on its port and data
      // directory and catches up from node 1's outbox.
      await waitFor(async () => (await deliveriesDeadLettered(node1)) > 0, {
        timeoutMs: 20_000,
        intervalMs: 250,
        description: 'node 1 dead-lettering a delivery to node 3',
      });
      node3.admin.close();
      node3 = await startNode('node3', node3.dir, [...ACCEPT_LISTS, ...TIMING], node3.port);
      const onNode3 = await published(node3, second.did, 'create', 60_000);
      expect(onNode3.canonicalId).toBe(onNode1.canonicalId);
    });
  });
}

federationSuite(EMBEDDED_BACKEND, undefined);
const productionBackend = mongoAmqpBackend();
const productionProblem = await productionBackend.unavailable();
if (productionProblem !== undefined) console.warn(`federation on MongoDB and RabbitMQ skipped: ${productionProblem}`);
federationSuite(productionBackend, productionProblem);
