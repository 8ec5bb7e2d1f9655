/**
 * DID discovery and TLS across real processes: a vct-log and two nodes, all served over https with
 * certificates of a private CA made here with openssl, each node trusting it through `--tls-cacerts` only.
 * Node B does not follow node A at first: it finds A's DIDs from their hints (https and hashlink), checks
 * and processes A's anchors as its observer does, and keeps up with A as the DIDs' anchor origin. Then B
 * follows A, and a DID of A reaches B over https federation.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KmsClient, NodeAdminClient } from '@anchor/common/clients';
import { KeyPair } from '@anchor/common/crypto';
import { didKeyFromKeyPair } from '@anchor/common/did';
import { createHttpClient, peerStatusOf } from '@anchor/common/http-client';
import { makePrivateCa } from '@anchor/testing/private-ca';
import {
  builtServiceMain,
  freePort,
  makeTempDir,
  startProcess,
  waitFor,
  type ServiceProcess,
} from '@anchor/testing/process';
import { serializeRequest, type OperationRequest } from '@anchor/sidetree';
import { TestDid } from '../src/testing/test-node.js';

interface Answer {
  status: number;
  body: Record<string, any>;
  text: string;
}

const processes: ServiceProcess[] = [];
let ca: Buffer;
let client: ReturnType<typeof createHttpClient>;
let nodeA: string;
let nodeB: string;
let logUrl: string;

async function call(url: string, options: { method?: string; body?: string } = {}): Promise<Answer> {
  try {
    const response = await client.request<Buffer>(url, {
      method: options.method ?? 'GET',
      responseType: 'buffer',
      ...(options.body !== undefined ? { body: options.body, headers: { 'content-type': 'application/json' } } : {}),
    });
    const text = response.data.toString('utf8');
    return { status: response.status, body: text ? JSON.parse(text) : {}, text };
  } catch (error) {
    const status = peerStatusOf(error);
    if (status === undefined) throw error;
    return { status, body: {}, text: (error as Error).message };
  }
}

const resolve = (node: string, did: string): Promise<Answer> => call(`${node}/sidetree/v1/identifiers/${did}`);
const submit = (node: string, request: OperationRequest): Promise<Answer> =>
  call(`${node}/sidetree/v1/operations`, { method: 'POST', body: serializeRequest(request).toString('utf8') });

/** Waits until the node resolves the DID with `published` operations anchored; answers the result. */
async function published(node: string, did: string, operations: number): Promise<Answer> {
  return waitFor(
    async () => {
      const answer = await resolve(node, did);
      const listed = answer.body.didDocumentMetadata?.method?.publishedOperations?.length ?? 0;
      return answer.status === 200 && listed >= operations ? answer : undefined;
    },
    { timeoutMs: 30_000, intervalMs: 200 },
  );
}

const keyIds = (answer: Answer): string[] =>
  (answer.body.didDocument?.verificationMethod ?? []).map((method: { id: string }) => method.id.split('#')[1]);

async function startHttps(main: string, name: string, port: number, args: string[], env: Record<string, string>) {
  const started = await startProcess(main, { name, args, env });
  processes.push(started);
  await waitFor(
    async () => (await call(`https://127.0.0.1:${port}/healthcheck`).catch(() => undefined))?.status === 200,
    {
      timeoutMs: 30_000,
      intervalMs: 200,
    },
  );
}

