import { readFileSync } from 'node:fs';
import AjvDraft04 from 'ajv-draft-04';
import { parseHashlink } from '@anchor/common/encoding';
import { PROJECT_REPOSITORY, PROJECT_VERSION } from '@anchor/common/version';
import { makeTempDir, stopAllProcesses, waitFor, type TempDir } from '@anchor/testing/process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startVctLogProcess } from '../../test/node-process.js';
import {
  metadataOf,
  postOperation,
  startTestNode,
  TestDid,
  waitPublished,
  type TestNode,
} from '../testing/test-node.js';

const NS = 'https://trustbloc.dev/ns';

// ajv-draft-04 is CommonJS: the default import is its module.exports, whose `default` member is the class.
const Ajv04 = AjvDraft04.default;
const officialSchema = (version: '2.0' | '2.1'): object =>
  JSON.parse(readFileSync(new URL(`./nodeinfo-schemas/${version}.schema.json`, import.meta.url), 'utf8')) as object;
const nodeInfoValidator = (version: '2.0' | '2.1') =>
  new Ajv04({ allErrors: true, strict: false }).compile(officialSchema(version));

async function getJson(
  url: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; type: string | null; body: Record<string, unknown> }> {
  const response = await fetch(url, { headers });
  return {
    status: response.status,
    type: response.headers.get('content-type'),
    body: (await response.json()) as Record<string, unknown>,
  };
}

const webFinger = (node: TestNode, resource?: string) =>
  getJson(
    `${node.url}/.well-known/webfinger${resource === undefined ? '' : `?resource=${encodeURIComponent(resource)}`}`,
  );

describe('well-known documents', () => {
  let node: TestNode;
  beforeAll(async () => {
    node = await startTestNode({ args: ['--discovery-domains', 'https://shared.example.com'] });
  });
  afterAll(async () => {
    await node.stop();
  });

  it('/.well-known/did-orb names the resolution and operation endpoints', async () => {
    expect(await getJson(`${node.url}/.well-known/did-orb`)).toMatchObject({
      status: 200,
      body: {
        resolutionEndpoint: `${node.url}/sidetree/v1/identifiers`,
        operationEndpoint: `${node.url}/sidetree/v1/operations`,
      },
    });
  });

  it('host-meta and host-meta.json give the WebFinger template and the ActivityPub service, with any Accept header', async () => {
    const expected = {
      links: [
        { rel: 'self', type: 'application/jrd+json', template: `${node.url}/.well-known/webfinger?resource={uri}` },
        { rel: 'self', type: 'application/activity+json', href: `${node.url}/services/node` },
        {
          rel: 'alternate',
          type: 'application/jrd+json',
          template: 'https://shared.example.com/.well-known/webfinger?resource={uri}',
        },
        { rel: 'alternate', type: 'application/activity+json', href: 'https://shared.example.com/services/node' },
      ],
    };
    expect((await getJson(`${node.url}/.well-known/host-meta.json`)).body).toEqual(expected);
    // Orb refused /host-meta without `Accept: application/json`.
    expect(await getJson(`${node.url}/.well-known/host-meta`)).toMatchObject({ status: 200, body: expected });
    expect(await getJson(`${node.url}/.well-known/host-meta`, { accept: 'application/json' })).toMatchObject({
      status: 200,
      body: expected,
    });
  });

  it('/.well-known/did.json is the domain did:web document with the anchor-credential key in every relationship', async () => {
    const { status, body } = await getJson(`${node.url}/.well-known/did.json`);
    // Readable from another origin: the explorer of any node checks this node's proofs in the page.
    expect((await fetch(`${node.url}/.well-known/did.json`)).headers.get('access-control-allow-origin')).toBe('*');
    const did = `did:web:${new URL(node.url).host.replace(':', '%3A')}`;
    const keyId = `${did}#vc-key`;
    expect(status).toBe(200);
    expect(body).toMatchObject({
      id: did,
      verificationMethod: [
        {
          id: keyId,
          type: 'Ed25519VerificationKey2020',
          controller: did,
          publicKeyMultibase: node.server.context.keys.vcSigner.publicKey.publicKeyMultibase(),
        },
      ],
      authentication: [keyId],
      assertionMethod: [keyId],
      capabilityDelegation: [keyId],
      capabilityInvocation: [keyId],
    });
  });

  it('/.well-known/nodeinfo links both NodeInfo versions', async () => {
    expect((await getJson(`${node.url}/.well-known/nodeinfo`)).body).toEqual({
      links: [
        { rel: 'http://nodeinfo.diaspora.software/ns/schema/2.0', href: `${node.url}/nodeinfo/2.0` },
        { rel: 'http://nodeinfo.diaspora.software/ns/schema/2.1', href: `${node.url}/nodeinfo/2.1` },
      ],
    });
  });
});

