import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestNode, type TestNode } from '../testing/test-node.js';

const POLICY = 'MinPercent(100,batch) AND MinPercent(50,system)';

const get = (url: string, token?: string) => fetch(url, token ? { headers: { authorization: `Bearer ${token}` } } : {});
const post = (url: string, body: string, token?: string) =>
  fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'text/plain', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body,
  });

/**
 * `GET /policy` is a read (Orb's `/policy|read&admin|admin`), `POST /policy` stays the admin's; the
 * policy and the witnesses collection are readable from another origin (the explorer's check (c)).
 */
describe('/policy: read class for GET, admin for POST', () => {
  let open: TestNode;
  let ruled: TestNode;

  beforeAll(async () => {
    [open, ruled] = await Promise.all([
      startTestNode(),
      startTestNode({
        args: [
          '--auth-tokens-def',
          '/policy|read&admin|admin',
          '--auth-tokens-def',
          '/services/node/.*|read&admin|admin',
          '--auth-tokens',
          'admin=ADMIN_TOKEN,read=READ_TOKEN',
        ],
      }),
    ]);
  });
  afterAll(async () => {
    await Promise.all([open?.stop(), ruled?.stop()]);
  });

  it('without read tokens GET /policy is open to anyone', async () => {
    const unset = await get(`${open.url}/policy`);
    expect(unset.status).toBe(404);
    // The explorer on another origin must see the 404 (the default policy applies), not a CORS failure.
    expect(unset.headers.get('access-control-allow-origin')).toBe('*');
    expect((await post(`${open.url}/policy`, POLICY)).status).toBe(200);
    const read = await get(`${open.url}/policy`);
    expect(read.status).toBe(200);
    expect(await read.text()).toBe(POLICY);
    // Readable from another node's explorer page, as /.well-known/did.json is; a change is not.
    expect(read.headers.get('access-control-allow-origin')).toBe('*');
    expect((await post(`${open.url}/policy`, POLICY)).headers.get('access-control-allow-origin')).toBeNull();
    const witnesses = await get(`${open.url}/services/node/witnesses?page=true`);
    expect(witnesses.status).toBe(200);
    expect(witnesses.headers.get('access-control-allow-origin')).toBe('*');
    const badPaging = await get(`${open.url}/services/node/witnesses?page=maybe`);
    expect(badPaging.status).toBe(400);
    expect(badPaging.headers.get('access-control-allow-origin')).toBe('*');
    expect((await get(`${open.url}/services/node/followers`)).headers.get('access-control-allow-origin')).toBeNull();
  });

  it('with read tokens GET /policy needs one, and POST still needs the admin token', async () => {
    const url = `${ruled.url}/policy`;
    expect((await post(url, POLICY)).status).toBe(401);
    expect((await post(url, POLICY, 'READ_TOKEN')).status).toBe(401);
    expect((await get(url, 'READ_TOKEN')).status).toBe(404);
    expect((await post(url, POLICY, 'ADMIN_TOKEN')).status).toBe(200);

    expect((await get(url)).status).toBe(401);
    expect((await get(url, 'WRONG')).status).toBe(401);
    for (const token of ['READ_TOKEN', 'ADMIN_TOKEN']) {
      const read = await get(url, token);
      expect(read.status).toBe(200);
      expect(await read.text()).toBe(POLICY);
    }
    // A refused POST changed nothing.
    expect((await post(url, 'OutOf(1,system)', 'READ_TOKEN')).status).toBe(401);
    expect(await (await get(url, 'READ_TOKEN')).text()).toBe(POLICY);
  });

  it('the witnesses collection the explorer classifies proofs with is readable with the same read token', async () => {
    const witnesses = `${ruled.url}/services/node/witnesses`;
    const refused = await get(witnesses);
    expect(refused.status).toBe(401);
    expect(refused.headers.get('access-control-allow-origin')).toBe('*');
    const read = await get(witnesses, 'READ_TOKEN');
    expect(read.status).toBe(200);
    expect(((await read.json()) as { type: string }).type).toBe('Collection');
  });
});
