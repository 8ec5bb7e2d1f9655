/**
 * The ActivityPub service of two in-process nodes talking over loopback: authentication of the inbox,
 * the relationship activities and their effects on both sides, duplicates, malformed input, collections.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { KeyPair } from '@anchor/common/crypto';
import { formatHashlink, multibaseMultihash } from '@anchor/common/encoding';
import { createRequestSigner, createSignedFetch } from '@anchor/common/httpsig';
import { makeTempDir, waitFor } from '@anchor/testing/process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestNode, type TestNode } from '../testing/test-node.js';
import { ANCHOR_WITNESS } from './vocabulary.js';

const AS = 'https://www.w3.org/ns/activitystreams';
type Json = Record<string, unknown>;

async function call(
  url: string,
  init: { method?: string; json?: unknown } = {},
): Promise<{ status: number; body: Json }> {
  const response = await fetch(url, {
    method: init.method ?? (init.json === undefined ? 'GET' : 'POST'),
    ...(init.json === undefined
      ? {}
      : { body: JSON.stringify(init.json), headers: { 'content-type': 'application/json' } }),
  });
  const text = await response.text();
  return { status: response.status, body: text === '' ? {} : (JSON.parse(text) as Json) };
}

describe('ActivityPub service between two nodes', () => {
  let a: TestNode;
  let b: TestNode;
  let serviceA: string;
  let serviceB: string;
  /** Node B's HTTP-signature key: the test signs as node B with it. */
  const keyB = KeyPair.generate('Ed25519');
  const signedAsB = (now?: () => Date) =>
    createSignedFetch(createRequestSigner({ keyId: `${serviceB}/keys/main-key`, key: keyB, ...(now ? { now } : {}) }));
  const postSigned = (fetchSigned: ReturnType<typeof signedAsB>, url: string, activity: unknown) =>
    fetchSigned(url, {
      method: 'POST',
      body: JSON.stringify(activity),
      headers: { 'content-type': 'application/json' },
    });

  /** Every item of a collection, page by page (node A pages by 2). */
  const itemsOf = async <T>(collection: string): Promise<T[]> => {
    const items: T[] = [];
    for (let next: unknown = `${collection}?page=true`; typeof next === 'string';) {
      const page = (await call(next)).body;
      items.push(...(((page.orderedItems ?? page.items) as T[] | undefined) ?? []));
      next = page.next;
    }
    return items;
  };
  const inboxOf = async (service: string, type: string): Promise<Json[]> =>
    (await itemsOf<Json>(`${service}/inbox`)).filter((activity) => activity.type === type);
  const membersOf = (service: string, collection: string): Promise<string[]> =>
    itemsOf<string>(`${service}/${collection}`);
  const post = async (service: string, activity: Json): Promise<string> => {
    const answer = await call(`${service}/outbox`, { json: activity });
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    return answer.body as unknown as string;
  };

  beforeAll(async () => {
    const dirB = await makeTempDir('ap-feature-b-');
    const keyFile = join(dirB.path, 'http-key.pem');
    await writeFile(keyFile, keyB.privateKeyPem());
    [a, b] = await Promise.all([
      startTestNode({
        args: [
          '--follow-auth-policy',
          'accept-list',
          '--invite-witness-auth-policy',
          'accept-list',
          '--activitypub-page-size',
          '2',
        ],
      }),
      startTestNode({ dir: dirB, args: ['--http-sign-key-file', keyFile] }),
    ]);
    serviceA = `${a.url}/services/node`;
    serviceB = `${b.url}/services/node`;
  });

  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
    await Promise.all([a?.dir.remove(), b?.dir.remove()]);
  });

  it('answers an outbox post with the new id (body and Location), and malformed posts with 400', async () => {
    const response = await fetch(`${serviceA}/outbox`, {
      method: 'POST',
      body: JSON.stringify({
        '@context': AS,
        type: 'Like',
        to: `${serviceA}/followers`,
        object: { type: 'AnchorEvent', url: `hl:${multibaseMultihash(Buffer.from('outbox-post'))}` },
      }),
      headers: { 'content-type': 'application/activity+json' },
    });
    expect(response.status).toBe(200);
    const id = (await response.json()) as string;
    expect(id).toMatch(new RegExp(`^${serviceA}/activities/`));
    expect(response.headers.get('location')).toBe(id);
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    const malformed = await fetch(`${serviceA}/outbox`, {
      method: 'POST',
      body: '{"type":',
      headers: { 'content-type': 'application/json' },
    });
    expect(malformed.status).toBe(400);
    expect(((await malformed.json()) as { message: string }).message).toMatch(/malformed JSON/);
    expect((await call(`${serviceA}/outbox`, { json: { type: 'Like' } })).status).toBe(400);
  });

  it('serves the service actor with its key and collections', async () => {
    const actor = await call(serviceA);
    expect(actor.status).toBe(200);
    expect(actor.body).toMatchObject({
      id: serviceA,
      type: 'Service',
      inbox: `${serviceA}/inbox`,
      outbox: `${serviceA}/outbox`,
      witnesses: `${serviceA}/witnesses`,
    });
    expect((actor.body.publicKey as Json).id).toBe(`${serviceA}/keys/main-key`);
    expect((await call(`${serviceA}/keys/main-key`)).body).toMatchObject({
      id: `${serviceA}/keys/main-key`,
      owner: serviceA,
    });
  });

  it('refuses unsigned, forged, stale and misattributed inbox POSTs with 401', async () => {
    const like = {
      '@context': AS,
      id: `${serviceB}/activities/like-401`,
      type: 'Like',
      actor: serviceB,
      object: { type: 'AnchorEvent', url: 'hl:uEiAAAA' },
    };
    expect((await call(`${serviceA}/inbox`, { json: like })).status).toBe(401);
    const forger = createSignedFetch(
      createRequestSigner({ keyId: `${serviceB}/keys/main-key`, key: KeyPair.generate('Ed25519') }),
    );
    expect((await postSigned(forger, `${serviceA}/inbox`, like)).status).toBe(401);
    expect(
      (
        await postSigned(
          signedAsB(() => new Date(Date.now() - 10 * 60_000)),
          `${serviceA}/inbox`,
          like,
        )
      ).status,
    ).toBe(401);
    // Signed by B, but speaking for A.
    expect(
      (await postSigned(signedAsB(), `${serviceA}/inbox`, { ...like, id: `${serviceA}/activities/x`, actor: serviceA }))
        .status,
    ).toBe(401);
    expect(await inboxOf(serviceA, 'Like')).toEqual([]);
  });

  it('answers a malformed activity with 400 and stores nothing', async () => {
    const fetchB = signedAsB();
    for (const malformed of [
      { '@context': AS, id: `${serviceB}/activities/m1`, actor: serviceB },
      { '@context': AS, id: `${serviceB}/activities/m2`, type: 'Dance', actor: serviceB },
      {
        '@context': AS,
        id: 'https://elsewhere.example.com/activities/m3',
        type: 'Like',
        actor: serviceB,
        object: { type: 'AnchorEvent', url: 'hl:uEiAAAA' },
      },
    ]) {
      const answer = await postSigned(fetchB, `${serviceA}/inbox`, malformed);
      expect(answer.status, JSON.stringify(malformed)).toBe(400);
      expect(((await answer.json()) as Json).message).toEqual(expect.any(String));
    }
    const badOutbox = await call(`${serviceA}/outbox`, {
      json: { type: 'Invite', object: 'https://example.com/not-a-role', target: serviceB },
    });
    expect(badOutbox.status).toBe(400);
    expect((await call(`${serviceA}/inbox`)).body.totalItems).toBe(0);
  });

  it('rejects a Follow from a service not on the accept list', async () => {
    const followId = await post(serviceB, { type: 'Follow', object: serviceA });
    const reject = await waitFor(
      async () => (await inboxOf(serviceB, 'Reject')).find((activity) => (activity.object as Json).id === followId),
      { description: 'the Reject' },
    );
    expect(reject.actor).toBe(serviceA);
    expect(await membersOf(serviceA, 'followers')).toEqual([]);
    expect(await membersOf(serviceB, 'following')).toEqual([]);
  });

  it('validates the witness policy on POST /policy', async () => {
    const bad = await fetch(`${a.url}/policy`, {
      method: 'POST',
      body: 'MinPercent(150,batch)',
      headers: { 'content-type': 'text/plain' },
    });
    expect(bad.status).toBe(400);
    expect((await fetch(`${a.url}/policy`)).status).toBe(404);
    const policy = 'MinPercent(100,batch)   AND MinPercent(50,system)';
    const set = await fetch(`${a.url}/policy`, {
      method: 'POST',
      body: policy,
      headers: { 'content-type': 'text/plain' },
    });
    expect(await set.text()).toBe('MinPercent(100,batch) AND MinPercent(50,system)');
    expect(await (await fetch(`${a.url}/policy`)).text()).toBe('MinPercent(100,batch) AND MinPercent(50,system)');
    // A JSON string body is read as its text, quotes kept, so the policy parser names it; other bodies are refused.
    const json = await fetch(`${a.url}/policy`, {
      method: 'POST',
      body: '"MinPercent(100,batch)"',
      headers: { 'content-type': 'application/json' },
    });
    expect(json.status).toBe(400);
    expect(await json.text()).toBe(
      '{"message":"invalid witness policy: unknown token \'\\"MinPercent(100,batch)\\"\' (expected OutOf(n,batch|system), MinPercent(p,batch|system), LogRequired, AND, OR)"}',
    );
    const bytes = await fetch(`${a.url}/policy`, {
      method: 'POST',
      body: 'x',
      headers: { 'content-type': 'application/octet-stream' },
    });
    expect(bytes.status).toBe(400);
    expect(await bytes.text()).toBe('{"message":"POST /policy takes the witness policy as a text/plain body"}');
  });

  it('accepts a Follow and an Invite from a listed service: followers / following, witnessing / witnesses', async () => {
    const listed = await call(`${serviceA}/acceptlist`, {
      json: [
        { type: 'follow', add: [serviceB] },
        { type: 'invite-witness', add: [serviceB] },
      ],
    });
    expect(listed.status).toBe(200);
    const followId = await post(serviceB, { type: 'Follow', object: serviceA });
    await post(serviceB, { type: 'Invite', object: ANCHOR_WITNESS, target: serviceA });
    await waitFor(
      async () =>
        (await membersOf(serviceB, 'following')).includes(serviceA) &&
        (await membersOf(serviceB, 'witnesses')).includes(serviceA),
      {
        description: 'B following A and A witnessing for B',
      },
    );
    expect(await membersOf(serviceA, 'followers')).toEqual([serviceB]);
    expect(await membersOf(serviceA, 'witnessing')).toEqual([serviceB]);
    const accept = (await inboxOf(serviceB, 'Accept')).find((activity) => (activity.object as Json).id === followId);
    expect(accept?.actor).toBe(serviceA);
  });

  it('ignores a second activity with an id already received', async () => {
    const fetchB = signedAsB();
    const id = `${serviceB}/activities/like-once`;
    const [liked, other] = [
      multibaseMultihash(Buffer.from('anchor one')),
      multibaseMultihash(Buffer.from('anchor two')),
    ];
    const first = {
      '@context': AS,
      id,
      type: 'Like',
      actor: serviceB,
      object: { type: 'AnchorEvent', url: `hl:${liked}` },
    };
    expect((await postSigned(fetchB, `${serviceA}/inbox`, first)).status).toBe(200);
    await waitFor(async () => (await inboxOf(serviceA, 'Like')).length === 1, { description: 'the Like in the inbox' });
    const again = { ...first, object: { type: 'AnchorEvent', url: `hl:${other}` } };
    expect((await postSigned(fetchB, `${serviceA}/inbox`, again)).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect((await inboxOf(serviceA, 'Like')).map((like) => (like.object as Json).url)).toEqual([`hl:${liked}`]);
    expect((await call(`${serviceA}/likes/${liked}?page=true`)).body.totalItems).toBe(1);
    expect((await call(`${serviceA}/likes/${other}?page=true`)).body.totalItems).toBe(0);
  });

  it('takes a Like whose result lists several hashlinks, checking each; each matching one names an alternate', async () => {
    const fetchB = signedAsB();
    const liked = multibaseMultihash(Buffer.from('anchor liked with several urls'));
    const elsewhere = multibaseMultihash(Buffer.from('another anchor'));
    const held = (origin: string, hash: string) =>
      formatHashlink({ resourceHash: hash, links: [`${origin}/cas/${hash}`] });
    const like = (id: string, urls: string[]) => ({
      '@context': AS,
      id: `${serviceB}/activities/${id}`,
      type: 'Like',
      actor: serviceB,
      object: { type: 'AnchorEvent', url: `hl:${liked}` },
      result: { type: 'AnchorEvent', url: urls },
    });
    // The inbox acknowledges first and runs the handler from its queue: a refused Like is stored, changing nothing.
    const badUrls = [held('https://e.example.com', liked), 'https://not.a.hashlink/'];
    expect((await postSigned(fetchB, `${serviceA}/inbox`, like('like-bad-url', badUrls))).status).toBe(200);
    const urls = [
      held('https://b.example.com', liked),
      held('https://c.example.com', liked),
      held('https://d.example.com', elsewhere),
    ];
    expect((await postSigned(fetchB, `${serviceA}/inbox`, like('like-several-urls', urls))).status).toBe(200);
    const stored = (id: string) => async () =>
      (await inboxOf(serviceA, 'Like')).some((activity) => activity.id === `${serviceB}/activities/${id}`);
    await waitFor(async () => (await stored('like-bad-url')()) && (await stored('like-several-urls')()), {
      description: 'both Likes handled',
    });
    expect((await call(`${serviceA}/likes/${liked}?page=true`)).body.totalItems).toBe(1);
    expect((await a.server.services.activitypub.anchorAlternates(liked)).sort()).toEqual([
      `https://b.example.com/cas/${liked}`,
      `https://c.example.com/cas/${liked}`,
    ]);
    expect(await a.server.services.activitypub.anchorAlternates(elsewhere)).toEqual([]);
  });

  it('delivers an activity once to an inbox however many ways it is addressed there', async () => {
    const delivered = async (): Promise<number> => {
      const text = await (await fetch(`${a.url}/metrics`)).text();
      const line = text
        .split('\n')
        .find((row) => row.startsWith('node_activitypub_deliveries_total{outcome="delivered"}'));
      return line === undefined ? 0 : Number(line.split(' ').at(-1));
    };
    const before = await delivered();
    const anchor = multibaseMultihash(Buffer.from('liked by A'));
    // B is a follower of A: addressed directly and through A's followers collection.
    const likeId = await post(serviceA, {
      type: 'Like',
      to: [serviceB, `${serviceA}/followers`],
      object: { type: 'AnchorEvent', url: `hl:${anchor}` },
    });
    await waitFor(async () => (await inboxOf(serviceB, 'Like')).some((like) => like.id === likeId), {
      description: "A's Like in B's inbox",
    });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect((await delivered()) - before).toBe(1);
    expect(await itemsOf<string>(`${serviceA}/liked`)).toContain(`hl:${anchor}`);
  });

  it('pages ordered collections with page=true&page-num=N', async () => {
    const collection = await call(`${serviceA}/outbox`);
    expect(collection.body).toMatchObject({ type: 'OrderedCollection', first: `${serviceA}/outbox?page=true` });
    const total = collection.body.totalItems as number;
    expect(total).toBeGreaterThanOrEqual(3);
    const last = Math.ceil(total / 2) - 1;
    expect(collection.body.last).toBe(`${serviceA}/outbox?page=true&page-num=${last}`);
    const first = await call(`${serviceA}/outbox?page=true`);
    expect(first.body).toMatchObject({ type: 'OrderedCollectionPage' });
    expect(first.body.next).toMatch(new RegExp(`^${serviceA}/outbox\\?page=true&after=[A-Za-z0-9_-]+$`));
    expect(first.body.orderedItems).toHaveLength(2);
    // The cursor page is numbered page 1.
    const byCursor = await call(first.body.next as string);
    const byNumber = await call(`${serviceA}/outbox?page=true&page-num=1`);
    expect(byCursor.body.orderedItems).toEqual(byNumber.body.orderedItems);
    const final = await call(`${serviceA}/outbox?page=true&page-num=${last}`);
    expect(final.body.next).toBeUndefined();
    expect((await call(`${serviceA}/outbox?page=yes`)).status).toBe(400);
    expect((await call(`${serviceA}/outbox?page=true&after=not*a*cursor`)).status).toBe(400);
    expect((await call(`${serviceA}/outbox?page=true&after=AAAA`)).status).toBe(400);
  });

  it('an Undo of the Follow leaves both collections', async () => {
    const follow = await itemsOf<Json>(`${serviceB}/outbox`);
    const accepted = follow.filter((activity) => activity.type === 'Follow').at(-1) as Json;
    await post(serviceB, { type: 'Undo', object: accepted.id as string });
    await waitFor(async () => !(await membersOf(serviceA, 'followers')).includes(serviceB), {
      description: 'B gone from A followers',
    });
    expect(await membersOf(serviceB, 'following')).toEqual([]);
  });
});