describe('what discovery does not serve', () => {
  let node: TestNode;
  beforeAll(async () => {
    node = await startTestNode();
  });
  afterAll(async () => {
    await node.stop();
  });

  it('another NodeInfo version, or a write to a discovery document, is a 404', async () => {
    for (const path of ['/nodeinfo/1.0', '/nodeinfo/2.2', '/nodeinfo'])
      expect((await fetch(`${node.url}${path}`)).status, path).toBe(404);
    for (const path of [
      '/.well-known/did-orb',
      '/.well-known/host-meta.json',
      '/.well-known/did.json',
      '/.well-known/nodeinfo',
      '/.well-known/webfinger',
    ]) {
      expect(
        (
          await fetch(`${node.url}${path}`, {
            method: 'POST',
            body: '{}',
            headers: { 'content-type': 'application/json' },
          })
        ).status,
        path,
      ).toBe(404);
    }
  });
});

describe('token rules (spec Authentication rule 2)', () => {
  let node: TestNode;
  beforeAll(async () => {
    node = await startTestNode({
      args: ['--auth-tokens-def', '.*|read|admin', '--auth-tokens', 'read=READ_TOKEN,admin=ADMIN_TOKEN'],
    });
  });
  afterAll(async () => {
    await node.stop();
  });

  it('leave the well-known documents open even under a catch-all rule, and protect NodeInfo', async () => {
    for (const path of [
      '/.well-known/did-orb',
      '/.well-known/host-meta.json',
      '/.well-known/did.json',
      '/.well-known/nodeinfo',
      `/.well-known/webfinger?resource=${node.url}`,
    ]) {
      expect((await fetch(`${node.url}${path}`)).status, path).toBe(200);
    }
    expect((await fetch(`${node.url}/nodeinfo/2.1`)).status).toBe(401);
    expect((await fetch(`${node.url}/nodeinfo/2.1`, { headers: { authorization: 'Bearer READ_TOKEN' } })).status).toBe(
      200,
    );
  });
});

describe('NodeInfo 2.0 and 2.1 against the official schemas', () => {
  let node: TestNode;
  beforeAll(async () => {
    node = await startTestNode();
  });
  afterAll(async () => {
    await node.stop();
  });

  it.each(['2.0', '2.1'] as const)('/nodeinfo/%s is valid and says what the node is', async (version) => {
    const { status, type, body } = await getJson(`${node.url}/nodeinfo/${version}`);
    expect(status).toBe(200);
    expect(
      type?.startsWith(`application/json; profile="http://nodeinfo.diaspora.software/ns/schema/${version}#"`),
      String(type),
    ).toBe(true);
    const validate = nodeInfoValidator(version);
    expect(validate(body), JSON.stringify(validate.errors)).toBe(true);
    expect(body).toMatchObject({
      version,
      software: { name: 'anchor-node', version: PROJECT_VERSION },
      protocols: ['activitypub'],
      services: { inbound: [], outbound: [] },
      openRegistrations: false,
      usage: { users: { total: 1 } },
      metadata: {},
    });
    expect((body.software as { repository?: string }).repository).toBe(
      version === '2.1' ? PROJECT_REPOSITORY : undefined,
    );
  });

  it('the validators are strict: the name "Orb", a 2.1 document as 2.0, and a negative count all fail', async () => {
    const doc21 = (await getJson(`${node.url}/nodeinfo/2.1`)).body;
    const doc20 = (await getJson(`${node.url}/nodeinfo/2.0`)).body;
    expect(nodeInfoValidator('2.1')({ ...doc21, software: { name: 'Orb', version: '1.0.0' } })).toBe(false);
    expect(nodeInfoValidator('2.0')({ ...doc21, version: '2.0' })).toBe(false);
    expect(nodeInfoValidator('2.0')({ ...doc20, usage: { users: { total: 1 }, localPosts: -1 } })).toBe(false);
    expect(nodeInfoValidator('2.0')({ ...doc20, protocols: { inbound: ['activitypub'], outbound: [] } })).toBe(false);
  });
});