beforeAll(async () => {
  const dir = await makeTempDir('node-tls-');
  const pki = makePrivateCa(dir.path);
  ca = pki.ca;
  client = createHttpClient({ tls: { ca: [ca] }, timeoutMs: 20_000 });
  const [logPort, kmsPort, portA, portB] = [await freePort(), await freePort(), await freePort(), await freePort()];
  logUrl = `https://127.0.0.1:${logPort}/main`;
  nodeA = `https://127.0.0.1:${portA}`;
  nodeB = `https://127.0.0.1:${portB}`;
  const node = (port: number, name: string, extra: string[]): string[] => [
    '--host-url',
    `127.0.0.1:${port}`,
    '--external-endpoint',
    `https://127.0.0.1:${port}`,
    '--data-dir',
    join(dir.path, name),
    '--tls-certificate',
    pki.certFile,
    '--tls-key',
    pki.keyFile,
    '--tls-cacerts',
    pki.caFile,
    '--batch-writer-timeout',
    '200ms',
    ...extra,
  ];
  // Node A signs through a kms served over https: its kms client must trust the CA as well.
  const kmsUrl = `https://127.0.0.1:${kmsPort}`;
  const kmsStarted = startHttps(
    builtServiceMain('kms'),
    'kms',
    kmsPort,
    [
      '--host-url',
      `127.0.0.1:${kmsPort}`,
      '--data-dir',
      join(dir.path, 'kms'),
      '--dev-mode',
      '--tls-serve-cert',
      pki.certFile,
      '--tls-serve-key',
      pki.keyFile,
    ],
    { KMS_LOG_LEVEL: 'warning' },
  ).then(async () => {
    const kms = new KmsClient({ url: kmsUrl, tls: { ca: [ca] } });
    try {
      const keystore = await kms.createKeystore({ controller: didKeyFromKeyPair(KeyPair.generate('Ed25519')) });
      return ['--kms-url', kmsUrl, '--kms-keystore', keystore.id, `--kms-capability=${keystore.capability as string}`];
    } finally {
      kms.close();
    }
  });
  await Promise.all([
    startHttps(
      builtServiceMain('vct-log'),
      'vct-log',
      logPort,
      [
        '--host-url',
        `127.0.0.1:${logPort}`,
        '--data-dir',
        join(dir.path, 'log'),
        '--tls-serve-cert',
        pki.certFile,
        '--tls-serve-key',
        pki.keyFile,
      ],
      { VCT_LOG_LEVEL: 'warning' },
    ),
    kmsStarted.then((kmsArgs) =>
      startHttps(builtServiceMain('node'), 'node-a', portA, node(portA, 'a', kmsArgs), { ANCHOR_LOG_LEVEL: 'warning' }),
    ),
    startHttps(
      builtServiceMain('node'),
      'node-b',
      portB,
      node(portB, 'b', [
        '--enable-did-discovery',
        '--resolve-from-anchor-origin',
        '--verify-latest-from-anchor-origin',
      ]),
      { ANCHOR_LOG_LEVEL: 'warning' },
    ),
  ]);
}, 90_000);

afterAll(async () => {
  await Promise.all(processes.map((started) => started.stop()));
  client?.close();
});

