import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestNode, type TestNode } from '../testing/test-node.js';
import { EXPLORER_CSP } from './explorer-routes.js';

describe('the explorer served by the node', () => {
  let node: TestNode;
  beforeAll(async () => {
    // A read-token rule over the explorer's own path: it stays open, as it reads public endpoints only.
    node = await startTestNode({
      args: [
        '--auth-tokens-def',
        '/explorer|read|read',
        '--auth-tokens-def',
        '/allowedorigins|read|read',
        '--auth-tokens',
        'read=READ_TOKEN',
      ],
    });
  });
  afterAll(async () => {
    await node.stop();
  });

  it('serves the page without a token, under its strict Content-Security-Policy, with no inline script', async () => {
    const response = await fetch(`${node.url}/explorer/`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/html/);
    expect(response.headers.get('content-security-policy')).toBe(EXPLORER_CSP);
    const page = await response.text();
    expect(page).toContain('<script type="module" src="explorer.js"></script>');
    for (const script of page.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/g)) {
      expect(script[1]).toMatch(/\bsrc="/);
      expect(script[2]).toBe('');
    }
    expect(page).not.toMatch(/\son[a-z]+=/i);
  });

  it('redirects /explorer to /explorer/, keeping the query, so relative file URLs resolve', async () => {
    const response = await fetch(`${node.url}/explorer?did=did%3Anode%3Ax`, { redirect: 'manual' });
    expect(response.status).toBe(301);
    expect(response.headers.get('location')).toBe('/explorer/?did=did%3Anode%3Ax');
  });

  it('serves the built script and style sheet', async () => {
    const script = await fetch(`${node.url}/explorer/explorer.js`);
    expect(script.status).toBe(200);
    expect(script.headers.get('content-type')).toMatch(/^text\/javascript/);
    expect((await script.text()).length).toBeGreaterThan(1_000);
    // The bundles imported on demand: the verifier and the federation graph.
    for (const name of ['verifier.js', 'graph.js']) {
      const bundle = await fetch(`${node.url}/explorer/${name}`);
      expect(bundle.status, name).toBe(200);
      expect(bundle.headers.get('content-type'), name).toMatch(/^text\/javascript/);
    }
    const style = await fetch(`${node.url}/explorer/explorer.css`);
    expect(style.status).toBe(200);
    expect(style.headers.get('content-type')).toMatch(/^text\/css/);
  });

  it('answers 404 for a file the explorer does not have, and never reads outside its folder', async () => {
    for (const name of ['nope.js', 'index.html.bak', '..%2Fpackage.json', 'constructor']) {
      const response = await fetch(`${node.url}/explorer/${name}`);
      expect(response.status, name).toBe(404);
      expect(((await response.json()) as { message: string }).message).toMatch(/no explorer file/);
    }
  });

  it('keeps the rest of the node behind its token rules', async () => {
    expect((await fetch(`${node.url}/allowedorigins`)).status).toBe(401);
  });
});