describe('WebFinger', () => {
  let node: TestNode;
  let did: TestDid;
  let anchorHashlink: string;
  beforeAll(async () => {
    node = await startTestNode({
      args: ['--discovery-domains', 'https://shared.example.com', '--discovery-minimum-resolvers', '2'],
    });
    did = new TestDid(node.url);
    expect((await postOperation(node.url, did.created.request)).status).toBe(200);
    await waitPublished(node.url, did.did);
    const latest = await node.server.services.stores.didAnchors.get(did.suffix);
    anchorHashlink = latest?.anchor ?? '';
  });
  afterAll(async () => {
    await node.stop();
  });

  it('answers 400 without a resource, or with it twice', async () => {
    expect(await webFinger(node)).toMatchObject({
      status: 400,
      body: { message: expect.stringMatching(/resource query parameter is required/) },
    });
    expect((await webFinger(node, '')).status).toBe(400);
    expect((await getJson(`${node.url}/.well-known/webfinger?resource=${node.url}&resource=${node.url}`)).status).toBe(
      400,
    );
  });

  it("answers 404 for a resource that is not this node's", async () => {
    for (const resource of [
      'acct:someone@example.com',
      'https://elsewhere.example.com',
      `${node.url}/unknown`,
      'did:example:123',
      `${node.url}/sidetree/v1`,
    ]) {
      expect((await webFinger(node, resource)).status, resource).toBe(404);
    }
  });

  it('1. the node: subject and self link, no log while none is configured', async () => {
    for (const resource of [node.url, `${node.url}/`, `${node.url}/vct`, `${node.url}/services/node`]) {
      const { status, type, body } = await webFinger(node, resource);
      expect(status).toBe(200);
      expect(type).toMatch(/^application\/jrd\+json/);
      expect(body).toEqual({
        subject: resource,
        links: [{ rel: 'self', type: 'application/jrd+json', href: resource }],
      });
    }
  });

  it('2. the identifiers endpoint: min-resolvers, self, and the discovery domains as alternates', async () => {
    const resource = `${node.url}/sidetree/v1/identifiers`;
    expect((await webFinger(node, resource)).body).toEqual({
      subject: resource,
      properties: { [`${NS}/min-resolvers`]: 2 },
      links: [
        { rel: 'self', href: resource },
        { rel: 'alternate', href: 'https://shared.example.com/sidetree/v1/identifiers' },
      ],
    });
  });

  it('3. the operations endpoint: self and alternates only', async () => {
    const resource = `${node.url}/sidetree/v1/operations`;
    expect((await webFinger(node, resource)).body).toEqual({
      subject: resource,
      links: [
        { rel: 'self', href: resource },
        { rel: 'alternate', href: 'https://shared.example.com/sidetree/v1/operations' },
      ],
    });
  });

  it('4. a DID, in any form: anchor origin, min-resolvers, its canonical identifiers URL, its latest anchor, the service', async () => {
    const resolved = await waitPublished(node.url, did.did);
    const canonicalId = metadataOf(resolved).canonicalId as string;
    expect(canonicalId).toMatch(/^did:node:uEi/);
    const expected = {
      properties: { [`${NS}/anchor-origin`]: node.url, [`${NS}/min-resolvers`]: 2 },
      links: [
        { rel: 'self', type: 'application/did+ld+json', href: `${node.url}/sidetree/v1/identifiers/${canonicalId}` },
        { rel: 'via', type: 'application/ld+json', href: anchorHashlink },
        { rel: 'service', type: 'application/activity+json', href: `${node.url}/services/node` },
        {
          rel: 'alternate',
          type: 'application/did+ld+json',
          href: `https://shared.example.com/sidetree/v1/identifiers/${canonicalId}`,
        },
      ],
    };
    expect(anchorHashlink).toMatch(/^hl:uEi/);
    expect(await webFinger(node, did.did)).toMatchObject({ status: 200, body: expected });
    expect(await webFinger(node, canonicalId)).toMatchObject({ status: 200, body: expected });
  });

  it('4. a DID: 404 when unknown or not anchored yet, 400 when malformed', async () => {
    const unknown = new TestDid(node.url);
    expect(await webFinger(node, unknown.did)).toMatchObject({ status: 404 });
    expect(await webFinger(node, 'did:node:not-a-suffix')).toMatchObject({ status: 400 });
    // Accepted but not anchored (its batch is cut only after an hour): resolvable, yet nothing to point to.
    const waiting = await startTestNode({ args: ['--batch-writer-timeout', '1h'] });
    try {
      const pending = new TestDid(waiting.url);
      expect((await postOperation(waiting.url, pending.created.request)).status).toBe(200);
      expect(await webFinger(waiting, pending.did)).toMatchObject({
        status: 404,
        body: { message: `${pending.did} is not anchored yet; WebFinger describes anchored DIDs` },
      });
    } finally {
      await waiting.stop();
    }
  });

  it("5. a CAS object held here: self and the discovery domains' copies as alternates", async () => {
    const hash = parseHashlink(anchorHashlink).resourceHash;
    const resource = `${node.url}/cas/${hash}`;
    expect((await fetch(resource)).status).toBe(200);
    expect(await webFinger(node, resource)).toEqual({
      status: 200,
      type: expect.stringMatching(/^application\/jrd\+json/),
      body: {
        subject: resource,
        links: [
          { rel: 'self', type: 'application/ld+json', href: resource },
          { rel: 'alternate', type: 'application/ld+json', href: `https://shared.example.com/cas/${hash}` },
        ],
      },
    });
  });

  it('5. a CAS object: 404 when not held, 400 when the hash is malformed', async () => {
    expect((await webFinger(node, `${node.url}/cas/uEiBVO1O-99xFnNIgC9hULJmhAQXj8QCIILeo37YUV8VVUg`)).status).toBe(404);
    expect((await webFinger(node, `${node.url}/cas/not-a-hash`)).status).toBe(400);
    expect((await webFinger(node, `${node.url}/cas/`)).status).toBe(400);
  });
});

