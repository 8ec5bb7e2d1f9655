import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestNode, type TestNode } from '../testing/test-node.js';

/** `GET|POST /log-monitor` under token rules: reads with a read token, changes with the admin token only. */
describe('/log-monitor: activate and deactivate, token rules', () => {
  let node: TestNode;
  // Nothing listens on the discard port: these logs are only switched on and off here.
  const first = 'http://127.0.0.1:9/main';
  const second = 'http://127.0.0.1:9/maple2022';

  beforeAll(async () => {
    node = await startTestNode({
      args: [
        '--auth-tokens-def',
        '/log-monitor|read&admin|admin',
        '--auth-tokens',
        'admin=ADMIN_TOKEN,read=READ_TOKEN',
      ],
    });
  });
  afterAll(async () => {
    await node.stop();
  });

  const get = (query: string, token?: string) =>
    fetch(`${node.url}/log-monitor${query}`, token ? { headers: { authorization: `Bearer ${token}` } } : {});
  const post = (body: unknown, token?: string) =>
    fetch(`${node.url}/log-monitor`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });
  const listed = async (status: string): Promise<string[]> => {
    const response = await get(`?status=${status}`, 'READ_TOKEN');
    if (response.status === 404) return [];
    expect(response.status).toBe(200);
    const body = (await response.json()) as Record<string, Array<{ Log: string; Active: boolean }>>;
    return body[status]!.map((log) => log.Log).sort();
  };

  it('refuses reads without a token and changes without the admin token', async () => {
    expect((await get('')).status).toBe(401);
    expect((await get('', 'WRONG')).status).toBe(401);
    expect((await post({ activate: [first] })).status).toBe(401);
    expect((await post({ activate: [first] }, 'READ_TOKEN')).status).toBe(401);
    // Nothing is monitored yet: 404 for both lists, as Orb answers.
    expect((await get('', 'READ_TOKEN')).status).toBe(404);
    expect((await get('?status=inactive', 'ADMIN_TOKEN')).status).toBe(404);
  });

  it('activates and deactivates logs, moving them between the lists', async () => {
    expect((await post({ activate: [first, `${second}/`] }, 'ADMIN_TOKEN')).status).toBe(200);
    expect(await listed('active')).toEqual([first, second]);
    const defaultList = (await (await get('', 'READ_TOKEN')).json()) as { active: unknown[] };
    expect(defaultList.active).toHaveLength(2);

    expect((await post({ deactivate: [second] }, 'ADMIN_TOKEN')).status).toBe(200);
    expect(await listed('active')).toEqual([first]);
    expect(await listed('inactive')).toEqual([second]);
    const inactive = (await (await get('?status=inactive', 'READ_TOKEN')).json()) as {
      inactive: Array<Record<string, unknown>>;
    };
    expect(inactive.inactive[0]).toMatchObject({ Log: second, Active: false, Source: 'operator', STH: null });

    expect((await post({ activate: [second], deactivate: [first] }, 'ADMIN_TOKEN')).status).toBe(200);
    expect(await listed('active')).toEqual([second]);
    expect(await listed('inactive')).toEqual([first]);
    expect(await listed('failed')).toEqual([]);
  });

  it('answers 400 for a bad status or body, changing nothing', async () => {
    expect((await get('?status=bogus', 'READ_TOKEN')).status).toBe(400);
    expect((await get('?status=active&status=inactive', 'READ_TOKEN')).status).toBe(400);
    for (const body of [{ activate: 'not a list' }, { enable: [first] }, { activate: ['not a url'] }, 'not json']) {
      const response = await post(body, 'ADMIN_TOKEN');
      expect(response.status).toBe(400);
      expect(((await response.json()) as { message: string }).message).toBeTruthy();
    }
    // A list whose second URL names no log alias: the first is not applied either.
    expect((await post({ deactivate: [second, 'http://127.0.0.1:9'] }, 'ADMIN_TOKEN')).status).toBe(400);
    expect(await listed('active')).toEqual([second]);
  });
});