describe('https with a private CA, and DID discovery between nodes that do not follow each other', () => {
  const did1 = () => new TestDid(`${nodeA}/services/node`);
  let first: TestDid;
  let firstCanonical: string;

  it('serves https only with the private CA: a client without it is refused, one with it is answered', async () => {
    const plain = createHttpClient({ timeoutMs: 5_000 });
    await expect(plain.get(`${nodeA}/healthcheck`)).rejects.toThrow(/certificate/i);
    plain.close();
    expect((await call(`${nodeB}/healthcheck`)).status).toBe(200);
  });

  it('node A signs through the kms and logs its anchor credentials to the log, both over https', async () => {
    const admin = new NodeAdminClient({ url: nodeA, ca: [ca] });
    await admin.setLog(logUrl);
    const health = await waitFor(
      async () => {
        const answer = await call(`${nodeA}/healthcheck`);
        return answer.body.vctStatus === 'success' ? answer : undefined;
      },
      { timeoutMs: 15_000, intervalMs: 200 },
    );
    expect(health.status).toBe(200);
    expect(health.body.kmsStatus).toBe('success');
  });

  it('B finds a DID of A from its https hint: fetched, checked, processed, resolved', async () => {
    first = did1();
    expect((await submit(nodeA, first.created.request)).status).toBe(200);
    const onA = await published(nodeA, `did:node:uAAA:${first.suffix}`, 1);
    firstCanonical = onA.body.didDocumentMetadata.canonicalId;
    const equivalents: string[] = onA.body.didDocumentMetadata.equivalentId;
    const httpsHinted = equivalents.find((id) => id.startsWith('did:node:https:'));
    expect(httpsHinted).toBeDefined();

    // Without a hint there is nothing to ask.
    expect((await resolve(nodeB, firstCanonical)).status).toBe(404);

    const onB = await resolve(nodeB, httpsHinted as string);
    expect(onB.status, onB.text).toBe(200);
    expect(onB.body.didDocumentMetadata.canonicalId).toBe(firstCanonical);
    expect(keyIds(onB)).toEqual(keyIds(onA));
    // Processed, not proxied: the canonical form now resolves from B's own stores.
    expect((await resolve(nodeB, firstCanonical)).status).toBe(200);
  });

  it('B finds a DID of A from its hashlink hint', async () => {
    const second = did1();
    expect((await submit(nodeA, second.created.request)).status).toBe(200);
    const onA = await published(nodeA, `did:node:uAAA:${second.suffix}`, 1);
    const hashlinked = (onA.body.didDocumentMetadata.equivalentId as string[]).find((id) =>
      id.startsWith('did:node:hl:'),
    );
    expect(hashlinked).toBeDefined();
    const onB = await resolve(nodeB, hashlinked as string);
    expect(onB.status, onB.text).toBe(200);
    expect(onB.body.didDocumentMetadata.canonicalId).toBe(onA.body.didDocumentMetadata.canonicalId);
  });

  it('a hint whose content does not hash to the anchor it names finds nothing', async () => {
    const third = did1();
    expect((await submit(nodeA, third.created.request)).status).toBe(200);
    const onA = await published(nodeA, `did:node:uAAA:${third.suffix}`, 1);
    const hashlinked = (onA.body.didDocumentMetadata.equivalentId as string[]).find((id) =>
      id.startsWith('did:node:hl:'),
    ) as string;
    // Another anchor's hash with this anchor's links: A serves content, but not content with that hash.
    const otherHash = firstCanonical.split(':')[2] as string;
    const [, , , hash] = hashlinked.split(':');
    const forged = hashlinked.replace(`:${hash}:`, `:${otherHash}:`);
    expect(forged).not.toBe(hashlinked);
    const onB = await resolve(nodeB, forged);
    expect(onB.status).toBe(404);
  });

  it('--resolve-from-anchor-origin: B answers with what A anchored since B discovered the DID', async () => {
    expect((await submit(nodeA, first.update('key-2'))).status).toBe(200);
    await published(nodeA, firstCanonical, 2);
    const onB = await resolve(nodeB, firstCanonical);
    expect(onB.status).toBe(200);
    expect(keyIds(onB)).toContain('key-2');
  });

  it('--verify-latest-from-anchor-origin: B refuses a change while A has operations B lacks, and takes it once caught up', async () => {
    expect((await submit(nodeA, first.update('key-3'))).status).toBe(200);
    await published(nodeA, firstCanonical, 3);
    const change = first.update('key-4');
    const refused = await submit(nodeB, change);
    expect(refused.status, refused.text).toBe(400);
    expect(refused.text).toMatch(
      /anchor origin has additional published operations - please re-submit your request at later time/,
    );
    const accepted = await waitFor(
      async () => {
        const answer = await submit(nodeB, change);
        return answer.status === 200 ? answer : undefined;
      },
      { timeoutMs: 20_000, intervalMs: 300 },
    );
    expect(keyIds(accepted)).toEqual(expect.arrayContaining(['key-3', 'key-4']));
  });

  it('B follows A over https, and a DID created on A reaches B without any hint', async () => {
    const adminA = new NodeAdminClient({ url: nodeA, ca: [ca] });
    const adminB = new NodeAdminClient({ url: nodeB, ca: [ca] });
    await adminB.follow(await adminA.serviceId());
    await adminB.waitUntilIn('following', await adminA.serviceId());
    const fourth = did1();
    expect((await submit(nodeA, fourth.created.request)).status).toBe(200);
    const onA = await published(nodeA, `did:node:uAAA:${fourth.suffix}`, 1);
    const canonical = onA.body.didDocumentMetadata.canonicalId as string;
    const onB = await published(nodeB, canonical, 1);
    expect(onB.body.didDocumentMetadata.canonicalId).toBe(canonical);
  });
});