describe('NodeInfo counts and WebFinger alternates come from the federation (two nodes)', () => {
  // B follows A; A anchors a DID and publishes it (a Create in A's outbox); B processes the anchor, keeps
  // it in its own CAS and answers with a Like (in B's outbox) whose result names B's copy.
  let a: TestNode;
  let b: TestNode;
  let did: TestDid;
  let hash: string;
  const nodeInfoUsage = async (node: TestNode) =>
    (await getJson(`${node.url}/nodeinfo/2.1`)).body.usage as Record<string, number>;

  beforeAll(async () => {
    [a, b] = await Promise.all([
      startTestNode({ args: ['--nodeinfo-refresh-interval', '100ms'] }),
      startTestNode({ args: ['--nodeinfo-refresh-interval', '100ms'] }),
    ]);
    const follow = await fetch(`${b.url}/services/node/outbox`, {
      method: 'POST',
      body: JSON.stringify({
        '@context': 'https://www.w3.org/ns/activitystreams',
        type: 'Follow',
        object: `${a.url}/services/node`,
      }),
      headers: { 'content-type': 'application/activity+json' },
    });
    expect(follow.status, await follow.text()).toBe(200);
    await waitFor(
      async () =>
        JSON.stringify((await getJson(`${a.url}/services/node/followers?page=true`)).body).includes(
          `${b.url}/services/node`,
        )
          ? true
          : undefined,
      {
        timeoutMs: 15_000,
        description: 'B among the followers of A',
      },
    );
    did = new TestDid(a.url);
    expect((await postOperation(a.url, did.created.request)).status).toBe(200);
    await waitPublished(a.url, did.did);
    hash = parseHashlink((await a.server.services.stores.didAnchors.get(did.suffix))?.anchor ?? '').resourceHash;
    await waitPublished(b.url, did.did);
  });
  afterAll(async () => {
    await a?.stop();
    await b?.stop();
  });

  it('/cas/<hash> on the origin lists the follower that holds a copy as an alternate', async () => {
    const resource = `${a.url}/cas/${hash}`;
    const alternate = { rel: 'alternate', type: 'application/ld+json', href: `${b.url}/cas/${hash}` };
    const answer = await waitFor(
      async () => {
        const jrd = await webFinger(a, resource);
        return (jrd.body.links as unknown[] | undefined)?.length === 2 ? jrd : undefined;
      },
      { timeoutMs: 15_000, description: "B's Like reaching A" },
    );
    expect(answer.body).toEqual({
      subject: resource,
      links: [{ rel: 'self', type: 'application/ld+json', href: resource }, alternate],
    });
    expect((await fetch(alternate.href)).status).toBe(200);
  });

  it("a DID anchored on the origin names the follower's identifiers endpoint as an alternate", async () => {
    const links = (await webFinger(a, did.did)).body.links as Array<{ rel: string; href: string }>;
    expect(links.filter((link) => link.rel === 'alternate').map((link) => link.href)).toEqual([
      expect.stringMatching(new RegExp(`^${b.url}/sidetree/v1/identifiers/did:node:uEi`)),
    ]);
  });

  it("NodeInfo counts the Create in the origin's outbox as a post and the Like in the follower's as a comment", async () => {
    await waitFor(
      async () =>
        (await nodeInfoUsage(a)).localPosts === 1 && (await nodeInfoUsage(b)).localComments === 1 ? true : undefined,
      {
        timeoutMs: 5_000,
        description: 'NodeInfo recounted',
      },
    );
    expect(await nodeInfoUsage(a)).toEqual({ users: { total: 1 }, localPosts: 1, localComments: 0 });
    expect(await nodeInfoUsage(b)).toEqual({ users: { total: 1 }, localPosts: 0, localComments: 1 });
    for (const node of [a, b])
      for (const version of ['2.0', '2.1'] as const)
        expect(nodeInfoValidator(version)((await getJson(`${node.url}/nodeinfo/${version}`)).body)).toBe(true);
  });
});

