import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postOperation, startTestNode, TestDid, type TestNode } from '../testing/test-node.js';

const FOLLOWER = 'https://node2.example.com/services/node';
const WITNESS = 'https://node3.example.com/services/node';

interface Answer {
  status: number;
  body: unknown;
}

async function call(url: string, init: RequestInit & { json?: unknown } = {}): Promise<Answer> {
  const { json, ...rest } = init;
  const response = await fetch(url, {
    ...rest,
    ...(json !== undefined
      ? { body: JSON.stringify(json), headers: { 'content-type': 'application/json', ...(rest.headers ?? {}) } }
      : {}),
  });
  const text = await response.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON: keep the text
  }
  return { status: response.status, body };
}

describe('accept lists: GET/POST /services/node/acceptlist', () => {
  let node: TestNode;
  let acceptlist: string;
  beforeAll(async () => {
    node = await startTestNode();
    acceptlist = `${node.url}/services/node/acceptlist`;
  });
  afterAll(async () => {
    await node.stop();
  });

  it('lists both types, empty at first', async () => {
    expect(await call(acceptlist)).toEqual({
      status: 200,
      body: [
        { type: 'follow', url: [] },
        { type: 'invite-witness', url: [] },
      ],
    });
  });

  it('adds and removes per type, idempotently, and answers with the lists', async () => {
    const added = await call(acceptlist, {
      method: 'POST',
      json: [
        { type: 'follow', add: [FOLLOWER, WITNESS] },
        { type: 'invite-witness', add: [WITNESS] },
      ],
    });
    expect(added).toEqual({
      status: 200,
      body: [
        { type: 'follow', url: [FOLLOWER, WITNESS] },
        { type: 'invite-witness', url: [WITNESS] },
      ],
    });
    // The same request again changes nothing; removing what is not there is no error.
    await call(acceptlist, { method: 'POST', json: [{ type: 'follow', add: [FOLLOWER, WITNESS] }] });
    await call(acceptlist, {
      method: 'POST',
      json: [{ type: 'follow', remove: [WITNESS, 'https://never.example.com/services/node'] }],
    });
    expect(await call(`${acceptlist}?type=follow`)).toEqual({ status: 200, body: { type: 'follow', url: [FOLLOWER] } });
    expect(await call(`${acceptlist}?type=invite-witness`)).toEqual({
      status: 200,
      body: { type: 'invite-witness', url: [WITNESS] },
    });
    // What the federation's accept-list policy reads.
    expect(await node.server.context.acceptLists.includes('follow', FOLLOWER)).toBe(true);
    expect(await node.server.context.acceptLists.includes('follow', WITNESS)).toBe(false);
  });

  it("takes the spec's application/ld+json and a bare curl -d body as well", async () => {
    const ld = await fetch(acceptlist, {
      method: 'POST',
      body: JSON.stringify([{ type: 'invite-witness', add: [FOLLOWER] }]),
      headers: { 'content-type': 'application/ld+json' },
    });
    expect(ld.status).toBe(200);
    const form = await fetch(acceptlist, {
      method: 'POST',
      body: JSON.stringify([{ type: 'invite-witness', remove: [FOLLOWER] }]),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(form.status).toBe(200);
    expect((await call(`${acceptlist}?type=invite-witness`)).body).toEqual({ type: 'invite-witness', url: [WITNESS] });
  });

  it('refuses an unknown type or a repeated type parameter on GET', async () => {
    expect(await call(`${acceptlist}?type=like`)).toEqual({
      status: 400,
      body: { message: "unknown accept list type 'like'; use one of follow, invite-witness" },
    });
    expect((await call(`${acceptlist}?type=follow&type=invite-witness`)).status).toBe(400);
  });

  it.each([
    ['an unknown type', [{ type: 'like', add: [FOLLOWER] }], '/0/type must be one of follow, invite-witness'],
    ['a missing type', [{ add: [FOLLOWER] }], '/0/type is required'],
    ['an object instead of an array', { type: 'follow', add: [FOLLOWER] }, '/ must be an array'],
    ['a string instead of a list', [{ type: 'follow', add: FOLLOWER }], '/0/add must be an array'],
    ['something that is not a URI', [{ type: 'follow', add: ['node2.example.com'] }], '/0/add/0 must be a valid uri'],
    ['an unknown member', [{ type: 'follow', url: [FOLLOWER] }], '/0/url is not allowed'],
  ])('refuses %s with a 400 naming the problem', async (_what, body, problem) => {
    const answer = await call(acceptlist, { method: 'POST', json: body });
    expect(answer.status).toBe(400);
    expect((answer.body as { message: string }).message).toBe(`invalid accept list update: ${problem}`);
  });

  it('changes nothing when any entry of a request is invalid', async () => {
    const before = await call(acceptlist);
    const answer = await call(acceptlist, {
      method: 'POST',
      json: [
        { type: 'follow', add: ['https://valid.example.com/services/node'] },
        { type: 'invite-witness', remove: [WITNESS] },
        { type: 'follow', add: ['not a uri'] },
      ],
    });
    expect(answer.status).toBe(400);
    expect((answer.body as { message: string }).message).toMatch(/\/2\/add\/0/);
    expect(await call(acceptlist)).toEqual(before);
  });

  it('refuses a body that is missing or not JSON', async () => {
    expect(await call(acceptlist, { method: 'POST' })).toEqual({
      status: 400,
      body: { message: 'accept list update: a JSON body is required' },
    });
    const notJson = await fetch(acceptlist, {
      method: 'POST',
      body: '[{type: follow}]',
      headers: { 'content-type': 'text/plain' },
    });
    expect(notJson.status).toBe(400);
    expect(await notJson.json()).toEqual({
      message: expect.stringMatching(/^accept list update: malformed JSON: /),
    });
    // The kit's strict reader, whatever the content type: a lone surrogate is refused, naming the member.
    const surrogate = await fetch(acceptlist, {
      method: 'POST',
      body: '[{"type":"follow","add":["https://a.example/\\ud800"]}]',
      headers: { 'content-type': 'text/plain' },
    });
    expect(surrogate.status).toBe(400);
    expect(((await surrogate.json()) as { message: string }).message).toMatch(
      /^accept list update member \[0\]\.add\[0\] contains a lone UTF-16 surrogate/,
    );
  });
});

describe('allowed origins: GET/POST /allowedorigins', () => {
  let node: TestNode;
  const other = 'https://other-origin.example.com';
  beforeAll(async () => {
    node = await startTestNode();
  });
  afterAll(async () => {
    await node.stop();
  });

  it("starts with the node's own endpoint and service id", async () => {
    expect(await call(`${node.url}/allowedorigins`)).toEqual({
      status: 200,
      body: [node.url, `${node.url}/services/node`],
    });
  });

  it('feeds the operation checks at once: an origin added is accepted, one removed refused', async () => {
    expect((await postOperation(node.url, new TestDid(other).created.request)).status).toBe(400);

    const added = await call(`${node.url}/allowedorigins`, { method: 'POST', json: { add: [other] } });
    expect(added).toEqual({ status: 200, body: [node.url, `${node.url}/services/node`, other] });
    expect((await postOperation(node.url, new TestDid(other).created.request)).status).toBe(200);

    await call(`${node.url}/allowedorigins`, { method: 'POST', json: { add: [other] } });
    expect((await call(`${node.url}/allowedorigins`)).body).toEqual([node.url, `${node.url}/services/node`, other]);

    expect((await call(`${node.url}/allowedorigins`, { method: 'POST', json: { remove: [other] } })).status).toBe(200);
    const refused = await postOperation(node.url, new TestDid(other).created.request);
    expect(refused.status).toBe(400);
    expect(refused.body.message).toMatch(/anchor origin/i);
  });

  it('accepts "*" to allow any origin, and takes it back', async () => {
    await call(`${node.url}/allowedorigins`, { method: 'POST', json: { add: ['*'] } });
    expect((await postOperation(node.url, new TestDid('https://anyone.example.com').created.request)).status).toBe(200);
    await call(`${node.url}/allowedorigins`, { method: 'POST', json: { remove: ['*'] } });
    expect((await postOperation(node.url, new TestDid('https://anyone.example.com').created.request)).status).toBe(400);
  });

  it.each([
    ['an array', [other], '/ must be an object'],
    ['a string instead of a list', { add: other }, '/add must be an array'],
    ['something that is not a URI', { add: ['other-origin.example.com'] }, '/add/0 must be a URI or "*"'],
    ['an unknown member', { replace: [other] }, '/replace is not allowed'],
  ])('refuses %s with a 400 and changes nothing', async (_what, body, problem) => {
    const before = await call(`${node.url}/allowedorigins`);
    const answer = await call(`${node.url}/allowedorigins`, { method: 'POST', json: body });
    expect(answer).toEqual({
      status: 400,
      body: { message: `invalid allowed origins update: ${problem}`, path: problem.split(' ')[0] },
    });
    expect(await call(`${node.url}/allowedorigins`)).toEqual(before);
  });
});

describe('token protection of the system endpoints (spec Authentication rule 2)', () => {
  let node: TestNode;
  const admin = { authorization: 'Bearer ADMIN_TOKEN' };
  const read = { authorization: 'Bearer READ_TOKEN' };
  beforeAll(async () => {
    node = await startTestNode({
      args: [
        '--auth-tokens-def',
        '/services/node/acceptlist|admin&read|admin',
        '--auth-tokens-def',
        '/allowedorigins|admin&read|admin',
        '--auth-tokens-def',
        '/loglevels||admin',
        '--auth-tokens',
        'admin=ADMIN_TOKEN,read=READ_TOKEN',
      ],
    });
  });
  afterAll(async () => {
    await node.stop();
  });

  it.each(['/services/node/acceptlist', '/allowedorigins'])(
    '%s: reads need a read token, writes the admin token',
    async (path) => {
      const body =
        path === '/allowedorigins'
          ? { add: ['https://x.example.com'] }
          : [{ type: 'follow', add: ['https://x.example.com/services/node'] }];
      expect((await call(`${node.url}${path}`)).status).toBe(401);
      expect((await call(`${node.url}${path}`, { headers: { authorization: 'Bearer WRONG' } })).status).toBe(401);
      expect((await call(`${node.url}${path}`, { headers: read })).status).toBe(200);
      expect((await call(`${node.url}${path}`, { method: 'POST', json: body })).status).toBe(401);
      expect((await call(`${node.url}${path}`, { method: 'POST', json: body, headers: read })).status).toBe(401);
      expect((await call(`${node.url}${path}`, { method: 'POST', json: body, headers: admin })).status).toBe(200);
    },
  );

  it('/loglevels: open to read, the admin token to change', async () => {
    expect((await call(`${node.url}/loglevels`)).status).toBe(200);
    expect(
      (
        await fetch(`${node.url}/loglevels`, {
          method: 'POST',
          body: 'error',
          headers: { 'content-type': 'text/plain' },
        })
      ).status,
    ).toBe(401);
    expect(
      (
        await fetch(`${node.url}/loglevels`, {
          method: 'POST',
          body: 'error',
          headers: { 'content-type': 'text/plain', ...admin },
        })
      ).status,
    ).toBe(200);
  });
});

describe('log levels: GET/POST /loglevels', () => {
  let node: TestNode;
  beforeAll(async () => {
    node = await startTestNode();
  });
  afterAll(async () => {
    await node.stop();
  });
  const get = async () => (await fetch(`${node.url}/loglevels`)).text();
  const post = (spec: string) =>
    fetch(`${node.url}/loglevels`, { method: 'POST', body: spec, headers: { 'content-type': 'text/plain' } });

  it('sets module levels and the default, and reads them back in the same format', async () => {
    const answer = await post('anchor-writer=debug:nodeinfo=WARN:error');
    expect(answer.status).toBe(200);
    expect(await answer.text()).toBe('anchor-writer=debug:nodeinfo=warning:error');
    expect(await get()).toBe('anchor-writer=debug:nodeinfo=warning:error');
  });

  it.each([
    ['an unknown level', 'anchor-writer=loud:error', /unknown log level "loud"/],
    ['a spec not ending with the default', 'anchor-writer=debug', /must end with the default level/],
    ['an empty spec', '', /empty log level spec|text\/plain body/],
    ['a module named twice', 'a=debug:a=info:error', /names module "a" twice/],
  ])('refuses %s with a 400 and changes nothing', async (_what, spec, message) => {
    await post('observer=debug:error');
    const answer = await post(spec);
    expect(answer.status).toBe(400);
    expect(((await answer.json()) as { message: string }).message).toMatch(message);
    expect(await get()).toBe('observer=debug:error');
  });
});
