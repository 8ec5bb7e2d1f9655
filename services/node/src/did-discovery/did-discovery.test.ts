import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { selfWitnessing, type AnchorWitnessing } from '../anchoring/witnessing.js';
import {
  metadataOf,
  postOperation,
  resolveDid,
  startTestNode,
  TestDid,
  waitPublished,
  type TestNode,
} from '../testing/test-node.js';
import { anchorOriginBase, checkPeer, hintedBase, plainHttpPolicy } from './peer-base.js';

describe('where a hint or an anchor origin points', () => {
  it('https, except plain http in dev mode and between plain-http loopback nodes', () => {
    expect(plainHttpPolicy('https://node.example.com', false)).toBe('never');
    expect(plainHttpPolicy('http://127.0.0.1:8080', false)).toBe('loopback');
    expect(plainHttpPolicy('https://127.0.0.1:8080', false)).toBe('never');
    expect(plainHttpPolicy('http://node1:8080', true)).toBe('always');
    expect(hintedBase('node.example.com', 'loopback')).toBe('https://node.example.com');
    expect(hintedBase('127.0.0.1:9000', 'loopback')).toBe('http://127.0.0.1:9000');
    expect(hintedBase('localhost:9000', 'never')).toBe('https://localhost:9000');
    expect(hintedBase('node1:8080', 'always')).toBe('http://node1:8080');
  });

  it('an anchor origin names a node by URL or did:web; other schemes name none', () => {
    expect(anchorOriginBase('https://node.example.com/services/node', 'never')).toBe('https://node.example.com');
    expect(anchorOriginBase('did:web:node.example.com:services:node', 'never')).toBe('https://node.example.com');
    expect(anchorOriginBase('did:web:127.0.0.1%3A9000', 'loopback')).toBe('http://127.0.0.1:9000');
    expect(anchorOriginBase('ipns://k51qzi5uqu5d', 'never')).toBeUndefined();
    expect(anchorOriginBase('not a url', 'never')).toBeUndefined();
  });
});

describe('which peers a hint may make the node call', () => {
  it('public addresses, and the classes the key-fetch policy allows besides', async () => {
    await expect(checkPeer('https://127.0.0.1:9000', { allowAddresses: ['loopback'] })).resolves.toBeUndefined();
    await expect(checkPeer('http://localhost:9000', { allowAddresses: ['loopback'] })).resolves.toBeUndefined();
    await expect(checkPeer('https://127.0.0.1:9000', {})).rejects.toThrow(/a loopback address: not asked/);
    await expect(checkPeer('https://10.1.2.3', { allowAddresses: ['loopback'] })).rejects.toThrow(/a private address/);
    await expect(checkPeer('http://169.254.169.254', { allowAddresses: ['loopback'] })).rejects.toThrow(
      /a link-local address/,
    );
    await expect(checkPeer('https://[::1]:9000', {})).rejects.toThrow(/loopback/);
    // --allowed-peer-networks: the listed private network is asked; other private and link-local addresses are not.
    const cluster = { allowNetworks: ['10.0.0.0/8'] };
    await expect(checkPeer('https://10.1.2.3', cluster)).resolves.toBeUndefined();
    await expect(checkPeer('https://192.168.1.2', cluster)).rejects.toThrow(/a private address: not asked/);
    await expect(checkPeer('http://169.254.169.254', cluster)).rejects.toThrow(/a link-local address: not asked/);
  });
});

/** Holds every anchor of the node in witnessing while `held`: its operations stay unpublished. */
function holdableWitnessing(): AnchorWitnessing & { held: boolean } {
  const witnessing = {
    held: false,
    async witness(request: Parameters<AnchorWitnessing['witness']>[0]) {
      return witnessing.held ? ({ status: 'pending', recheckAfterMs: 50 } as const) : selfWitnessing.witness(request);
    },
  };
  return witnessing;
}

describe('DID discovery between two plain-http loopback nodes that do not follow each other', () => {
  let origin: TestNode;
  let discovering: TestNode;
  const witnessing = holdableWitnessing();

  beforeAll(async () => {
    [origin, discovering] = await Promise.all([
      startTestNode({ server: { witnessing } }),
      startTestNode({
        args: ['--enable-did-discovery', '--resolve-from-anchor-origin', '--verify-latest-from-anchor-origin'],
      }),
    ]);
  }, 30_000);

  afterAll(async () => {
    await Promise.all([origin?.stop(), discovering?.stop()]);
  });

  const httpsHinted = (node: TestNode, canonicalId: string): string => {
    const [, method, hash, suffix] = canonicalId.split(':');
    return `did:${method}:https:${new URL(node.url).host.replace(':', '%3A')}:${hash}:${suffix}`;
  };

  it('finds the DID through the hinted node (plain http on loopback), and refuses a change while the origin holds an unpublished one', async () => {
    const did = new TestDid(`${origin.url}/services/node`);
    expect((await postOperation(origin.url, did.created.request)).status).toBe(200);
    const canonicalId = metadataOf(await waitPublished(origin.url, did.did)).canonicalId as string;

    const found = await resolveDid(discovering.url, httpsHinted(origin, canonicalId));
    expect(found.status, found.text).toBe(200);
    expect(metadataOf(found).canonicalId).toBe(canonicalId);
    const metrics = await (await fetch(`${discovering.url}/metrics`)).text();
    expect(metrics).toMatch(/^node_resolver_request_discovery_seconds_count\{result="found"\} 1$/m);

    witnessing.held = true;
    try {
      expect((await postOperation(origin.url, did.update('key-2'))).status).toBe(200);
      const refused = await postOperation(discovering.url, did.update('key-3'));
      expect(refused.status).toBe(400);
      expect(refused.text).toContain(
        'anchor origin has unpublished operations - please re-submit your request at later time',
      );
    } finally {
      witnessing.held = false;
    }
  });

  it('answers 404 naming the failure when the hinted node does not know the DID', async () => {
    const stranger = new TestDid(`${origin.url}/services/node`);
    const hinted = `did:node:https:${new URL(origin.url).host.replace(':', '%3A')}:uAAA:${stranger.suffix}`;
    const answer = await resolveDid(discovering.url, hinted);
    expect(answer.status).toBe(404);
    expect(answer.text).toMatch(/discovery from its hint found nothing/);
  });

  it('does not call an address of its own network for a hint', async () => {
    const stranger = new TestDid(`${origin.url}/services/node`);
    const answer = await resolveDid(discovering.url, `did:node:https:169.254.169.254:uAAA:${stranger.suffix}`);
    expect(answer.status).toBe(404);
    expect(answer.text).toMatch(/169\.254\.169\.254, a link-local address: not asked/);
  });

  it('is off by default: a node without --enable-did-discovery answers 404 for a hinted DID it does not hold', async () => {
    const did = new TestDid(`${discovering.url}/services/node`);
    expect((await postOperation(discovering.url, did.created.request)).status).toBe(200);
    const canonicalId = metadataOf(await waitPublished(discovering.url, did.did)).canonicalId as string;
    expect((await resolveDid(origin.url, httpsHinted(discovering, canonicalId))).status).toBe(404);
  });
});