describe("WebFinger: the node's transparency log (a real vct-log process)", () => {
  let dir: TempDir;
  let log: Awaited<ReturnType<typeof startVctLogProcess>>;
  let node: TestNode;
  let disabled: TestNode;
  const setLog = async (target: TestNode, url: string) =>
    expect(
      (await fetch(`${target.url}/log`, { method: 'POST', body: url, headers: { 'content-type': 'text/plain' } }))
        .status,
    ).toBe(200);

  beforeAll(async () => {
    dir = await makeTempDir('discovery-log-');
    log = await startVctLogProcess(dir);
    // No WebFinger cache, so each case reads the log as it is now.
    node = await startTestNode({ args: ['--apclient-cache-expiration', '1ms'] });
    disabled = await startTestNode({ args: ['--vct-enabled=false'] });
    await setLog(node, log.logUrl);
    await setLog(disabled, log.logUrl);
  });
  afterAll(async () => {
    await node?.stop();
    await disabled?.stop();
    await stopAllProcesses();
    await dir?.remove();
  });

  const selfLink = (target: TestNode) => ({ rel: 'self', type: 'application/jrd+json', href: target.url });

  it('announces the log and the ledger type the log itself announces', async () => {
    expect((await webFinger(node, node.url)).body).toEqual({
      subject: node.url,
      properties: { [`${NS}/ledger-type`]: 'vct-v1' },
      links: [selfLink(node), { rel: 'vct', type: 'application/jrd+json', href: log.logUrl }],
    });
  });

  it('announces no log with --vct-enabled=false', async () => {
    expect((await webFinger(disabled, disabled.url)).body).toEqual({
      subject: disabled.url,
      links: [selfLink(disabled)],
    });
  });

  it('leaves the ledger type out when the log does not know the alias', async () => {
    const unknownAlias = `${log.url}/no-such-alias`;
    await setLog(node, unknownAlias);
    expect((await webFinger(node, node.url)).body).toEqual({
      subject: node.url,
      links: [selfLink(node), { rel: 'vct', type: 'application/jrd+json', href: unknownAlias }],
    });
    await setLog(node, log.logUrl);
  });

  it('answers 502 when the log does not answer (rather than hide that the node keeps one)', async () => {
    await log.process.stop();
    const failed = await webFinger(node, node.url);
    expect(failed.status).toBe(502);
    expect(failed.body.message).toMatch(/did not answer its WebFinger query/);
  });
});
