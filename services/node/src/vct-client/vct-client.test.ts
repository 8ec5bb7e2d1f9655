import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestNode, type TestNode } from '../testing/test-node.js';
import { checkLogUrl } from './log-setting.js';

describe('log URL', () => {
  it('keeps an http(s) URL of a log alias, without a trailing slash', () => {
    expect(checkLogUrl('https://vct.example.com/maple2021/')).toBe('https://vct.example.com/maple2021');
    expect(checkLogUrl('http://127.0.0.1:7000/main')).toBe('http://127.0.0.1:7000/main');
  });

  it('refuses anything else', () => {
    expect(() => checkLogUrl('vct.example.com/main')).toThrow(/not an absolute URL/);
    expect(() => checkLogUrl('ftp://vct.example.com/main')).toThrow(/must be http or https/);
    expect(() => checkLogUrl('https://vct.example.com')).toThrow(/must name a log alias/);
    expect(() => checkLogUrl('https://vct.example.com/main?x=1')).toThrow(/query/);
  });
});

describe('GET/POST /log and vctStatus', () => {
  let node: TestNode;
  beforeAll(async () => {
    node = await startTestNode();
  });
  afterAll(async () => {
    await node.stop();
  });
  const post = (body: string) =>
    fetch(`${node.url}/log`, { method: 'POST', body, headers: { 'content-type': 'text/plain' } });
  const health = async () =>
    (await (await fetch(`${node.url}/healthcheck`)).json()) as { vctStatus: string; status: string };

  it('has no log at first, which is not a health failure', async () => {
    expect((await fetch(`${node.url}/log`)).status).toBe(404);
    expect(await health()).toMatchObject({ vctStatus: 'log endpoint not configured', status: 'OK' });
  });

  it('stores a valid URL, refuses an invalid one, and clears with an empty body', async () => {
    expect((await post('not a url')).status).toBe(400);
    expect((await post('https://vct.example.com/maple2021/')).status).toBe(200);
    const current = await fetch(`${node.url}/log`);
    expect(current.headers.get('content-type')).toMatch(/text\/plain/);
    expect(await current.text()).toBe('https://vct.example.com/maple2021');
    expect((await post('')).status).toBe(200);
    expect((await fetch(`${node.url}/log`)).status).toBe(404);
  });

  it('reads a JSON string body as its text, quotes kept, and refuses other bodies', async () => {
    const send = async (body: string, type: string) => {
      const response = await fetch(`${node.url}/log`, { method: 'POST', body, headers: { 'content-type': type } });
      return { status: response.status, body: await response.text() };
    };
    expect(await send('"https://vct.example.com/main"', 'application/json')).toEqual({
      status: 400,
      body: '{"message":"log URL \'\\"https://vct.example.com/main\\"\' is not an absolute URL"}',
    });
    const refused = { status: 400, body: '{"message":"POST /log takes the log URL as a text/plain body"}' };
    expect(await send('{"a":1}', 'application/json')).toEqual(refused);
    expect(await send('x', 'application/octet-stream')).toEqual(refused);
    expect((await fetch(`${node.url}/log`)).status).toBe(404);
  });
});

describe('vctStatus with --vct-enabled=false', () => {
  it('reports disabled and stays healthy', async () => {
    const node = await startTestNode({ args: ['--vct-enabled=false'] });
    try {
      const body = (await (await fetch(`${node.url}/healthcheck`)).json()) as { vctStatus: string };
      expect(body.vctStatus).toBe('disabled');
    } finally {
      await node.stop();
    }
  });
});
