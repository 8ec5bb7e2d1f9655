import { decodeDataUri, multibaseMultihash, parseHashlink } from '@anchor/common/encoding';
import { makeTempDir, stopAllProcesses, waitFor, type TempDir } from '@anchor/testing/process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  metadataOf,
  postOperation,
  resolveDid,
  TestDid,
  waitPublished,
  type HttpAnswer,
} from '../src/testing/test-node.js';
import { startNodeProcess, startVctLogProcess, type NodeProcess } from './node-process.js';

/**
 * The whole life of a DID on a real node process started bare (create → resolvable at once as
 * unpublished → anchored → published → update → recover → deactivate, versions), once with the node's own
 * proof as the local witness and once with a vct-log process behind it.
 */
const WITNESSES = [
  { name: "the node's own proof", withLog: false },
  { name: 'a vct-log process as the local witness', withLog: true },
] as const;

describe.each(WITNESSES)('DID lifecycle with $name', ({ withLog }) => {
  let dirs: TempDir[] = [];
  let node: NodeProcess;
  let logUrl: string | undefined;
  let logBase: string | undefined;
  let did: TestDid;
  /** The document and metadata after each published operation, with the anchor's time. */
  const states: Array<{ document: unknown; versionId: string; time: number }> = [];

  beforeAll(async () => {
    dirs = await Promise.all([makeTempDir('node-life-'), makeTempDir('vct-life-')]);
    node = await startNodeProcess(dirs[0]!);
    if (withLog) {
      const log = await startVctLogProcess(dirs[1]!);
      logUrl = log.logUrl;
      logBase = log.url;
      const set = await fetch(`${node.url}/log`, {
        method: 'POST',
        body: logUrl,
        headers: { 'content-type': 'text/plain' },
      });
      expect(set.status).toBe(200);
    }
    did = new TestDid(node.url);
  });

  afterAll(async () => {
    await stopAllProcesses();
    await Promise.all(dirs.map((dir) => dir.remove()));
  });

  const record = (result: HttpAnswer) => {
    const metadata = metadataOf(result);
    const operations = metadata.method.publishedOperations as Array<{
      transactionTime: number;
      canonicalReference: string;
    }>;
    const last = operations.at(-1)!;
    expect(metadata.versionId).toBe(last.canonicalReference);
    states.push({
      document: result.body.didDocument,
      versionId: metadata.versionId as string,
      time: last.transactionTime,
    });
  };

  it('health reports the log as configured', async () => {
    const health = (await (await fetch(`${node.url}/healthcheck`)).json()) as { vctStatus: string };
    expect(health.vctStatus).toBe(withLog ? 'success' : 'log endpoint not configured');
  });

  it('create: answered with the unpublished result, resolvable at once', async () => {
    const accepted = await postOperation(node.url, did.created.request);
    expect(accepted.status).toBe(200);
    expect((accepted.body.didDocument as { id: string }).id).toBe(did.did);
    expect(metadataOf(accepted).equivalentId).toHaveLength(1);
    expect(metadataOf(accepted).method.published).toBe(false);
    const now = await resolveDid(node.url, did.did);
    expect(now.status).toBe(200);
    expect(metadataOf(now).method.published).toBe(false);
    expect(metadataOf(now).canonicalId).toBeUndefined();
  });

  it('create anchored: published with a canonicalId', async () => {
    const published = await waitPublished(node.url, did.did, 1);
    const metadata = metadataOf(published);
    expect(metadata.canonicalId).toBe(`did:node:${metadata.versionId as string}:${did.suffix}`);
    record(published);
  });

  it('the anchor is in the CAS and its credential at /vc, proved by the node (and the log)', async () => {
    const metadata = metadataOf(await resolveDid(node.url, did.did));
    const hashlink = (metadata.method.publishedOperations as Array<{ equivalentReferences: string[] }>)[0]!
      .equivalentReferences[0]!;
    const { resourceHash, links } = parseHashlink(hashlink);
    expect(links).toEqual([`${node.url}/cas/${resourceHash}`]);
    const stored = await fetch(links[0]!);
    expect(stored.status).toBe(200);
    const bytes = Buffer.from(await stored.arrayBuffer());
    expect(multibaseMultihash(bytes)).toBe(resourceHash);
    const linkset = JSON.parse(bytes.toString()) as { linkset: Array<{ replies: Array<{ href: string }> }> };
    const credential = JSON.parse(decodeDataUri(linkset.linkset[0]!.replies[0]!.href).toString()) as {
      id: string;
      issuer: string;
      proof: { domain: string; created: string; verificationMethod: string; type: string };
    };
    expect(credential.issuer).toBe(`${node.url}/services/node`);
    const served = await fetch(credential.id);
    expect(served.status).toBe(200);
    expect(await served.json()).toEqual(credential);
    const domainDid = `did:web:${new URL(node.url).host.replace(':', '%3A')}`;
    expect(credential.proof).toMatchObject({ type: 'Ed25519Signature2020', verificationMethod: `${domainDid}#vc-key` });
    const didDocument = (await (await fetch(`${node.url}/.well-known/did.json`)).json()) as {
      id: string;
      assertionMethod: string[];
    };
    expect(didDocument.id).toBe(domainDid);
    expect(didDocument.assertionMethod).toContain(credential.proof.verificationMethod);
    if (withLog) {
      expect(credential.proof.domain).toBe(logUrl);
      // The log has the entry (integrated shortly after add-vc).
      await waitFor(
        async () => ((await (await fetch(`${logUrl}/v1/get-sth`)).json()) as { tree_size: number }).tree_size >= 1,
        { timeoutMs: 10_000 },
      );
      expect(logBase).toBeDefined();
    } else {
      expect(credential.proof.domain).toBe(node.url);
    }
  });

  it('update: visible at once, then published', async () => {
    expect((await postOperation(node.url, did.update('key-2'))).status).toBe(200);
    const visible = await resolveDid(node.url, did.did);
    expect((visible.body.didDocument as { verificationMethod: unknown[] }).verificationMethod).toHaveLength(2);
    const published = await waitPublished(node.url, did.did, 2);
    expect(metadataOf(published).canonicalId).toBe(metadataOf(await resolveDid(node.url, did.did)).canonicalId);
    record(published);
  });

  it('recover: the canonicalId changes and the old canonical id still resolves', async () => {
    const oldCanonical = metadataOf(await resolveDid(node.url, did.did)).canonicalId as string;
    expect((await postOperation(node.url, did.recover(node.url, 'key-3'))).status).toBe(200);
    // A recover starts the document afresh: the update before it is no longer among the applied operations.
    const published = await waitFor(
      async () => {
        const result = await resolveDid(node.url, did.did);
        const method = metadataOf(result).method as {
          published: boolean;
          publishedOperations?: Array<{ type: string }>;
        };
        return method.publishedOperations?.at(-1)?.type === 'recover' ? result : undefined;
      },
      { timeoutMs: 15_000, description: 'the recover to be published' },
    );
    const canonicalId = metadataOf(published).canonicalId as string;
    expect(canonicalId).not.toBe(oldCanonical);
    expect(canonicalId).toBe(`did:node:${metadataOf(published).versionId as string}:${did.suffix}`);
    const ids = (published.body.didDocument as { verificationMethod: Array<{ id: string }> }).verificationMethod.map(
      (method) => method.id.split('#')[1],
    );
    expect(ids).toEqual(['key-3']);
    const viaOld = await resolveDid(node.url, oldCanonical);
    expect(viaOld.status).toBe(200);
    expect(metadataOf(viaOld).canonicalId).toBe(canonicalId);
    record(published);
  });

  it('deactivate: the document shrinks to its id; update and recover are refused', async () => {
    expect((await postOperation(node.url, did.deactivate())).status).toBe(200);
    const deactivated = await waitFor(
      async () => {
        const result = await resolveDid(node.url, did.did);
        return metadataOf(result).deactivated === true && metadataOf(result).method.published === true
          ? result
          : undefined;
      },
      { timeoutMs: 15_000, description: 'the deactivate to be published' },
    );
    expect(deactivated.body.didDocument).toEqual({ '@context': ['https://www.w3.org/ns/did/v1'], id: did.did });
    expect(Object.keys(metadataOf(deactivated).method).sort()).toEqual(['anchorOrigin', 'published']);
    for (const refused of [did.update('key-4', false), did.recover(node.url, 'key-4', false)]) {
      const answer = await postOperation(node.url, refused);
      expect(answer.status).toBe(400);
      expect(answer.body.message).toMatch(/deactivated/);
    }
    const webView = await fetch(`${node.url}/scid/${did.suffix}/did.json`);
    expect(webView.status).toBe(404);
  });

  it('versionId and versionTime return each earlier state', async () => {
    expect(states).toHaveLength(3);
    const times = states.map((state) => state.time);
    expect(new Set(times).size).toBe(3);
    for (const state of states) {
      const byId = await resolveDid(node.url, did.did, { versionId: state.versionId });
      expect(byId.status, byId.text).toBe(200);
      expect(byId.body.didDocument).toEqual(state.document);
      expect(metadataOf(byId).versionId).toBe(state.versionId);
      const at = new Date(state.time * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
      const byTime = await resolveDid(node.url, did.did, { versionTime: at });
      expect(byTime.status, byTime.text).toBe(200);
      expect(byTime.body.didDocument).toEqual(state.document);
    }
    const invalid = await resolveDid(node.url, did.did, { versionTime: 'not a time' });
    expect(invalid.status).toBe(400);
  });
});
